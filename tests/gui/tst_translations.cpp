// The dashboard speaks the operator's language (O4): translations are
// compiled at build time and embedded; `--lang fr` loads them exactly as
// this test does (installTranslations), and the labels are French.

#include "dashboardsession.h"
#include "failoverhistorymodel.h"
#include "leasetablemodel.h"
#include "mainwindow.h"
#include "memorystore.h"
#include "translations.h"

#include <QApplication>
#include <QPushButton>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <QTranslator>

using namespace baton;

class TestTranslations : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void frenchRunShowsFrenchLabels();
    void germanTranslationIsEmbedded();
    void englishHasItsPluralForms();
};

void TestTranslations::frenchRunShowsFrenchLabels()
{
    QCOMPARE(installTranslations(qApp, QLocale(QStringLiteral("fr"))), QStringLiteral("fr"));
    MemoryStore store(QStringLiteral("Registry"), QJsonObject(), nullptr);
    QString error;
    QVERIFY(store.init(&error));
    DashboardSession session;
    session.attach(&store, nullptr, QStringLiteral("mémoire"));
    MainWindow window(&session, nullptr, nullptr);
    window.show();

    QAbstractItemModel *table = window.leaseView()->model();
    QCOMPARE(table->headerData(LeaseTableModel::LeaseColumn, Qt::Horizontal).toString(), QStringLiteral("Bail"));
    QCOMPARE(table->headerData(LeaseTableModel::HolderColumn, Qt::Horizontal).toString(), QStringLiteral("Détenteur"));
    QCOMPARE(table->headerData(LeaseTableModel::FreshnessColumn, Qt::Horizontal).toString(),
             QStringLiteral("Renouvellement"));
    QCOMPARE(window.detailTabs()->tabText(0), QStringLiteral("Historique des bascules"));
    QCOMPARE(window.detailTabs()->tabText(2), QStringLiteral("Exécutions"));
    auto *join = window.findChild<QPushButton *>(QStringLiteral("joinButton"));
    QVERIFY(join);
    QCOMPARE(join->text(), QStringLiteral("&Rejoindre"));
    QCOMPARE(FailoverHistoryModel::describeWhy(QStringLiteral("expired")), QStringLiteral("expiré"));
    // Plural forms come through too.
    QCOMPARE(MainWindow::tr("%n lease(s)", nullptr, 3), QStringLiteral("3 baux"));
}

void TestTranslations::germanTranslationIsEmbedded()
{
    QTranslator german;
    QVERIFY(german.load(QLocale(QStringLiteral("de")), QStringLiteral("baton"), QStringLiteral("_"),
                        QStringLiteral(":/i18n")));
    QCOMPARE(german.translate("baton::LeaseTableModel", "Holder"), QStringLiteral("Inhaber"));
    QCOMPARE(german.translate("baton::MainWindow", "Failover history"), QStringLiteral("Failover-Verlauf"));
}

void TestTranslations::englishHasItsPluralForms()
{
    // O4: "1 lease", "14 leases", never "14 lease(s)". (QTranslator picks
    // the form; QCoreApplication::translate() puts the number in.)
    QTranslator english;
    QVERIFY(english.load(QLocale(QLocale::English), QStringLiteral("baton"), QStringLiteral("_"),
                         QStringLiteral(":/i18n")));
    QCOMPARE(english.translate("baton::MainWindow", "%n lease(s)", nullptr, 1), QStringLiteral("%n lease"));
    QCOMPARE(english.translate("baton::MainWindow", "%n lease(s)", nullptr, 14), QStringLiteral("%n leases"));
    QCOMPARE(english.translate("baton::DashboardSession", "Baton: %n lease(s) changed", nullptr, 2),
             QStringLiteral("Baton: %n leases changed"));
    QCOMPARE(english.translate("baton::RunHistoryModel", "missed: %n tick(s), until %1", nullptr, 1),
             QStringLiteral("missed: %n tick, until %1"));
    QCOMPARE(english.translate("baton::RunHistoryModel", "missed: %n tick(s), until %1", nullptr, 3),
             QStringLiteral("missed: %n ticks, until %1"));
}

QTEST_MAIN(TestTranslations)
#include "tst_translations.moc"
