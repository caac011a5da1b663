// Screenshots that cannot go stale (O4): every scene `baton-screenshots`
// renders (scripts/screenshots.sh, docs/screenshots/) is rendered here in
// English, French and German, and fails the test when a visible string
// says a feature is "coming", when a string of the dashboard has no
// translation in French or German (it would show its English source), or
// when the lease table scrolls sideways at the 1280 pixels the scenes are
// rendered at. The detail scene shows a crash's time without a leader;
// the runs scene an interrupted run, a missed tick and a skipped one, each
// outcome whole.

#include <baton/clock.h>
#include "fleettimelinemodel.h"
#include "leaseactivity.h"
#include "leasetablemodel.h"
#include "mainwindow.h"
#include "runhistorymodel.h"
#include "runstab.h"
#include "candidatemodel.h"
#include "candidatestab.h"
#include "screenshotdemo.h"
#include "timelinewidget.h"
#include "translations.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QApplication>
#include <QComboBox>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QSet>
#include <QSignalSpy>
#include <QStyle>
#include <QTabBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextDocumentFragment>
#include <QTranslator>

using namespace baton;

namespace {

/*!
 * Answers as the embedded translation of one language does, and notes every
 * string of the dashboard it has no translation for. Qt's own contexts
 * (QDialogButtonBox, ...) are qtbase's business, not ours.
 */
class RecordingTranslator : public QTranslator
{
public:
    bool loadLanguage(const QString &language)
    {
        return m_real.load(QLocale(language), QStringLiteral("baton"), QStringLiteral("_"), QStringLiteral(":/i18n"));
    }
    QString translate(const char *context, const char *source, const char *disambiguation, int n) const override
    {
        const QString translated = m_real.translate(context, source, disambiguation, n);
        const QString contextName = QString::fromLatin1(context);
        const bool ours = contextName.startsWith(QLatin1String("baton::")) || !contextName.startsWith(QLatin1Char('Q'));
        if (translated.isEmpty() && ours)
            m_missing.insert(QStringLiteral("%1: \"%2\"").arg(contextName, QString::fromUtf8(source)));
        return translated;
    }
    bool isEmpty() const override { return false; }
    QStringList missing() const
    {
        QStringList all = m_missing.values();
        all.sort();
        return all;
    }

private:
    QTranslator m_real;
    mutable QSet<QString> m_missing;
};

void collect(const QAbstractItemView *view, QStringList *out)
{
    const QAbstractItemModel *model = view->model();
    if (!model)
        return;
    for (int column = 0; column < model->columnCount(); ++column)
        out->append(model->headerData(column, Qt::Horizontal).toString());
    for (int row = 0; row < std::min(model->rowCount(), 200); ++row)
        for (int column = 0; column < model->columnCount(); ++column)
            out->append(model->index(row, column).data().toString());
}

/*! What an operator can read in \a root: texts, titles, placeholders, tabs, items, table cells. */
QStringList visibleStrings(QWidget *root)
{
    QStringList out {root->windowTitle()};
    QList<QWidget *> widgets = root->findChildren<QWidget *>();
    widgets.prepend(root);
    for (QWidget *w : std::as_const(widgets)) {
        if (w != root && !w->isVisibleTo(root))
            continue;
        if (auto *label = qobject_cast<QLabel *>(w))
            out.append(QTextDocumentFragment::fromHtml(label->text()).toPlainText());
        else if (auto *button = qobject_cast<QAbstractButton *>(w))
            out.append(button->text());
        else if (auto *group = qobject_cast<QGroupBox *>(w))
            out.append(group->title());
        else if (auto *edit = qobject_cast<QLineEdit *>(w))
            out << edit->text() << edit->placeholderText();
        else if (auto *tabs = qobject_cast<QTabBar *>(w))
            for (int i = 0; i < tabs->count(); ++i)
                out.append(tabs->tabText(i));
        else if (auto *combo = qobject_cast<QComboBox *>(w))
            for (int i = 0; i < combo->count(); ++i)
                out.append(combo->itemText(i));
        else if (auto *view = qobject_cast<QAbstractItemView *>(w))
            collect(view, &out);
    }
    out.removeAll(QString());
    return out;
}

} // namespace

class TestScreenshotScenes : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void everySceneIsCurrentAndTranslated_data();
    void everySceneIsCurrentAndTranslated();
    void cleanup();
};

void TestScreenshotScenes::everySceneIsCurrentAndTranslated_data()
{
    QTest::addColumn<QString>("language");
    QTest::addColumn<QString>("coming"); // how the language says "coming"
    QTest::addColumn<bool>("translated");
    QTest::newRow("the English scenes say nothing is coming") << QStringLiteral("en") << QStringLiteral("coming") << false;
    QTest::newRow("the French scenes are all French and nothing is coming")
            << QStringLiteral("fr") << QStringLiteral("à venir") << true;
    QTest::newRow("the German scenes are all German and nothing is coming")
            << QStringLiteral("de") << QStringLiteral("demnächst") << true;
}

void TestScreenshotScenes::everySceneIsCurrentAndTranslated()
{
    // O4: the pictures in docs/screenshots show what the dashboard shows.
    QFETCH(QString, language);
    QFETCH(QString, coming);
    QFETCH(bool, translated);
    QCOMPARE(installTranslations(qApp, QLocale(language)), language);
    auto *recorder = new RecordingTranslator;
    recorder->setParent(qApp);
    QVERIFY(recorder->loadLanguage(language));
    QCoreApplication::installTranslator(recorder); // asked first: the last installed

    QTemporaryDir out;
    QVERIFY(out.isValid());
    ScreenshotDemo demo(out.path());
    QStringList scenes;
    QStringList problems;
    connect(&demo, &ScreenshotDemo::sceneRendered, this, [&](const QString &name, QWidget *widget) {
        scenes.append(name);
        const QStringList strings = visibleStrings(widget);
        for (const QString &text : strings)
            if (text.contains(coming, Qt::CaseInsensitive))
                problems.append(QStringLiteral("%1: \"%2\"").arg(name, text));
        // O4: the timeline pictured shows a crash: node-a's bar ends at its
        // last renewal and nobody leads until node-b takes over, a lease or more.
        if (name == QLatin1String("detail")) {
            auto *timeline = widget->findChild<TimelineWidget *>();
            const LeaseActivity *activity = timeline ? timeline->activity() : nullptr;
            bool crashShown = false;
            const qint64 now = activity ? activity->clock().monotonicMs() : 0;
            const QList<FleetSegment> segments = activity ? FleetTimelineModel::segmentsOf(activity->track(timeline->lease()))
                                                          : QList<FleetSegment>();
            for (const FleetSegment &segment : segments)
                crashShown = crashShown || (segment.noLeader && segment.stoppedHolder == QLatin1String("node-a")
                                            && segment.durationMs(now) >= 15000);
            if (!crashShown)
                problems.append(QStringLiteral("detail: no crash gap in the timeline of %1")
                                        .arg(timeline ? timeline->lease() : QStringLiteral("(no timeline)")));
        }
        // S4: the Runs scene shows a run cut short by the crash, a tick
        // nobody ran and one skipped; its table fits its pane at 1280
        // pixels, each outcome whole.
        if (name == QLatin1String("runs")) {
            auto *runs = widget->findChild<RunsTab *>();
            QTableView *table = runs ? runs->table() : nullptr;
            QStringList outcomes;
            for (int row = 0; table && row < table->model()->rowCount(); ++row)
                outcomes.append(table->model()->index(row, 0).data(RunHistoryModel::OutcomeKeyRole).toString());
            for (const QString &wanted : {RunRecord::interrupted, RunRecord::skipped, QStringLiteral("missed")})
                if (!outcomes.contains(wanted))
                    problems.append(QStringLiteral("runs: no \"%1\" row among %2").arg(wanted, outcomes.join(u',')));
            if (!table || !table->isVisible() || table->horizontalScrollBar()->maximum() > 0)
                problems.append(QStringLiteral("runs: the table is not shown, or scrolls sideways"));
            const int outcome = RunHistoryModel::OutcomeColumn;
            const int margins = table ? 2 * (table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, table) + 1)
                                      : 0;
            for (int row = 0; table && row < table->model()->rowCount(); ++row) {
                const QString text = table->model()->index(row, outcome).data().toString();
                const int wanted = table->fontMetrics().horizontalAdvance(text) + margins;
                if (table->columnWidth(outcome) < wanted)
                    problems.append(QStringLiteral("runs: \"%1\" is cut off: %2 px of %3")
                                            .arg(text)
                                            .arg(table->columnWidth(outcome))
                                            .arg(wanted));
            }
        }
        // H4: the Candidates scene shows the leader, a candidate standing by
        // and the crashed node-a gone, in a table that fits its pane.
        if (name == QLatin1String("candidates")) {
            auto *tab = widget->findChild<CandidatesTab *>();
            QTableView *table = tab ? tab->table() : nullptr;
            QStringList states;
            for (int row = 0; table && row < table->model()->rowCount(); ++row)
                states.append(table->model()->index(row, 0).data(CandidateModel::InstanceRole).toString() + u':'
                              + QString::fromLatin1(QMetaEnum::fromType<CandidateModel::State>().valueToKey(
                                      table->model()->index(row, 0).data(CandidateModel::StateRole).toInt())));
            for (const QString &wanted : {QStringLiteral("node-b:Leading"), QStringLiteral("node-c:StandingBy"),
                                          QStringLiteral("node-a:Gone")})
                if (!states.contains(wanted))
                    problems.append(QStringLiteral("candidates: no \"%1\" among %2").arg(wanted, states.join(u',')));
            if (!table || !table->isVisible() || table->horizontalScrollBar()->maximum() > 0)
                problems.append(QStringLiteral("candidates: the table is not shown, or scrolls sideways"));
        }
        // The lease table fits at 1280 pixels: no sideways scrolling, and
        // the State column (the last) shows its header and its words whole.
        if (auto *window = qobject_cast<MainWindow *>(widget)) {
            QTableView *table = window->leaseView();
            const QScrollBar *sideways = table->horizontalScrollBar();
            if (sideways->maximum() > 0)
                problems.append(QStringLiteral("%1: the lease table scrolls sideways by %2 px at %3 px")
                                        .arg(name)
                                        .arg(sideways->maximum())
                                        .arg(window->width()));
            // Measured here in bold (an alarming state is painted bold),
            // with the item's margins, not by the view's own size hints.
            const int state = LeaseTableModel::StateColumn;
            QFont bold = table->font();
            bold.setBold(true);
            const QFontMetrics metrics(bold);
            // The style's text margins, as QCommonStyle elides an item's text.
            const int margins = 2 * (table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, table) + 1);
            int wanted = table->horizontalHeader()->sectionSizeHint(state);
            for (int row = 0; row < table->model()->rowCount(); ++row)
                wanted = std::max(wanted,
                                  metrics.horizontalAdvance(table->model()->index(row, state).data().toString()) + margins);
            if (table->columnWidth(state) < wanted)
                problems.append(QStringLiteral("%1: the State column is cut off: %2 px of %3")
                                        .arg(name)
                                        .arg(table->columnWidth(state))
                                        .arg(wanted));
        }
    });
    QSignalSpy finished(&demo, &ScreenshotDemo::finished);
    demo.start();
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.at(0).at(0).toInt(), 0);
    QCOMPARE(scenes, (QStringList {QStringLiteral("dashboard"), QStringLiteral("detail"), QStringLiteral("fleet"),
                                   QStringLiteral("runs"), QStringLiteral("candidates"),
                                   QStringLiteral("connections")}));
    if (translated)
        problems += recorder->missing();
    QVERIFY2(problems.isEmpty(), qPrintable(QLatin1Char('\n') + problems.join(QLatin1Char('\n'))));
}

void TestScreenshotScenes::cleanup()
{
    // The next language starts from none.
    const QList<QTranslator *> translators = qApp->findChildren<QTranslator *>(Qt::FindDirectChildrenOnly);
    for (QTranslator *translator : translators) {
        QCoreApplication::removeTranslator(translator);
        delete translator;
    }
}

QTEST_MAIN(TestScreenshotScenes)
#include "tst_screenshotscenes.moc"
