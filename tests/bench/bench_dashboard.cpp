// Responsiveness of the dashboard (O4: "stays responsive with
// thousands of leases renewing every few seconds"): 5,000 leases on a
// MemoryStore, each renewed every 10 s (500 changes a second), through a
// LeaseObserver into the lease table (sorted by freshness, the worst case
// for the proxy) and the timeline of one lease, all in a shown window.
// A 5 ms heartbeat timer measures the longest event-loop stall; the
// process's CPU time per renewal is the update cost per event, everything
// included (the store write, the observer, the models, the views).
//
//   bench_dashboard [--check] [--history] [LEASES] [SECONDS] [RENEW_MS] [models]
//
// With `models`, no window is shown: the models and the observer alone.
// With --history every lease also has a stored history of 20 changes
// (`history:<lease>`, as its holders write it), which the observer reads
// with its first list and the models start from (O2). The setup line says
// how long the table took to fill and the longest stall while it did.
// The last three lines are the verdicts on the targets (issue #26: the
// table, and the history with --history, full within 2 s; no stall above
// 16 ms, one frame at 60 Hz, while it fills, the first list being handled
// in slices; none either while renewing); with --check the exit status is
// 1 when one is not met. `bench_dashboard --check --history 20000 20 10000`
// is the run of the issue: 20,000 leases, 400,000 stored changes.
//
// The guard options (CTest label perfguard, tests/bench/CMakeLists.txt)
// make the exit status 1 when a bound is crossed, or when the table is not
// full or the observer did not see every write once the writer stopped:
//   --max-cpu-per-renewal=MS  --max-full-table=MS  --max-stall=MS

#include "dashboardsession.h"
#include "failoverhistorymodel.h"
#include <batoninternal/leasehistory.h>
#include <baton/leaseobserver.h>
#include "leasescript.h"
#include "leasetablemodel.h"
#include "mainwindow.h"
#include "memorystore.h"
#include "timelinewidget.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QRegularExpression>
#include <QTableView>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <ctime>

using namespace baton;

namespace {

double cpuMs(clockid_t clock = CLOCK_PROCESS_CPUTIME_ID)
{
    timespec ts {};
    clock_gettime(clock, &ts);
    return double(ts.tv_sec) * 1000.0 + double(ts.tv_nsec) / 1e6;
}

} // namespace

int main(int argc, char *argv[])
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    qputenv("QT_LOGGING_RULES", "baton.*.info=false");
    QApplication app(argc, argv);
    QStringList args = app.arguments().mid(1);
    const bool check = args.removeAll(QStringLiteral("--check")) > 0;
    const bool withHistory = args.removeAll(QStringLiteral("--history")) > 0;
    // Bounds of the guard; a negative one is not checked.
    double maxCpuPerRenewalMs = -1;
    double maxFullTableMs = -1;
    double maxStallMs = -1;
    for (const QString &arg : args.filter(QRegularExpression(QStringLiteral("^--max-")))) {
        bool number = false;
        const double bound = arg.section(QLatin1Char('='), 1).toDouble(&number);
        double *target = arg.startsWith(QLatin1String("--max-cpu-per-renewal=")) ? &maxCpuPerRenewalMs
                : arg.startsWith(QLatin1String("--max-full-table=")) ? &maxFullTableMs
                : arg.startsWith(QLatin1String("--max-stall=")) ? &maxStallMs
                : nullptr;
        if (!target || !number) {
            std::fprintf(stderr, "bench_dashboard: %s: not a known bound with a number\n", qPrintable(arg));
            return 2;
        }
        *target = bound;
        args.removeAll(arg);
    }
    const bool guard = maxCpuPerRenewalMs >= 0 || maxFullTableMs >= 0 || maxStallMs >= 0;
    const int leases = args.size() > 0 ? args.at(0).toInt() : 5000;
    const int seconds = args.size() > 1 ? args.at(1).toInt() : 30;
    const int renewMs = args.size() > 2 ? args.at(2).toInt() : 10000;
    const bool withWindow = !(args.size() > 3 && args.at(3) == QLatin1String("models"));

    MemoryStore store(QStringLiteral("Registry"), QJsonObject(), nullptr);
    QString error;
    if (!store.init(&error))
        qFatal("%s", qPrintable(error));
    LeaseScript script(&store);
    auto name = [](int i) { return QStringLiteral("lease-%1").arg(i, 5, 10, QLatin1Char('0')); };
    auto holder = [](int i) { return QStringLiteral("node-%1").arg(i % 17); };
    // The store's answers to these writes come on later turns: they are all
    // handled before the window opens, so that they do not count as the
    // window's stall while it fills.
    int written = 0;
    int writes = 0;
    for (int i = 0; i < leases; ++i, ++writes)
        script.write(name(i), holder(i), 15000, [&written](bool) { ++written; });
    int historyEntries = 0;
    if (withHistory) {
        // Twenty changes a minute apart, ending with the current holder's
        // acquisition: expiries, clean handovers and take-overs in turn.
        const QDateTime now = QDateTime::currentDateTimeUtc();
        for (int i = 0; i < leases; ++i) {
            QList<HistoryEntry> changes;
            for (int k = 0; k < leasehistory::defaultLength; ++k) {
                const int back = leasehistory::defaultLength - 1 - k;
                HistoryEntry change;
                change.to = holder(i + 17 * leasehistory::defaultLength - back);
                change.from = k == 0 ? QString() : changes.last().to;
                change.why = k == 0 ? QStringLiteral("first-acquire")
                                    : QStringList {QStringLiteral("taken-over"), QStringLiteral("expired"),
                                                   QStringLiteral("released")}.at(k % 3);
                change.gapMs = k == 0 ? -1 : QList<qint64> {0, 4000, 30}.at(k % 3);
                change.at = now.addSecs(-60 * back);
                change.transitions = k;
                changes.append(change);
            }
            store.create(leasehistory::registryKey(name(i)), leasehistory::encode(changes),
                         [&written](const StoreResult &) { ++written; });
            ++writes;
            historyEntries += int(changes.size());
        }
    }
    while (written < writes)
        QCoreApplication::processEvents();

    DashboardSession session;
    session.attach(&store, nullptr, QStringLiteral("bench"));
    MainWindow window(&session, nullptr, nullptr);
    window.resize(1400, 900);
    if (withWindow)
        window.show();
    window.leaseView()->sortByColumn(LeaseTableModel::FreshnessColumn, Qt::DescendingOrder);

    // The heartbeat: how late does a 5 ms timer fire? First while the table
    // fills (the first list, and with --history the stored history), then
    // while the leases renew.
    QList<qint64> setupGapsUs;
    QList<qint64> gapsUs;
    QList<qint64> *gaps = &setupGapsUs;
    QElapsedTimer beat;
    // On a loaded machine a gap may be time the scheduler gave to other
    // processes: the CPU time the main thread spent between two beats is
    // the part of the stall that is this process's own work.
    double setupBusiestMs = 0;
    double renewBusiestMs = 0;
    double *busiest = &setupBusiestMs;
    double lastBeatCpuMs = cpuMs(CLOCK_THREAD_CPUTIME_ID);
    QTimer heartbeat;
    heartbeat.setTimerType(Qt::PreciseTimer);
    heartbeat.setInterval(5);
    QObject::connect(&heartbeat, &QTimer::timeout, [&] {
        gaps->append(beat.nsecsElapsed() / 1000);
        beat.restart();
        const double now = cpuMs(CLOCK_THREAD_CPUTIME_ID);
        *busiest = std::max(*busiest, now - lastBeatCpuMs);
        lastBeatCpuMs = now;
    });
    beat.start();
    heartbeat.start();

    QElapsedTimer setup;
    setup.start();
    const int historyRows = withHistory ? historyEntries : 0;
    while ((session.leaseModel()->rowCount() < leases || session.historyModel()->rowCount() < historyRows)
           && setup.elapsed() < 60000)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    const qint64 setupMs = setup.elapsed();
    const int shownHistoryRows = session.historyModel()->rowCount();
    const auto longestStallMs = [](const QList<qint64> &beats) {
        const qint64 longestUs = beats.isEmpty() ? 0 : *std::max_element(beats.begin(), beats.end());
        return std::max<qint64>(0, longestUs / 1000 - 5);
    };
    std::printf("setup: %d leases in the table, %d history rows, after %lld ms; longest stall meanwhile %lld ms\n",
                session.leaseModel()->rowCount(), shownHistoryRows, setupMs, longestStallMs(setupGapsUs));
    std::printf("busiest turn while filling: %.2f ms of the main thread's CPU between two beats\n", setupBusiestMs);

    // A lease selected, as an operator would: its timeline and history are
    // drawn (with --history, its 20 stored rows picked out of 100,000).
    // That one-off cost is reported on its own, and kept out of the
    // renewals' figure, which is about the steady state.
    QList<qint64> selectGapsUs;
    gaps = &selectGapsUs;
    double selectBusiestMs = 0;
    busiest = &selectBusiestMs;
    window.selectLease(name(42));
    QElapsedTimer settle;
    settle.start();
    while (settle.elapsed() < 500)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    std::printf("select: longest stall while the window showed one lease %lld ms\n", longestStallMs(selectGapsUs));

    // The renewals: every lease once per renewMs, spread evenly in 20 ms slices.
    const int sliceMs = 20;
    const int perSlice = std::max(1, leases * sliceMs / renewMs);
    int cursor = 0;
    qint64 events = 0;
    QTimer writer;
    writer.setTimerType(Qt::PreciseTimer);
    QObject::connect(&writer, &QTimer::timeout, [&] {
        for (int k = 0; k < perSlice; ++k) {
            script.write(name(cursor), holder(cursor), 15000);
            cursor = (cursor + 1) % leases;
            ++events;
        }
    });

    qint64 seen = 0;
    QObject::connect(session.observer(), &LeaseObserver::leaseChanged, [&seen] { ++seen; });

    const double cpuStart = cpuMs();
    QElapsedTimer wall;
    wall.start();
    writer.start(sliceMs);
    gaps = &gapsUs;
    beat.restart();
    busiest = &renewBusiestMs;
    lastBeatCpuMs = cpuMs(CLOCK_THREAD_CPUTIME_ID);
    QTimer::singleShot(seconds * 1000, &app, &QCoreApplication::quit);
    app.exec();
    const double cpu = cpuMs() - cpuStart;
    const qint64 elapsed = wall.elapsed();
    // The writes of the last turns may still be on their way to the observer.
    writer.stop();
    QElapsedTimer drain;
    drain.start();
    while (seen < events && drain.elapsed() < 30000)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);

    std::sort(gapsUs.begin(), gapsUs.end());
    const auto pct = [&](double p) {
        return gapsUs.isEmpty() ? 0.0 : double(gapsUs.at(qsizetype(double(gapsUs.size() - 1) * p))) / 1000.0;
    };
    std::printf("leases %d%s, renewal every %d ms, %d s, %s: %lld writes, %lld changes seen by the observer\n",
                leases, withHistory ? " with 20 stored changes each" : "", renewMs, seconds,
                withWindow ? "window shown" : "models only", events, seen);
    std::printf("cpu per renewal (store + observer + models + views): %.3f ms; cpu busy %.1f %%\n",
                events ? cpu / double(events) : 0.0, 100.0 * cpu / double(elapsed));
    std::printf("busiest turn while renewing: %.2f ms of the main thread's CPU between two beats\n", renewBusiestMs);
    const double longestStall = std::max(0.0, pct(1.0) - 5.0);
    std::printf("heartbeat 5 ms: median %.2f ms, p99 %.2f ms, max %.2f ms -> longest stall %.2f ms\n", pct(0.5),
                pct(0.99), pct(1.0), longestStall);
    constexpr double targetStallMs = 16.0;
    constexpr qint64 targetFullTableMs = 2000;
    const bool stallMet = longestStall <= targetStallMs;
    const bool fillStallMet = double(longestStallMs(setupGapsUs)) <= targetStallMs;
    const bool fullTableMet = setupMs <= targetFullTableMs && shownHistoryRows >= historyRows
            && session.leaseModel()->rowCount() >= leases;
    std::printf("target: first full table <= %lld ms: %s\n", targetFullTableMs, fullTableMet ? "met" : "not met");
    std::printf("target: stall while filling <= %.0f ms: %s\n", targetStallMs, fillStallMet ? "met" : "not met");
    std::printf("target: longest stall <= %.0f ms: %s\n", targetStallMs, stallMet ? "met" : "not met");
    std::fflush(stdout);
    if (guard) {
        bool held = true;
        const auto bounded = [&held](const char *what, double value, double bound, const char *unit, bool wanted) {
            if (!wanted)
                return;
            held = held && value <= bound;
            std::fprintf(stderr, "guard: %s %.3f%s (bound %.3f%s): %s\n", what, value, unit, bound, unit,
                         value <= bound ? "ok" : "FAILED");
        };
        bounded("rows missing from the table", double(leases - session.leaseModel()->rowCount()), 0, "", true);
        bounded("writes the observer did not see", double(events - seen), 0, "", true);
        bounded("cpu per renewal", events ? cpu / double(events) : 0.0, maxCpuPerRenewalMs, " ms", maxCpuPerRenewalMs >= 0);
        bounded("first full table", double(setupMs), maxFullTableMs, " ms", maxFullTableMs >= 0);
        bounded("longest stall while renewing", longestStall, maxStallMs, " ms", maxStallMs >= 0);
        return held ? 0 : 1;
    }
    return check && !(stallMet && fillStallMet && fullTableMet) ? 1 : 0;
}
