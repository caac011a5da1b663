// What an operator reads says what it means: no contract rule id (F4, O3,
// R6...) in the usage of any command, in baton(1), in --explain, in the log
// of a participant, in a scrape of /metrics, in the alerts, in the README
// and the user docs, in the dashboard's strings and their translations, nor
// in any string literal of the product's sources (its logs and errors). The
// ids belong to code comments, the tests and docs/contract.md, where the
// rules are defined.

#include "participantprocess.h"
#include "participants.h"
#include "testsupport.h"

#include <QDirIterator>
#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

#include <memory>

using namespace baton;

namespace {

const QString sourceDir = QStringLiteral(BATON_SOURCE_DIR);

/*!
 * The shape of a contract rule id: a section's letter, then a number. H and
 * S (steering, scheduled runs) are in the pattern before their rules exist.
 */
const QRegularExpression &ruleId()
{
    static const QRegularExpression re(QStringLiteral("\\b[WCBPFORHS][0-9]{1,2}\\b"));
    return re;
}

/*! "where:line: text" for every line of \a text that names a rule. */
QStringList ruleIdsIn(const QString &where, const QString &text)
{
    QStringList found;
    const QStringList lines = text.split(QLatin1Char('\n'));
    for (qsizetype i = 0; i < lines.size(); ++i)
        if (lines.at(i).contains(ruleId()))
            found.append(QStringLiteral("%1:%2: %3").arg(where).arg(i + 1).arg(lines.at(i).trimmed()));
    return found;
}

QString readSource(const QString &relativePath)
{
    QFile file(sourceDir + QLatin1Char('/') + relativePath);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s: %s", qPrintable(file.fileName()), qPrintable(file.errorString()));
    return QString::fromUtf8(file.readAll());
}

struct Run
{
    int exitCode = -1;
    QString out;
};

Run runProgram(const QString &program, const QStringList &arguments, const QStringList &environment = {})
{
    QProcess process;
    process.setEnvironment(QProcess::systemEnvironment() + environment);
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(program, arguments);
    Run run;
    if (!process.waitForFinished(30000)) {
        process.kill();
        process.waitForFinished();
        return run;
    }
    run.exitCode = process.exitCode();
    run.out = QString::fromUtf8(process.readAll());
    return run;
}

/*!
 * The string literals of C++ \a code with the line each starts on, comments
 * left out: what the program can print, and nothing of what only its
 * readers see. Handles escapes, character literals and raw strings.
 */
QList<std::pair<int, QString>> stringLiterals(const QString &code)
{
    QList<std::pair<int, QString>> literals;
    int line = 1;
    const qsizetype n = code.size();
    for (qsizetype i = 0; i < n; ++i) {
        const QChar c = code.at(i);
        const QChar next = i + 1 < n ? code.at(i + 1) : QChar();
        if (c == QLatin1Char('\n')) {
            ++line;
        } else if (c == QLatin1Char('/') && next == QLatin1Char('/')) {
            while (i < n && code.at(i) != QLatin1Char('\n'))
                ++i;
            --i;
        } else if (c == QLatin1Char('/') && next == QLatin1Char('*')) {
            i += 2;
            while (i + 1 < n && !(code.at(i) == QLatin1Char('*') && code.at(i + 1) == QLatin1Char('/'))) {
                if (code.at(i) == QLatin1Char('\n'))
                    ++line;
                ++i;
            }
            ++i;
        } else if (c == QLatin1Char('R') && next == QLatin1Char('"') && (i == 0 || !code.at(i - 1).isLetterOrNumber())) {
            const qsizetype open = code.indexOf(QLatin1Char('('), i + 2);
            const QString close = QLatin1Char(')') + code.mid(i + 2, open - i - 2) + QLatin1Char('"');
            const qsizetype end = code.indexOf(close, open);
            const QString body = code.mid(open + 1, end - open - 1);
            literals.append({line, body});
            line += int(body.count(QLatin1Char('\n')));
            i = end + close.size() - 1;
        } else if (c == QLatin1Char('"') || c == QLatin1Char('\'')) {
            QString body;
            for (++i; i < n && code.at(i) != c; ++i) {
                if (code.at(i) == QLatin1Char('\\') && i + 1 < n)
                    body += code.at(i++);
                body += code.at(i);
            }
            if (c == QLatin1Char('"'))
                literals.append({line, body});
        }
    }
    return literals;
}

} // namespace

class TestPlainWords : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void theUsageOfEveryCommandNamesNoRule();
    void theManualPageNamesNoRule();
    void aParticipantsLogExplanationAndMetricsNameNoRule();
    void theAlertsNameNoRule();
    void theReadmeAndTheUserDocsNameNoRule();
    void theDashboardsStringsAndTheirTranslationsNameNoRule();
    void noStringTheProductCanPrintNamesARule();
    void theCheckFindsARuleIdWhereOneIs();

private:
    QTemporaryDir m_folder;
};

void TestPlainWords::initTestCase()
{
    QVERIFY2(!test::batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
    QVERIFY(m_folder.isValid());
}

void TestPlainWords::theUsageOfEveryCommandNamesNoRule()
{
    // P1: the usage as printed, and each command's --help; the commands are
    // those the usage lists, so that a new one is checked without a word here.
    const Run usage = runProgram(test::batonBinary(), {QStringLiteral("help")});
    QCOMPARE(usage.exitCode, 0);
    QStringList found = ruleIdsIn(QStringLiteral("baton help"), usage.out);
    found += ruleIdsIn(QStringLiteral("baton --help"), runProgram(test::batonBinary(), {QStringLiteral("--help")}).out);
    static const QRegularExpression command(QStringLiteral("^  ([a-z]+)\\b"), QRegularExpression::MultilineOption);
    QStringList commands;
    for (const QRegularExpressionMatch &m : command.globalMatch(usage.out))
        commands.append(m.captured(1));
    for (const char *expected : {"join", "status", "demo"})
        QVERIFY2(commands.contains(QLatin1String(expected)), qPrintable(commands.join(QLatin1Char(' '))));
    for (const QString &name : std::as_const(commands)) {
        const Run help = runProgram(test::batonBinary(), {name, QStringLiteral("--help")});
        QCOMPARE(help.exitCode, 0);
        QVERIFY(!help.out.isEmpty());
        found += ruleIdsIn(QStringLiteral("baton %1 --help").arg(name), help.out);
    }
    QVERIFY2(found.isEmpty(), qPrintable(found.join(QLatin1Char('\n'))));
}

void TestPlainWords::theManualPageNamesNoRule()
{
    // baton(1) as man renders it: the page is written from --help, and also
    // has a text of its own.
    const QString man = QStandardPaths::findExecutable(QStringLiteral("man"));
    if (man.isEmpty())
        QSKIP("man is not installed (Debian package man-db)");
    const Run page = runProgram(man, {QStringLiteral("-l"), QStringLiteral(BATON_MANUAL)},
                                {QStringLiteral("LC_ALL=C"), QStringLiteral("MANPAGER=cat"),
                                 QStringLiteral("MANWIDTH=100")});
    QCOMPARE(page.exitCode, 0);
    QVERIFY2(page.out.contains(QLatin1String("BATON JOIN")), qPrintable(page.out.left(2000)));
    const QStringList found = ruleIdsIn(QStringLiteral("man baton"), page.out);
    QVERIFY2(found.isEmpty(), qPrintable(found.join(QLatin1Char('\n'))));
}

void TestPlainWords::aParticipantsLogExplanationAndMetricsNameNoRule()
{
    // O6: --explain and the participant's log say what the timings
    // guarantee; O3: /metrics of a leader running a command, HELP texts and
    // all, the exec series there from the start.
    const qint64 leaseMs = test::scaledMs(2000);
    const qint64 renewMs = test::scaledMs(500);
    const test::ParticipantConfig config {test::fileRegistry(m_folder.filePath(QStringLiteral("registry"))),
                                          QStringLiteral("plain"), QStringLiteral("alone"), leaseMs, renewMs};
    const QString configFile = config.writeTo(m_folder.filePath(QStringLiteral("alone.json")));

    const Run explain = runProgram(test::batonBinary(), {QStringLiteral("join"), QStringLiteral("--config"),
                                                         configFile, QStringLiteral("--explain")});
    QCOMPARE(explain.exitCode, 0);
    QVERIFY(!explain.out.isEmpty());
    QStringList found = ruleIdsIn(QStringLiteral("baton join --explain"), explain.out);

    ParticipantProcess p(QStringLiteral("alone"), test::batonBinary(),
                         {QStringLiteral("join"), QStringLiteral("--config"), configFile, QStringLiteral("--events"),
                          QStringLiteral("json"), QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"),
                          QStringLiteral("--exec"), QStringLiteral("sleep 600")});
    test::keepOutput(&p);
    p.start();
    static const QRegularExpression listening(
            QStringLiteral("serving /metrics[^\\n]* on http://127\\.0\\.0\\.1:(\\d+)"));
    QTRY_VERIFY_WITH_TIMEOUT(listening.match(QString::fromUtf8(p.standardError())).hasMatch(), 10000);
    QTRY_VERIFY_WITH_TIMEOUT(p.isLeading(), 20000);
    const QUrl url(QStringLiteral("http://127.0.0.1:%1/metrics")
                           .arg(listening.match(QString::fromUtf8(p.standardError())).captured(1)));
    QNetworkAccessManager network;
    QByteArray body;
    QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                std::unique_ptr<QNetworkReply> reply(network.get(QNetworkRequest(url)));
                QSignalSpy done(reply.get(), &QNetworkReply::finished);
                if (!reply->isFinished() && !done.wait(5000))
                    return false;
                body = reply->readAll();
                return body.contains("baton_exec_running{lease=\"plain\"} 1");
            }(),
            10000);
    QVERIFY(body.contains("# HELP baton_is_leader "));
    QVERIFY(body.contains("# HELP process_resident_memory_bytes "));
    found += ruleIdsIn(QStringLiteral("/metrics"), QString::fromUtf8(body));
    found += ruleIdsIn(QStringLiteral("the participant's log"), QString::fromUtf8(p.standardError()));
    QVERIFY2(found.isEmpty(), qPrintable(found.join(QLatin1Char('\n'))));
}

void TestPlainWords::theAlertsNameNoRule()
{
    // The summary and description an operator is paged with; the file's
    // comments are for whoever edits the rules.
    QStringList found;
    const QStringList lines = readSource(QStringLiteral("resources/prometheus/baton-alerts.yml")).split(QLatin1Char('\n'));
    for (qsizetype i = 0; i < lines.size(); ++i)
        if (!lines.at(i).trimmed().startsWith(QLatin1Char('#')) && lines.at(i).contains(ruleId()))
            found.append(QStringLiteral("resources/prometheus/baton-alerts.yml:%1: %2").arg(i + 1).arg(lines.at(i).trimmed()));
    QVERIFY2(found.isEmpty(), qPrintable(found.join(QLatin1Char('\n'))));
}

void TestPlainWords::theReadmeAndTheUserDocsNameNoRule()
{
    // docs/contract.md defines the rules; architecture, testing, reliability
    // and benchmarks are for developers and cite them. Every other page
    // under docs/ is a user's, found rather than listed so that a new one
    // is read too.
    const QStringList teamDocs {QStringLiteral("docs/architecture.md"), QStringLiteral("docs/contract.md"),
                                QStringLiteral("docs/reliability.md"), QStringLiteral("docs/testing.md"),
                                QStringLiteral("docs/benchmarks.md")};
    QStringList docs {QStringLiteral("README.md")};
    if (QFile::exists(sourceDir + QStringLiteral("/CHANGELOG.md")))
        docs << QStringLiteral("CHANGELOG.md");
    QDirIterator it(sourceDir + QStringLiteral("/docs"), {QStringLiteral("*.md")}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString page = QDir(sourceDir).relativeFilePath(it.next());
        if (!teamDocs.contains(page) && !page.startsWith(QLatin1String("docs/api/")))
            docs << page;
    }
    QVERIFY(docs.size() >= 5);
    QStringList found;
    for (const QString &doc : std::as_const(docs))
        found += ruleIdsIn(doc, readSource(doc));
    QVERIFY2(found.isEmpty(), qPrintable(found.join(QLatin1Char('\n'))));
}

void TestPlainWords::theDashboardsStringsAndTheirTranslationsNameNoRule()
{
    // O4: every source string of the dashboard and every translation of it,
    // as the .ts files hold them.
    QStringList found;
    int strings = 0;
    for (const char *language : {"de", "fr", "en"}) {
        const QString path = QStringLiteral("translations/baton_%1.ts").arg(QLatin1String(language));
        QXmlStreamReader xml(readSource(path));
        while (!xml.atEnd()) {
            if (xml.readNext() != QXmlStreamReader::StartElement)
                continue;
            const QStringView element = xml.name();
            if (element == u"source" || element == u"translation" || element == u"numerusform") {
                const qint64 line = xml.lineNumber();
                const QString text = xml.readElementText(QXmlStreamReader::IncludeChildElements);
                ++strings;
                if (text.contains(ruleId()))
                    found.append(QStringLiteral("%1:%2: %3").arg(path).arg(line).arg(text));
            }
        }
        QVERIFY2(!xml.hasError(), qPrintable(path + QStringLiteral(": ") + xml.errorString()));
    }
    QVERIFY(strings > 100);
    QVERIFY2(found.isEmpty(), qPrintable(found.join(QLatin1Char('\n'))));
}

void TestPlainWords::noStringTheProductCanPrintNamesARule()
{
    // The logs and errors of the library, baton and the dashboard, and the
    // dashboard's strings before lupdate copies them: every string literal
    // of the sources, whichever path prints it.
    QStringList found;
    int files = 0;
    for (const char *folder : {"libcluster/src", "libcluster/include", "headless", "app", "gui"}) {
        QDirIterator it(sourceDir + QLatin1Char('/') + QLatin1String(folder), {QStringLiteral("*.cpp"), QStringLiteral("*.h")},
                        QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            QFile file(path);
            QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(path));
            ++files;
            const QString relative = path.mid(sourceDir.size() + 1);
            for (const auto &[line, literal] : stringLiterals(QString::fromUtf8(file.readAll())))
                if (literal.contains(ruleId()))
                    found.append(QStringLiteral("%1:%2: \"%3\"").arg(relative).arg(line).arg(literal));
        }
    }
    QVERIFY(files > 100);
    QVERIFY2(found.isEmpty(), qPrintable(found.join(QLatin1Char('\n'))));
}

void TestPlainWords::theCheckFindsARuleIdWhereOneIs()
{
    // The checks above pass on silence; this one proves they can hear.
    QCOMPARE(ruleIdsIn(QStringLiteral("x"), QStringLiteral("a\nthe F4 deadline\nb")),
             QStringList {QStringLiteral("x:2: the F4 deadline")});
    QVERIFY(ruleIdsIn(QStringLiteral("x"), QStringLiteral("F400 sF4 F4s HTTP/2 UTF-8")).isEmpty());
    const auto literals = stringLiterals(QStringLiteral("// \"F4\"\n/* \"O3\" */ f(\"a \\\" (R6)\", 'x');\n"
                                                        "g(R\"(W1\n)\"); \"h\""));
    QCOMPARE(literals.size(), 3);
    QCOMPARE(literals.at(0), (std::pair<int, QString> {2, QStringLiteral("a \\\" (R6)")}));
    QCOMPARE(literals.at(1), (std::pair<int, QString> {3, QStringLiteral("W1\n")}));
    QCOMPARE(literals.at(2), (std::pair<int, QString> {4, QStringLiteral("h")}));
}

QTEST_GUILESS_MAIN(TestPlainWords)
#include "tst_plainwords.moc"
