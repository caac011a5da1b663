#include "screenshotdemo.h"

#include "manualclock.h"
#include "connectiondialog.h"
#include "connectionrepository.h"
#include "dashboardsession.h"
#include "fleettimelinewidget.h"
#include <baton/leaseobserver.h>
#include "leasescript.h"
#include "leasetablemodel.h"
#include "mainwindow.h"
#include "runhistorymodel.h"
#include "runstab.h"
#include "candidatemodel.h"
#include "candidatestab.h"
#include <batoninternal/candidatebook.h>
#include <batoninternal/leasehistory.h>
#include <batoninternal/registrykey.h>
#include <batoninternal/runledger.h>
#include "secretstore.h"
#include "timelinewidget.h"

#include <baton/servicefactory.h>
#include <baton/store.h>

#include <QApplication>
#include <QFileInfo>
#include <QLineEdit>
#include <QPixmap>
#include <QRandomGenerator>
#include <QSettings>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>

#include <algorithm>
#include <cstdio>

namespace baton {

namespace {

constexpr qint64 leaseMs = 15000;
constexpr qint64 renewMs = 5000;
constexpr qint64 runMs = 300000;

} // namespace

ScreenshotDemo::ScreenshotDemo(const QString &directory, QObject *parent)
    : QObject(parent)
    , m_directory(directory)
{
    // Wall time on a round minute, so that the axis reads well.
    QDateTime wall = QDateTime::currentDateTimeUtc();
    wall.setTime(QTime(wall.time().hour(), wall.time().minute()));
    m_startMono = 10'000'000;
    m_clock = std::make_unique<test::ManualClock>(m_startMono, wall.addMSecs(-runMs));
    // A store in memory, as a configuration would name it.
    m_store.reset(qobject_cast<Store *>(
            ServiceFactory::create(QStringLiteral("Webda/MemoryStore"), QStringLiteral("Registry"), {}, nullptr)));
    Q_ASSERT(m_store);
    m_script = std::make_unique<LeaseScript>(m_store.get(), m_clock.get());
}

ScreenshotDemo::~ScreenshotDemo()
{
    m_window.reset();
    m_session.reset();
}

void ScreenshotDemo::buildScript()
{
    QRandomGenerator random(20260101);
    auto renewing = [&](const QString &lease, const QString &holder, qint64 from, qint64 to, qint64 phase = 0) {
        for (qint64 t = from + phase; t <= to; t += renewMs + qint64(random.bounded(-350, 350)))
            m_writes.append({t, lease, holder});
    };
    // A crash: node-a stops renewing at 148 s; its lease runs out 15 s later
    // and node-b, which attempts at the expiry instant (F8), takes it.
    renewing(QStringLiteral("billing-cron"), QStringLiteral("node-a"), 0, 148000, 1200);
    m_writes.append({148000 + leaseMs + 900, QStringLiteral("billing-cron"), QStringLiteral("node-b")});
    renewing(QStringLiteral("billing-cron"), QStringLiteral("node-b"), 148000 + leaseMs + 900 + renewMs, runMs - 1000);
    // A slow store: one renewal took 8.8 s, near the leader's F4 deadline.
    m_writes.removeIf([](const Write &w) {
        return w.lease == QLatin1String("billing-cron") && w.atMs > 231000 && w.atMs < 239800;
    });
    m_writes.append({239800, QStringLiteral("billing-cron"), QStringLiteral("node-b")});

    // A clean handover: released, taken 40 ms later by a watching follower (F5, F8).
    renewing(QStringLiteral("mail-poller"), QStringLiteral("node-c"), 0, 200000, 2500);
    m_writes.append({202600, QStringLiteral("mail-poller"), QString()});
    m_writes.append({202640, QStringLiteral("mail-poller"), QStringLiteral("node-a")});
    renewing(QStringLiteral("mail-poller"), QStringLiteral("node-a"), 202640 + renewMs, runMs - 500);

    renewing(QStringLiteral("search-indexer"), QStringLiteral("node-d"), 0, runMs - 200, 400);
    renewing(QStringLiteral("session-gc"), QStringLiteral("node-b"), 0, runMs - 800, 3100);
    // Ageing: no renewal for the last 9 s (amber past half the lease).
    renewing(QStringLiteral("reports"), QStringLiteral("node-c"), 0, runMs - 9500, 1700);
    // Expired: the holder vanished 21 s ago and nobody took over yet.
    renewing(QStringLiteral("ledger-sync"), QStringLiteral("node-e"), 0, runMs - 21000, 600);
    // Released and left without a leader.
    renewing(QStringLiteral("cache-warmer"), QStringLiteral("node-d"), 0, 268000, 3900);
    m_writes.append({270000, QStringLiteral("cache-warmer"), QString()});
    // Taken over while held (a conditional write won by another instance).
    renewing(QStringLiteral("metrics-rollup"), QStringLiteral("node-f"), 0, 96000, 2200);
    m_writes.append({99100, QStringLiteral("metrics-rollup"), QStringLiteral("node-g")});
    renewing(QStringLiteral("metrics-rollup"), QStringLiteral("node-g"), 99100 + renewMs, runMs - 300);

    // Quiet leases, so the table looks like a real Registry.
    const QStringList quiet {QStringLiteral("backup-scheduler"), QStringLiteral("dns-sync"),
                             QStringLiteral("feed-crawler"), QStringLiteral("invoice-export"),
                             QStringLiteral("thumbnail-gc"), QStringLiteral("webhook-retry")};
    for (int i = 0; i < quiet.size(); ++i)
        renewing(quiet.at(i), QStringLiteral("node-%1").arg(QChar(u'a' + (i * 3) % 7)), 0, runMs - 100, 300 + i * 700);

    std::stable_sort(m_writes.begin(), m_writes.end(), [](const Write &a, const Write &b) { return a.atMs < b.atMs; });
    // Renewals of one lease that fell within a second of a holder change are noise.
    m_endMs = runMs;
}

void ScreenshotDemo::start()
{
    QString error;
    if (!m_store->init(&error) || !m_directory.mkpath(QStringLiteral("."))) {
        std::fprintf(stderr, "baton-screenshots: %s\n", qPrintable(error.isEmpty() ? m_directory.path() : error));
        QTimer::singleShot(0, this, [this] { Q_EMIT finished(1); });
        return;
    }
    buildScript();
    writeStoredHistory();
    writeRuns();
    // billing-cron's record is there before the dashboard connects, so that
    // its first list reads the stored history with it.
    m_script->write(QStringLiteral("billing-cron"), QStringLiteral("node-a"), leaseMs, [this](bool ok) {
        if (!ok) {
            std::fprintf(stderr, "baton-screenshots: the first write of billing-cron failed\n");
            Q_EMIT finished(1);
            return;
        }
        m_session = std::make_unique<DashboardSession>();
        m_session->attach(m_store.get(), m_clock.get(), tr("Demo election"));
        connect(m_session->observer(), &LeaseObserver::ready, this, &ScreenshotDemo::next,
                Qt::SingleShotConnection);
    });
}

void ScreenshotDemo::writeStoredHistory()
{
    // Before the dashboard connected, billing-cron's holders stored three
    // changes with the lease (O2): they show in italics, ahead of what the
    // dashboard sees itself.
    const QDateTime connected = m_clock->wallNow();
    const auto change = [&](const QString &from, const QString &to, const QString &why, qint64 gapMs,
                            qint64 transitions, qint64 secondsBefore) {
        HistoryEntry entry;
        entry.from = from;
        entry.to = to;
        entry.why = why;
        entry.gapMs = gapMs;
        entry.transitions = transitions;
        entry.at = connected.addSecs(-secondsBefore);
        return entry;
    };
    const QList<HistoryEntry> changes {
            change({}, QStringLiteral("node-c"), QStringLiteral("first-acquire"), -1, 0, 240),
            // node-c crashed: node-d wrote the time from its last renewal.
            change(QStringLiteral("node-c"), QStringLiteral("node-d"), QStringLiteral("expired"), 17400, 1, 150),
            change(QStringLiteral("node-d"), QStringLiteral("node-a"), QStringLiteral("released"), 38, 2, 70),
    };
    m_script->resume(QStringLiteral("billing-cron"), QStringLiteral("node-a"), 2, changes.last().at);
    m_store->create(leasehistory::registryKey(QStringLiteral("billing-cron")), leasehistory::encode(changes),
                    [](const StoreResult &) {});
}

void ScreenshotDemo::writeRuns()
{
    // billing-cron runs a job every 30 s (S1-S4): node-a's run of 120 s was
    // cut short by its crash at 148 s, and node-b marked it interrupted when
    // it took over; nobody led at 150 s, so that tick was missed; node-b's
    // run of 210 s lasted 38 s (the slow store), so the tick of 240 s was
    // skipped.
    const QDateTime t0 = m_clock->wallNow();
    const auto run = [&](qint64 tick, const QString &instance, qint64 token, qint64 startMs, qint64 endMs,
                         const QString &outcome) {
        RunRecord record;
        record.tick = TickSchedule::tickName(t0.addSecs(tick));
        record.instance = instance;
        record.token = token;
        record.start = t0.addMSecs(tick * 1000 + startMs);
        record.end = t0.addMSecs(tick * 1000 + endMs);
        record.outcome = outcome;
        record.schedule = QStringLiteral("every 30s");
        m_store->create(RunLedger::key(QStringLiteral("billing-cron"), record.tick), record.toJson(),
                        [](const StoreResult &) {});
    };
    const QString a = QStringLiteral("node-a");
    const QString b = QStringLiteral("node-b");
    run(60, a, 2, 38, 3950, RunRecord::succeeded);
    run(90, a, 2, 51, 1320, QStringLiteral("failed: exit code 2"));
    run(120, a, 2, 40, 44300, RunRecord::interrupted);
    run(180, b, 3, 36, 4420, RunRecord::succeeded);
    run(210, b, 3, 42, 38050, RunRecord::succeeded);
    run(240, b, 3, 20, 20, RunRecord::skipped);
    run(270, b, 3, 47, 4130, RunRecord::succeeded);
}

void ScreenshotDemo::next()
{
    if (m_next >= m_writes.size()) {
        m_clock->setMonotonicMs(m_startMono + m_endMs);
        render();
        return;
    }
    const Write write = m_writes.at(m_next++);
    m_clock->setMonotonicMs(m_startMono + write.atMs);
    const std::optional<ObservedLease> seen = m_session->observer()->lease(write.lease);
    // A take-up after an expiry: let the observer judge the expiry first (F2).
    if (seen && !seen->record.holder.isEmpty() && seen->record.holder != write.holder && !write.holder.isEmpty()
        && !seen->expired && m_clock->monotonicMs() >= seen->changedMono + seen->record.leaseDurationMs) {
        --m_next;
        connect(m_session->observer(), &LeaseObserver::leaseExpired, this, &ScreenshotDemo::next,
                Qt::SingleShotConnection);
        // Any write re-arms the observer's expiry timer at the new time.
        m_script->write(QStringLiteral("_tick"), QStringLiteral("demo"), 3'600'000);
        return;
    }
    m_script->write(write.lease, write.holder, leaseMs, [this, write](bool ok) {
        if (!ok) {
            std::fprintf(stderr, "baton-screenshots: the scripted write to %s failed\n", qPrintable(write.lease));
            Q_EMIT finished(1);
            return;
        }
        waitUntilSeen(write);
    });
}

void ScreenshotDemo::waitUntilSeen(const Write &write)
{
    const std::optional<ObservedLease> seen = m_session->observer()->lease(write.lease);
    if (seen && seen->version == m_script->version(write.lease)) {
        QTimer::singleShot(0, this, &ScreenshotDemo::next);
        return;
    }
    connect(m_session->observer(), &LeaseObserver::leaseChanged, this,
            [this, write](const QString &) { waitUntilSeen(write); }, Qt::SingleShotConnection);
}

void ScreenshotDemo::saveRuns(std::function<void(bool)> then)
{
    // billing-cron's runs beside its timeline: the crash there is the
    // interrupted run and the missed tick here.
    m_window->selectLease(QStringLiteral("billing-cron"));
    auto *runs = m_window->findChild<RunsTab *>();
    auto *bottom = m_window->findChild<QSplitter *>(QStringLiteral("bottomSplitter"));
    if (!runs || !bottom || runs->model()->lease() != QLatin1String("billing-cron")) {
        then(false);
        return;
    }
    if (!runs->model()->isLoaded()) {
        connect(runs->model(), &RunHistoryModel::loaded, this, [this, then] { saveRuns(then); },
                Qt::SingleShotConnection);
        return;
    }
    m_window->detailTabs()->setCurrentWidget(runs);
    then(save(bottom, QStringLiteral("runs.png")));
}

void ScreenshotDemo::writeCandidates()
{
    // billing-cron's candidates at the end: node-b leads; node-a crashed at
    // 148 s and is gone; node-c (the highest priority) was drained by an
    // operator and node-e started as a standby, so both stand by; node-d is
    // live, next in line.
    const QDateTime now = m_clock->wallNow();
    const auto write = [&](const QString &instance, int priority, qint64 heartbeatAgoMs, const QString &drainedBy) {
        CandidateRecord record;
        record.instance = instance;
        record.incarnation = instance + QStringLiteral("-7f3a");
        record.priority = priority;
        record.drained = !drainedBy.isEmpty();
        record.drainedBy = drainedBy;
        if (record.drained)
            record.drainedAt = now.addSecs(-40);
        record.heartbeat = now.addMSecs(-heartbeatAgoMs);
        record.heartbeatIntervalMs = leaseMs;
        // Labels as an upgrade half done would show them.
        record.labels = {{QStringLiteral("zone"), instance < QLatin1String("node-c") ? QStringLiteral("a")
                                                                                  : QStringLiteral("b")},
                         {QStringLiteral("version"), instance == QLatin1String("node-d") ? QStringLiteral("1.5")
                                                                                        : QStringLiteral("1.4")}};
        m_store->create(CandidateBook::key(QStringLiteral("billing-cron"), instance), record.toJson(),
                        [](const StoreResult &) {});
    };
    write(QStringLiteral("node-a"), 0, runMs - 148000, {});
    write(QStringLiteral("node-b"), 0, 3200, {});
    write(QStringLiteral("node-c"), 10, 8700, QStringLiteral("alice@ops-desk (dashboard)"));
    write(QStringLiteral("node-d"), 5, 11900, {});
    write(QStringLiteral("node-e"), 0, 4100, QStringLiteral("standby"));
}

void ScreenshotDemo::saveCandidates(std::function<void(bool ok)> then)
{
    // billing-cron's candidates beside its timeline: the crashed node-a is gone.
    m_window->selectLease(QStringLiteral("billing-cron"));
    auto *candidates = m_window->findChild<CandidatesTab *>();
    auto *bottom = m_window->findChild<QSplitter *>(QStringLiteral("bottomSplitter"));
    if (!candidates || !bottom || candidates->model()->lease() != QLatin1String("billing-cron")) {
        then(false);
        return;
    }
    if (candidates->model()->rowCount() < 5) {
        connect(candidates->model(), &CandidateModel::loaded, this, [this, then] { saveCandidates(then); },
                Qt::SingleShotConnection);
        return;
    }
    m_window->detailTabs()->setCurrentWidget(candidates);
    candidates->selectCandidate(QStringLiteral("node-c"));
    then(save(bottom, QStringLiteral("candidates.png")));
}

bool ScreenshotDemo::save(QWidget *widget, const QString &name)
{
    Q_EMIT sceneRendered(QFileInfo(name).completeBaseName(), widget);
    const QString path = m_directory.filePath(name);
    if (!widget->grab().save(path)) {
        std::fprintf(stderr, "baton-screenshots: cannot write %s\n", qPrintable(path));
        return false;
    }
    std::printf("%s\n", qPrintable(path));
    return true;
}

void ScreenshotDemo::render()
{
    // The bookkeeping lease of the script is not part of the picture.
    bool removed = false;
    m_store->remove(registryLeasePrefix + QStringLiteral("_tick"), {}, [&removed](const StoreResult &) { removed = true; });
    writeCandidates();

    QSettings *settings = new QSettings(m_settingsDir.filePath(QStringLiteral("baton.ini")), QSettings::IniFormat, this);
    auto *secrets = new SecretStore(QStringLiteral("baton-screenshot"), this);
    auto *repository = new ConnectionRepository(settings, secrets, this);
    Connection local;
    local.name = tr("This host");
    local.kind = ConnectionKind::FileRegistry;
    local.parameters.insert(QStringLiteral("folder"), QStringLiteral("/var/lib/baton/registry"));
    Connection etcd;
    etcd.name = tr("Production etcd");
    etcd.kind = ConnectionKind::Etcd;
    etcd.parameters.insert(QStringLiteral("endpoints"), QStringLiteral("https://127.0.0.1:2379, https://127.0.0.2:2379"));
    etcd.parameters.insert(QStringLiteral("username"), QStringLiteral("ops"));
    etcd.parameters.insert(QStringLiteral("tls.ca"), QStringLiteral("/etc/baton/etcd-ca.pem"));
    repository->save(local, {});
    const QString etcdId = repository->save(etcd, {});

    m_window = std::make_unique<MainWindow>(m_session.get(), nullptr, nullptr);
    m_window->resize(1280, 820);
    m_window->show();
    m_session->leaseModel()->flush();
    m_window->selectLease(QStringLiteral("billing-cron"));
    m_window->timeline()->setFocus();

    QTimer::singleShot(100, this, [this, repository, etcdId] {
        m_session->leaseModel()->flush();
        bool ok = save(m_window.get(), QStringLiteral("dashboard.png"));
        m_window->detailTabs()->setCurrentIndex(1);
        m_window->selectLease(QStringLiteral("billing-cron"));
        auto *bottom = m_window->findChild<QSplitter *>(QStringLiteral("bottomSplitter"));
        ok = ok && bottom && save(bottom, QStringLiteral("detail.png"));
        // The fleet: node-a held three leases in these five minutes.
        m_window->timelineTabs()->setCurrentWidget(m_window->fleetTimeline());
        m_window->filterEdit()->setText(QStringLiteral("holder:node-a"));
        m_session->leaseModel()->flush();
        ok = ok && save(m_window.get(), QStringLiteral("fleet.png"));
        m_window->filterEdit()->clear();
        m_window->timelineTabs()->setCurrentWidget(m_window->timeline());
        saveRuns([this, repository, etcdId, ok](bool runsSaved) {
            saveCandidates([this, repository, etcdId, ok, runsSaved](bool candidatesSaved) {
                ConnectionDialog dialog(repository, m_window.get());
                dialog.selectConnection(etcdId);
                dialog.show();
                const bool all = ok && runsSaved && candidatesSaved && save(&dialog, QStringLiteral("connections.png"));
                dialog.hide();
                Q_EMIT finished(all ? 0 : 1);
            });
        });
    });
}

} // namespace baton
