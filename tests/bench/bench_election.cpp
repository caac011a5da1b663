// Election benchmarks against a peer measured in the same run (issue #8):
// these machines are shared and noisy, so what counts is a ratio to
// `etcdctl elect` (etcd's own election, watch-driven) on the same etcd, or
// a figure beside its target. tests/bench/run-benchmarks.sh runs every
// section and writes docs/benchmarks.md; each section prints Markdown.
//
//   bench_election handover  ENDPOINT [REPS]        clean handover, Baton and etcdctl elect
//   bench_election failover  ENDPOINT [REPS]        crash failover / leaseDuration
//   bench_election requests  ENDPOINT               store requests per renewal, etcd and Kubernetes
//   bench_election footprint ENDPOINT SECONDS       RSS and CPU, baton join beside etcdctl elect
//   bench_election scale     ENDPOINT ELECTIONS SECONDS [RENEW_MS [LEASE_MS]] [--callgrind FILE]
//   bench_election scale-file FOLDER ELECTIONS SECONDS [RENEW_MS] [--callgrind FILE]
//                                                   the same on a file store in FOLDER
//   bench_election scale-kube ELECTIONS SECONDS [RENEW_MS [LEASE_MS]]
//                                                   the same on Kubernetes Leases, against the
//                                                   test Lease API server in this process
//
// ENDPOINT `file` runs the scale section on a FileStore in a private folder
// instead of etcd. The guard options (CTest label perfguard, tests/bench/
// CMakeLists.txt) make scale exit 1 when a bound is crossed, any election
// stepped down, or one did not renew in the window:
//   --max-cpu=PERCENT_OF_A_CORE  --max-rss=MB  --max-gap=MS (between two renewals of one lease)
//
// Times are CLOCK_BOOTTIME, the clock of the O5 `mono` field, so a signal
// sent here and a `started-leading` written by a child compare directly.

#include "countingproxy.h"
#include "leaseapiserver.h"
#include "participantprocess.h"
#include "testcertificates.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QPointer>
#include <QProcess>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTimer>
#include <QUrl>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <functional>
#include <memory>
#include <unistd.h>
#include <vector>

using namespace baton;

namespace {

double monoNowMs()
{
    timespec ts {};
    clock_gettime(CLOCK_BOOTTIME, &ts);
    return double(ts.tv_sec) * 1000.0 + double(ts.tv_nsec) / 1e6;
}

QString g_baton;
QString g_etcdctl = QStringLiteral("etcdctl");
QTemporaryDir *g_folder = nullptr;

void out(const QString &text)
{
    std::fputs(qPrintable(text + QLatin1Char('\n')), stdout);
    std::fflush(stdout);
}

void note(const QString &text)
{
    std::fputs(qPrintable(text + QLatin1Char('\n')), stderr);
}

/*!
 * Runs the event loop until \a done holds or \a timeoutMs passes. The loop
 * blocks in poll(), so a child's line is read (and stamped) as it arrives;
 * the short timer only re-checks the condition.
 */
bool waitFor(const std::function<bool()> &done, int timeoutMs)
{
    if (done())
        return true;
    QEventLoop loop;
    QTimer check;
    check.setInterval(5);
    QObject::connect(&check, &QTimer::timeout, &loop, [&] {
        if (done())
            loop.quit();
    });
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    check.start();
    loop.exec();
    return done();
}

/*! Lets \a ms of wall time pass with the event loop running (a measuring window, not a synchronisation). */
void runFor(int ms)
{
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

struct Stats
{
    std::vector<double> v;
    void add(double x) { v.push_back(x); }
    bool empty() const { return v.empty(); }
    double q(double p) const
    {
        if (v.empty())
            return 0;
        std::vector<double> s = v;
        std::sort(s.begin(), s.end());
        const double pos = p * double(s.size() - 1);
        const auto lo = size_t(pos);
        const size_t hi = std::min(lo + 1, s.size() - 1);
        return s[lo] + (s[hi] - s[lo]) * (pos - double(lo));
    }
    double median() const { return q(0.5); }
    double min() const { return v.empty() ? 0 : *std::min_element(v.begin(), v.end()); }
    double max() const { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); }
};

QString f(double x, int decimals = 1)
{
    return QString::number(x, 'f', decimals);
}

QString spread(const Stats &s, int decimals = 1, const QString &unit = QString())
{
    return QStringLiteral("%1%5 (p10 %2, p90 %3, max %4)")
            .arg(f(s.median(), decimals), f(s.q(0.1), decimals), f(s.q(0.9), decimals),
                 f(s.max(), decimals), unit);
}

// Every target's verdict, for the summary and for --check.
int g_targetsMet = 0;
int g_targetsMissed = 0;

QString verdict(bool ok)
{
    ++(ok ? g_targetsMet : g_targetsMissed);
    return ok ? QStringLiteral("met") : QStringLiteral("**not met**");
}

// --- configurations -------------------------------------------------------

/*! \a timeoutMs 0: the store's default (5000 ms). */
QJsonObject etcdRegistry(const QString &endpoint, int timeoutMs = 1000)
{
    QJsonObject registry {{QStringLiteral("type"), QStringLiteral("Webda/EtcdStore")},
                          {QStringLiteral("endpoints"), QJsonArray {endpoint}}};
    if (timeoutMs > 0)
        registry.insert(QStringLiteral("timeout"), timeoutMs);
    return registry;
}

QJsonObject storeCluster(const QString &leaseName, qint64 leaseMs, qint64 renewMs)
{
    return QJsonObject {{QStringLiteral("type"), QStringLiteral("StoreClusterService")},
                        {QStringLiteral("leaseName"), leaseName},
                        {QStringLiteral("leaseDuration"), leaseMs},
                        {QStringLiteral("renewInterval"), renewMs}};
}

QString writeConfig(const QString &name, const QJsonObject &services)
{
    const QString path = g_folder->filePath(name + QStringLiteral(".json"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        qFatal("cannot write %s", qPrintable(path));
    file.write(QJsonDocument(QJsonObject {{QStringLiteral("services"), services}}).toJson());
    return path;
}

QString uniqueName(const QString &prefix)
{
    return prefix + QLatin1Char('-') + QString::number(QRandomGenerator::global()->generate(), 16);
}

// --- /proc -----------------------------------------------------------------

qint64 statusKb(qint64 pid, const char *field, const char *file = "status")
{
    QFile f(QStringLiteral("/proc/%1/%2").arg(pid).arg(QLatin1String(file)));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray key = QByteArray(field) + ':';
    for (const QByteArray &line : f.readAll().split('\n'))
        if (line.startsWith(key))
            return line.mid(key.size()).trimmed().split(' ').value(0).toLongLong();
    return -1;
}

/*! utime + stime of \a pid, in seconds. */
double cpuSeconds(qint64 pid)
{
    QFile f(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray stat = f.readAll();
    // The command name is in parentheses and may hold spaces: count after it.
    const QList<QByteArray> fields = stat.mid(stat.lastIndexOf(')') + 2).split(' ');
    const double ticks = double(fields.value(11).toLongLong() + fields.value(12).toLongLong());
    return ticks / double(sysconf(_SC_CLK_TCK));
}

struct Footprint
{
    Stats rssMb;
    Stats pssMb;
    double cpuStart = 0;
    double cpuEnd = 0;
    double seconds = 0;
    void sample(qint64 pid)
    {
        rssMb.add(double(statusKb(pid, "VmRSS")) / 1024.0);
        const qint64 pss = statusKb(pid, "Pss", "smaps_rollup");
        if (pss >= 0)
            pssMb.add(double(pss) / 1024.0);
    }
    double cpuPercent() const { return seconds > 0 ? (cpuEnd - cpuStart) / seconds * 100.0 : 0; }
};

/*! Samples every second for \a seconds; cpu over the same window. */
void measureFootprints(const std::vector<std::pair<qint64, Footprint *>> &targets, int seconds,
                       const std::function<void()> &everySecond = {})
{
    for (auto &[pid, fp] : targets)
        fp->cpuStart = cpuSeconds(pid);
    QElapsedTimer clock;
    clock.start();
    for (int s = 0; s < seconds; ++s) {
        runFor(int(qint64(s + 1) * 1000 - clock.elapsed()));
        for (auto &[pid, fp] : targets)
            fp->sample(pid);
        if (everySecond)
            everySecond();
    }
    for (auto &[pid, fp] : targets) {
        fp->cpuEnd = cpuSeconds(pid);
        fp->seconds = double(clock.elapsed()) / 1000.0;
    }
}

// --- Baton participants -------------------------------------------------------

/*!
 * Three (or more) `baton join` on one lease; a stopped one is replaced by a
 * new process on the same configuration, so there are always as many.
 */
class Group : public QObject
{
public:
    struct Start
    {
        int index = -1;
        double mono = 0;   // O5 mono of started-leading
        double readAt = 0; // when this harness read the line
    };

    explicit Group(const QStringList &configs)
        : m_configs(configs)
    {
        for (int i = 0; i < configs.size(); ++i)
            m_members.push_back(nullptr);
        for (int i = 0; i < configs.size(); ++i)
            startMember(i);
    }

    ~Group() override
    {
        // A member's destructor waits for its process, and the output it
        // reads meanwhile is told to this group: members first, while the
        // state they write to is still here (it is declared after them).
        for (auto &member : m_members)
            if (member)
                member->disconnect(this);
        m_members.clear();
    }

    void startMember(int i)
    {
        // What the stopped one still says as it goes is not the new one's.
        if (m_members[size_t(i)])
            m_members[size_t(i)]->disconnect(this);
        auto p = std::make_unique<ParticipantProcess>(
                QStringLiteral("p%1").arg(i), g_baton,
                QStringList {QStringLiteral("join"), QStringLiteral("--config"), m_configs.at(i),
                             QStringLiteral("--events"), QStringLiteral("json")});
        m_settled[i] = false;
        connect(p.get(), &ParticipantProcess::event, this, [this, i](const QJsonObject &e) {
            const QString name = e.value(QStringLiteral("event")).toString();
            if (name == QLatin1String("started-leading")) {
                m_lastStart = {i, e.value(QStringLiteral("mono")).toDouble(), monoNowMs()};
                m_settled[i] = true;
            } else if (name == QLatin1String("attempt")
                       && e.value(QStringLiteral("outcome")).toString() == QLatin1String("held")) {
                m_settled[i] = true;
            }
        });
        p->start();
        m_members[size_t(i)] = std::move(p);
    }

    int size() const { return int(m_members.size()); }
    ParticipantProcess *member(int i) const { return m_members[size_t(i)].get(); }

    int leader() const
    {
        int found = -1;
        for (int i = 0; i < size(); ++i)
            if (member(i)->isLeading())
                found = found < 0 ? i : -2;
        return found;
    }

    /*! One leader, and every other one has seen it hold the lease. */
    bool settled() const
    {
        if (leader() < 0)
            return false;
        for (int i = 0; i < size(); ++i)
            if (!m_settled.value(i) || !member(i)->isRunning())
                return false;
        return true;
    }

    /*!
     * Signals the leader at a random phase of its renewal cycle, and
     * returns the next leader's start (index -1 when none came).
     */
    Start stopLeader(int signalNumber, int renewMs, int timeoutMs, double *sentAt, int *stopped)
    {
        runFor(int(QRandomGenerator::global()->bounded(renewMs)));
        // A renewal may have failed during the pause on a loaded machine.
        if (!waitFor([&] { return settled(); }, 30000))
            return {};
        const int l = leader();
        *stopped = l;
        m_lastStart = {};
        *sentAt = monoNowMs();
        member(l)->sendSignal(signalNumber);
        waitFor([&] { return m_lastStart.index >= 0 && m_lastStart.index != l; }, timeoutMs);
        const Start next = m_lastStart;
        waitFor([&] { return !member(l)->isRunning(); }, 10000);
        if (qEnvironmentVariableIsSet("BENCH_VERBOSE")) {
            QStringList steps;
            for (const QJsonObject &e : member(l)->events()) {
                const double mono = e.value(QStringLiteral("mono")).toDouble();
                if (mono + 1 >= *sentAt)
                    steps << QStringLiteral("%1 %2").arg(e.value(QStringLiteral("event")).toString()).arg(mono - *sentAt, 0, 'f', 1);
            }
            note(QStringLiteral("stopped %1: %2; next leader %3").arg(l).arg(steps.join(QStringLiteral(", "))).arg(next.mono - *sentAt, 0, 'f', 1));
        }
        startMember(l);
        return next;
    }

private:
    QStringList m_configs;
    std::vector<std::unique_ptr<ParticipantProcess>> m_members;
    QHash<int, bool> m_settled;
    Start m_lastStart;
};

QStringList groupConfigs(const QString &endpoint, const QString &lease, int count, qint64 leaseMs,
                         qint64 renewMs)
{
    QStringList configs;
    for (int i = 0; i < count; ++i)
        configs << writeConfig(QStringLiteral("%1-%2").arg(lease).arg(i),
                               QJsonObject {{QStringLiteral("Registry"), etcdRegistry(endpoint)},
                                            {QStringLiteral("cluster"), storeCluster(lease, leaseMs, renewMs)}});
    return configs;
}

// --- etcdctl elect -------------------------------------------------------------

/*! One `etcdctl elect NAME PROPOSAL`: it prints the key, then the proposal, once elected. */
class Elect : public QObject
{
public:
    Elect(const QString &endpoint, const QString &name, const QString &proposal)
    {
        m_process.setProgram(g_etcdctl);
        m_process.setArguments({QStringLiteral("--endpoints=") + endpoint, QStringLiteral("elect"),
                                name, proposal});
        connect(&m_process, &QProcess::readyReadStandardOutput, this, [this] {
            if (m_electedAt == 0)
                m_electedAt = monoNowMs();
            m_process.readAllStandardOutput();
        });
        m_process.start();
    }
    ~Elect() override
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
    }
    bool elected() const { return m_electedAt > 0; }
    double electedAt() const { return m_electedAt; }
    qint64 pid() const { return m_process.processId(); }
    bool running() const { return m_process.state() != QProcess::NotRunning; }
    void signal(int n) { ::kill(pid_t(m_process.processId()), n); }

private:
    QProcess m_process;
    double m_electedAt = 0;
};

int countKeys(const QString &endpoint, const QString &prefix)
{
    QProcess get;
    get.start(g_etcdctl, {QStringLiteral("--endpoints=") + endpoint, QStringLiteral("get"),
                          QStringLiteral("--prefix"), prefix, QStringLiteral("--keys-only")});
    get.waitForFinished(5000);
    int n = 0;
    for (const QByteArray &line : get.readAllStandardOutput().split('\n'))
        n += line.trimmed().isEmpty() ? 0 : 1;
    return n;
}

// --- sections --------------------------------------------------------------------

constexpr qint64 groupLeaseMs = 2000;
constexpr qint64 groupRenewMs = 500;

int handover(const QString &endpoint, int reps)
{
    Stats batonMono, batonRead, etcdRead;
    {
        Group group(groupConfigs(endpoint, uniqueName(QStringLiteral("handover")), 3, groupLeaseMs,
                                 groupRenewMs));
        for (int r = 0; r < reps; ++r) {
            if (!waitFor([&] { return group.settled(); }, 30000)) {
                note(QStringLiteral("handover: the group did not settle"));
                return 1;
            }
            double sent = 0;
            int stopped = -1;
            const Group::Start next = group.stopLeader(SIGTERM, int(groupRenewMs), 10000, &sent, &stopped);
            if (next.index < 0) {
                note(QStringLiteral("handover: no new leader within 10 s"));
                continue;
            }
            // mono is whole milliseconds, truncated: the middle of that millisecond.
            batonMono.add(next.mono + 0.5 - sent);
            batonRead.add(next.readAt - sent);
        }
    }
    {
        const QString name = uniqueName(QStringLiteral("bench-elect"));
        auto holder = std::make_unique<Elect>(endpoint, name, QStringLiteral("a"));
        waitFor([&] { return holder->elected(); }, 10000);
        for (int r = 0; r < reps; ++r) {
            auto waiter = std::make_unique<Elect>(endpoint, name, QStringLiteral("r%1").arg(r));
            // The waiter must be queued (its key written) before the holder goes.
            waitFor([&] { return countKeys(endpoint, name + QLatin1Char('/')) >= 2; }, 10000);
            runFor(int(QRandomGenerator::global()->bounded(int(groupRenewMs))));
            const double sent = monoNowMs();
            holder->signal(SIGINT);
            if (!waitFor([&] { return waiter->elected(); }, 10000))
                note(QStringLiteral("handover: etcdctl waiter not elected within 10 s"));
            else
                etcdRead.add(waiter->electedAt() - sent);
            waitFor([&] { return !holder->running(); }, 10000);
            holder = std::move(waiter);
        }
    }
    const double ratioMono = batonMono.median() / etcdRead.median();
    const double ratioRead = batonRead.median() / etcdRead.median();
    out(QStringLiteral("### Clean handover\n"));
    out(QStringLiteral("Three `baton join` on one lease (leaseDuration %1 ms, renewInterval %2 ms); "
                       "the leader gets SIGTERM at a random phase of its renewal cycle; %3 repetitions, "
                       "the stopped one restarted each time. Peer: `etcdctl elect`, a holder and one "
                       "queued campaigner, SIGINT to the holder (it resigns), %3 repetitions, same etcd.\n")
                .arg(groupLeaseMs).arg(groupRenewMs).arg(reps));
    out(QStringLiteral("| measure | Baton (ms) | etcdctl elect (ms) | Baton / etcd | target |"));
    out(QStringLiteral("|---|---|---|---|---|"));
    out(QStringLiteral("| signal → next leader's `started-leading` `mono` | %1 | %2 | **%3** | ≤ 1.5, and ≪ %4 ms: %5 |")
                .arg(spread(batonMono), spread(etcdRead), f(ratioMono, 2)).arg(groupRenewMs)
                .arg(verdict(ratioMono <= 1.5 && batonMono.median() < double(groupRenewMs) / 10)));
    out(QStringLiteral("| signal → harness reads the new leader's line (both) | %1 | %2 | %3 | ≤ 1.5: %4 |\n")
                .arg(spread(batonRead), spread(etcdRead), f(ratioRead, 2), verdict(ratioRead <= 1.5)));
    out(QStringLiteral("What each includes: Baton's `mono` ends when the new leader writes the event "
                       "(release write, watch event, conditional write, event); the line-read measure "
                       "adds the pipe to this harness, as etcdctl's does. etcdctl's end is its first "
                       "line read here: resign (delete), watch event, its own Get of the key, the pipe. "
                       "Samples: Baton %1, etcdctl %2.\n")
                .arg(batonMono.v.size()).arg(etcdRead.v.size()));
    return 0;
}

/*! The `mono` of \a p's last \a event at or after \a since; -1 when there is none. */
double eventMono(const ParticipantProcess &p, const char *event, double since)
{
    double found = -1;
    for (const QJsonObject &e : p.events())
        if (e.value(QStringLiteral("event")).toString() == QLatin1String(event)
            && e.value(QStringLiteral("mono")).toDouble() + 1 >= since)
            found = e.value(QStringLiteral("mono")).toDouble();
    return found;
}

int handoverTo(const QString &endpoint, int reps)
{
    // H1 beside F5: `baton handover --to` a named follower, and a plain
    // release (SIGTERM), on one group. The gap is from the old leader's
    // stopped-leading to the new one's started-leading, both by `mono`.
    Stats toGap, toTotal, releaseTotal;
    const QString lease = uniqueName(QStringLiteral("handover-to"));
    const QStringList configs = groupConfigs(endpoint, lease, 3, groupLeaseMs, groupRenewMs);
    Group group(configs);
    for (int r = 0; r < reps; ++r) {
        if (!waitFor([&] { return group.settled(); }, 30000)) {
            note(QStringLiteral("handover-to: the group did not settle"));
            return 1;
        }
        runFor(int(QRandomGenerator::global()->bounded(int(groupRenewMs))));
        const int l = group.leader();
        if (l < 0)
            continue;
        const int target = (l + 1) % group.size();
        const double sent = monoNowMs();
        QProcess handover;
        handover.start(g_baton, {QStringLiteral("handover"), lease, QStringLiteral("--to"),
                                 group.member(target)->instanceId(), QStringLiteral("--config"), configs.at(0)});
        waitFor([&] { return handover.state() == QProcess::NotRunning; }, 10000);
        if (handover.exitCode() != 0) {
            note(QStringLiteral("handover-to: baton handover failed: ") + QString::fromLocal8Bit(handover.readAllStandardError()));
            continue;
        }
        if (!waitFor([&] { return group.member(target)->isLeading(); }, 10000)) {
            note(QStringLiteral("handover-to: the successor did not lead within 10 s"));
            continue;
        }
        const double stopped = eventMono(*group.member(l), "stopped-leading", sent);
        const double started = eventMono(*group.member(target), "started-leading", sent);
        toGap.add(started - stopped);
        toTotal.add(started + 0.5 - sent);
    }
    for (int r = 0; r < reps; ++r) {
        if (!waitFor([&] { return group.settled(); }, 30000))
            break;
        double sent = 0;
        int stopped = -1;
        const Group::Start next = group.stopLeader(SIGTERM, int(groupRenewMs), 10000, &sent, &stopped);
        if (next.index < 0 || stopped < 0)
            continue;
        releaseTotal.add(next.mono + 0.5 - sent);
    }
    out(QStringLiteral("### Handover to a named successor\n"));
    out(QStringLiteral("Three `baton join` on one lease (leaseDuration %1 ms, renewInterval %2 ms); "
                       "`baton handover LEASE --to` a follower at a random phase of the renewal cycle, "
                       "%3 repetitions; then %3 plain releases (SIGTERM to the leader, restarted).\n")
                .arg(groupLeaseMs).arg(groupRenewMs).arg(reps));
    out(QStringLiteral("| measure | ms |"));
    out(QStringLiteral("|---|---|"));
    out(QStringLiteral("| handover: old leader's `stopped-leading` → successor's `started-leading` | %1 |")
                .arg(spread(toGap)));
    out(QStringLiteral("| handover: `baton handover` started → successor's `started-leading` | %1 |")
                .arg(spread(toTotal)));
    out(QStringLiteral("| plain release: SIGTERM → next leader's `started-leading` | %1 |\n")
                .arg(spread(releaseTotal)));
    return toGap.v.empty() ? 1 : 0;
}

int failover(const QString &endpoint, int reps)
{
    Stats ratio, ms;
    Group group(groupConfigs(endpoint, uniqueName(QStringLiteral("failover")), 3, groupLeaseMs,
                             groupRenewMs));
    for (int r = 0; r < reps; ++r) {
        if (!waitFor([&] { return group.settled(); }, 30000)) {
            note(QStringLiteral("failover: the group did not settle"));
            return 1;
        }
        double sent = 0;
        int stopped = -1;
        const Group::Start next = group.stopLeader(SIGKILL, int(groupRenewMs),
                                                   int(3 * groupLeaseMs), &sent, &stopped);
        if (next.index < 0) {
            note(QStringLiteral("failover: no new leader within 3 leases"));
            continue;
        }
        const double took = next.mono + 0.5 - sent;
        ms.add(took);
        ratio.add(took / double(groupLeaseMs));
    }
    const double bound = double(groupLeaseMs + groupRenewMs) / double(groupLeaseMs);
    out(QStringLiteral("### Crash failover\n"));
    out(QStringLiteral("Same three participants; SIGKILL of the leader at a random phase of its "
                       "renewal cycle, time to the next leader's `started-leading` `mono`, %1 "
                       "repetitions. A killed leader last renewed up to one renewInterval before "
                       "the kill, so the ideal lies between (leaseDuration − renewInterval) / "
                       "leaseDuration = %2 and 1.\n")
                .arg(reps).arg(f(double(groupLeaseMs - groupRenewMs) / double(groupLeaseMs), 2)));
    out(QStringLiteral("| measure | Baton | target |"));
    out(QStringLiteral("|---|---|---|"));
    out(QStringLiteral("| SIGKILL → next leader (ms) | %1 | |").arg(spread(ms)));
    out(QStringLiteral("| ÷ leaseDuration | %1 | median ≤ 1.05: %2; never above %3: %4 |\n")
                .arg(spread(ratio, 3), verdict(ratio.median() <= 1.05), f(bound, 2),
                     verdict(ratio.max() <= bound)));
    out(QStringLiteral("No peer figure: `etcdctl elect` has no lease setting (its session TTL is "
                       "60 s), so a SIGKILLed holder is replaced after a minute.\n"));
    return 0;
}

QString describeCounts(const QMap<QString, int> &counts, double intervals)
{
    QStringList parts;
    for (auto it = counts.begin(); it != counts.end(); ++it)
        parts << QStringLiteral("%1 %2").arg(f(double(it.value()) / intervals, 2), it.key());
    return parts.join(QStringLiteral(", "));
}

/*! Starts \a server over TLS with certificates made in \a certDir; false with \a error. */
bool startLeaseApiServer(test::LeaseApiServer *server, test::TestCertificates *certificates,
                         const QString &certDir, QString *error)
{
    QDir().mkpath(certDir);
    return certificates->generate(certDir, error)
            && server->setTls(certificates->serverCertFile(), certificates->serverKeyFile(), {}, error)
            && server->listen(error);
}

/*! A kubeconfig for \a server, namespace bench, authenticating with \a token; its path. */
QString writeKubeconfig(const QString &name, const test::LeaseApiServer &server,
                        const test::TestCertificates &certificates, const QString &token)
{
    const QString path = g_folder->filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        qFatal("cannot write %s", qPrintable(path));
    file.write(QStringLiteral("apiVersion: v1\nkind: Config\ncurrent-context: test\n"
                              "clusters:\n- name: test\n  cluster:\n    server: %1\n"
                              "    certificate-authority: %2\n"
                              "contexts:\n- name: test\n  context:\n    cluster: test\n    user: me\n"
                              "    namespace: bench\n"
                              "users:\n- name: me\n  user:\n    token: %3\n")
                       .arg(server.url().toString(), certificates.caFile(), token)
                       .toUtf8());
    return path;
}

/*!
 * Runs from just after one renewal of \a leader until just after \a count
 * more, with \a atStart called at the first: a window of exactly \a count
 * renewals (a window of a fixed time holds one more or one less, by its
 * edges). False when they did not come in time.
 */
bool overRenewals(ParticipantProcess *leader, int count, int renewMs, const std::function<void()> &atStart)
{
    int renewed = -1;
    const QMetaObject::Connection counting =
            QObject::connect(leader, &ParticipantProcess::event, [&](const QJsonObject &e) {
                if (e.value(QStringLiteral("event")).toString() != QLatin1String("attempt")
                    || e.value(QStringLiteral("outcome")).toString() != QLatin1String("renewed"))
                    return;
                if (renewed++ < 0)
                    atStart();
            });
    const bool came = waitFor([&] { return renewed >= count; }, (count + 4) * renewMs);
    QObject::disconnect(counting);
    return came;
}

int requests(const QString &endpoint)
{
    constexpr int window = 20; // renew intervals
    const QUrl url(endpoint);
    // etcd: a counting proxy in front of each participant.
    std::vector<std::unique_ptr<test::CountingProxy>> proxies;
    QStringList configs;
    const QString lease = uniqueName(QStringLiteral("requests"));
    for (int i = 0; i < 3; ++i) {
        proxies.push_back(std::make_unique<test::CountingProxy>(quint16(url.port())));
        const QString viaProxy = QStringLiteral("http://127.0.0.1:%1").arg(proxies.back()->port());
        configs << writeConfig(QStringLiteral("%1-%2").arg(lease).arg(i),
                               QJsonObject {{QStringLiteral("Registry"), etcdRegistry(viaProxy)},
                                            {QStringLiteral("cluster"),
                                             storeCluster(lease, groupLeaseMs, groupRenewMs)}});
    }
    Group group(configs);
    if (!waitFor([&] { return group.settled(); }, 30000)) {
        note(QStringLiteral("requests: the group did not settle"));
        return 1;
    }
    // Settled means every follower saw the lease; give the watches a renewal to be open.
    runFor(int(2 * groupRenewMs));
    const int leader = group.leader();
    if (leader < 0 || !overRenewals(group.member(leader), window, int(groupRenewMs), [&] {
            for (auto &p : proxies)
                p->reset();
        })) {
        note(QStringLiteral("requests: the etcd leader did not renew %1 times").arg(window));
        return 1;
    }
    const bool sameLeader = group.leader() == leader;
    Stats followers;
    QMap<QString, int> followerCounts;
    for (int i = 0; i < 3; ++i) {
        if (i == leader)
            continue;
        followers.add(double(proxies[size_t(i)]->total()) / window);
        for (auto [k, v] : proxies[size_t(i)]->counts().asKeyValueRange())
            followerCounts[k] += v;
    }
    const double leaderRate = double(proxies[size_t(leader)]->total()) / window;
    out(QStringLiteral("### Store requests per renewal\n"));
    out(QStringLiteral("Steady state, %1 renew intervals (renewInterval %2 ms) after the election "
                       "settled, three participants, from just after a renewal of the leader "
                       "to just after its %1th since. etcd: each participant talks to etcd through "
                       "its own counting proxy (HTTP/1.1 requests: request line, headers, "
                       "Content-Length body; a watch stream counts once, when it opens). "
                       "Kubernetes: the test Lease API server's per-user verb counters "
                       "(tests/kube/leaseapiserver.h), one user per participant, with list and "
                       "watch granted.%3\n")
                .arg(window).arg(groupRenewMs)
                .arg(sameLeader ? QString() : QStringLiteral(" **The leader changed during the window.**")));
    out(QStringLiteral("| store | instance | requests per renewInterval | which | target |"));
    out(QStringLiteral("|---|---|---|---|---|"));
    out(QStringLiteral("| etcd | leader | **%1** | %2 | ≤ 1: %3 |")
                .arg(f(leaderRate, 2), describeCounts(proxies[size_t(leader)]->counts(), window),
                     verdict(leaderRate <= 1.0)));
    out(QStringLiteral("| etcd | each follower | **%1** (max %2) | %3 | ≤ 1: %4 |")
                .arg(f(followers.median(), 2), f(followers.max(), 2),
                     describeCounts(followerCounts, window * 2.0), verdict(followers.max() <= 1.0)));

    // Kubernetes: the in-process test Lease API server.
    test::LeaseApiServer server;
    test::TestCertificates certificates;
    QString error;
    if (!startLeaseApiServer(&server, &certificates, g_folder->filePath(QStringLiteral("certs")), &error)) {
        note(QStringLiteral("requests: Lease API server: ") + error);
        out(QStringLiteral("| Kubernetes | | not measured: %1 | | |\n").arg(error));
        return 0;
    }
    const QString kubeLease = uniqueName(QStringLiteral("requests"));
    QStringList kubeConfigs;
    for (int i = 0; i < 3; ++i) {
        const QString token = QStringLiteral("token-%1").arg(i);
        server.addToken(token, QStringLiteral("user-%1").arg(i),
                        {QStringLiteral("get"), QStringLiteral("create"), QStringLiteral("update"),
                         QStringLiteral("list"), QStringLiteral("watch")});
        const QString kubeconfig =
                writeKubeconfig(QStringLiteral("kubeconfig-%1").arg(i), server, certificates, token);
        kubeConfigs << writeConfig(QStringLiteral("kube-%1").arg(i),
                                   QJsonObject {{QStringLiteral("cluster"),
                                                 QJsonObject {{QStringLiteral("type"), QStringLiteral("Webda/KubernetesClusterService")},
                                                              {QStringLiteral("config"), kubeconfig},
                                                              {QStringLiteral("leaseName"), kubeLease},
                                                              {QStringLiteral("leaseDuration"), groupLeaseMs},
                                                              {QStringLiteral("renewInterval"), groupRenewMs}}}});
    }
    Group kube(kubeConfigs);
    if (!waitFor([&] { return kube.settled(); }, 30000)) {
        note(QStringLiteral("requests: the Kubernetes group did not settle"));
        return 1;
    }
    runFor(int(2 * groupRenewMs));
    const int kubeLeader = kube.leader();
    if (kubeLeader < 0 || !overRenewals(kube.member(kubeLeader), window, int(groupRenewMs),
                                        [&] { server.resetCounters(); })) {
        note(QStringLiteral("requests: the Kubernetes leader did not renew %1 times").arg(window));
        return 1;
    }
    const QJsonObject counters = server.counters();
    auto rate = [&](int i, QMap<QString, int> *verbs) {
        const QJsonObject c = counters.value(QStringLiteral("user-%1").arg(i)).toObject();
        int n = 0;
        for (auto it = c.begin(); it != c.end(); ++it) {
            n += it.value().toInt();
            (*verbs)[it.key()] += it.value().toInt();
        }
        return double(n) / window;
    };
    QMap<QString, int> leaderVerbs, followerVerbs;
    Stats kubeFollowers;
    const double kubeLeaderRate = rate(kubeLeader, &leaderVerbs);
    for (int i = 0; i < 3; ++i)
        if (i != kubeLeader)
            kubeFollowers.add(rate(i, &followerVerbs));
    out(QStringLiteral("| Kubernetes | leader | **%1** | %2 | ≤ 1: %3 |")
                .arg(f(kubeLeaderRate, 2), describeCounts(leaderVerbs, window), verdict(kubeLeaderRate <= 1.0)));
    out(QStringLiteral("| Kubernetes | each follower | **%1** (max %2) | %3 | ≤ 1: %4 |\n")
                .arg(f(kubeFollowers.median(), 2), f(kubeFollowers.max(), 2),
                     describeCounts(followerVerbs, window * 2.0), verdict(kubeFollowers.max() <= 1.0)));
    return 0;
}

int footprint(const QString &endpoint, int seconds)
{
    const QString lease = uniqueName(QStringLiteral("footprint"));
    const QString config = writeConfig(lease, QJsonObject {{QStringLiteral("Registry"), etcdRegistry(endpoint, 0)},
                                                           {QStringLiteral("cluster"), storeCluster(lease, 10000, 1000)}});
    ParticipantProcess baton(QStringLiteral("footprint"), g_baton,
                             {QStringLiteral("join"), QStringLiteral("--config"), config,
                              QStringLiteral("--events"), QStringLiteral("json")});
    int stepDowns = 0;
    QObject::connect(&baton, &ParticipantProcess::event, [&](const QJsonObject &e) {
        stepDowns += e.value(QStringLiteral("event")).toString() == QLatin1String("stopped-leading") ? 1 : 0;
    });
    baton.start();
    Elect elect(endpoint, uniqueName(QStringLiteral("bench-footprint")), QStringLiteral("a"));
    if (!waitFor([&] { return baton.isLeading() && elect.elected(); }, 30000)) {
        note(QStringLiteral("footprint: not both leading"));
        return 1;
    }
    Footprint b, e;
    measureFootprints({{baton.pid(), &b}, {elect.pid(), &e}}, seconds);
    const double rssRatio = b.rssMb.median() / e.rssMb.median();
    out(QStringLiteral("### Footprint\n"));
    out(QStringLiteral("One `baton join --events json` leading one election on etcd (renewInterval "
                       "1000 ms, leaseDuration 10000 ms) beside one `etcdctl elect` holding its own "
                       "election, for %1 s; RSS (VmRSS) and PSS (smaps_rollup) sampled every "
                       "second, CPU from utime + stime over the window.%2\n")
                .arg(seconds)
                .arg(stepDowns ? QStringLiteral(" **baton stepped down %1 times.**").arg(stepDowns) : QString()));
    out(QStringLiteral("| measure | baton join | etcdctl elect | baton / etcdctl | target |"));
    out(QStringLiteral("|---|---|---|---|---|"));
    out(QStringLiteral("| RSS (MB), median (max) | %1 (%2) | %3 (%4) | **%5** | ≤ 0.8: %6 |")
                .arg(f(b.rssMb.median()), f(b.rssMb.max()), f(e.rssMb.median()), f(e.rssMb.max()),
                     f(rssRatio, 2), verdict(rssRatio <= 0.8)));
    out(QStringLiteral("| PSS (MB), median | %1 | %2 | %3 | |")
                .arg(f(b.pssMb.median()), f(e.pssMb.median()), f(b.pssMb.median() / e.pssMb.median(), 2)));
    out(QStringLiteral("| CPU, % of a core | **%1** | %2 | %3 | < 0.1: %4 |\n")
                .arg(f(b.cpuPercent(), 3), f(e.cpuPercent(), 3),
                     e.cpuPercent() > 0 ? f(b.cpuPercent() / e.cpuPercent(), 2) : QStringLiteral("–"),
                     verdict(b.cpuPercent() < 0.1)));
    return 0;
}

/*! A `baton join` child read line by line without keeping the records (thousands a second). */
class ScaleRun : public QObject
{
public:
    int started = 0;
    int stopped = 0;
    /*! Leading now: started less stopped, over the whole run. */
    int leading = 0;
    int deadline = 0;
    int renewed = 0;
    int errors = 0;
    Stats latency; // ms of renewals
    QHash<QString, double> lastRenewal;
    double worstGap = 0; // ms between two renewals of one lease

    void start(const QString &program, const QStringList &arguments)
    {
        connect(&m_process, &QProcess::readyReadStandardOutput, this, [this] { read(); });
        m_process.setProcessChannelMode(QProcess::SeparateChannels);
        m_process.setStandardErrorFile(g_folder->filePath(QStringLiteral("scale-stderr.log")));
        m_process.start(program, arguments);
    }
    qint64 pid() const { return m_process.processId(); }
    QString state() const
    {
        QFile log(g_folder->filePath(QStringLiteral("scale-stderr.log")));
        log.open(QIODevice::ReadOnly);
        return QStringLiteral("%1 %2\n%3").arg(int(m_process.state())).arg(m_process.errorString(),
                                                    QString::fromLocal8Bit(log.readAll().right(2000)));
    }
    void stop(int timeoutMs = 120000)
    {
        // A clean stop releases every lease: with 1,000 that takes a while.
        ::kill(pid_t(m_process.processId()), SIGTERM);
        if (!m_process.waitForFinished(timeoutMs)) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
    }
    void resetWindow()
    {
        stopped = deadline = renewed = errors = 0;
        latency = {};
        worstGap = 0;
        lastRenewal.clear();
    }

private:
    void read()
    {
        m_pending += m_process.readAllStandardOutput();
        if (qEnvironmentVariableIsSet("BENCH_VERBOSE")) note(QString::fromUtf8(m_pending.left(300)));
        qsizetype newline;
        qsizetype from = 0;
        while ((newline = m_pending.indexOf('\n', from)) >= 0) {
            line(QByteArrayView(m_pending).sliced(from, newline - from));
            from = newline + 1;
        }
        m_pending.remove(0, from);
    }
    void line(QByteArrayView text)
    {
        const QJsonObject e = QJsonDocument::fromJson(text.toByteArray()).object();
        const QString event = e.value(QStringLiteral("event")).toString();
        if (event == QLatin1String("started-leading")) {
            ++started;
            ++leading;
        } else if (event == QLatin1String("stopped-leading")) {
            ++stopped;
            --leading;
            deadline += e.value(QStringLiteral("reason")).toString() == QLatin1String("deadline") ? 1 : 0;
        } else if (event == QLatin1String("attempt")) {
            const QString outcome = e.value(QStringLiteral("outcome")).toString();
            if (outcome == QLatin1String("renewed")) {
                ++renewed;
                latency.add(e.value(QStringLiteral("latencyMs")).toDouble());
                const QString lease = e.value(QStringLiteral("lease")).toString();
                const double mono = e.value(QStringLiteral("mono")).toDouble();
                const auto it = lastRenewal.find(lease);
                if (it != lastRenewal.end())
                    worstGap = std::max(worstGap, mono - it.value());
                lastRenewal.insert(lease, mono);
            } else if (outcome == QLatin1String("error") || outcome == QLatin1String("conflict")) {
                ++errors;
            }
        }
    }

    QProcess m_process;
    QByteArray m_pending;
};

/*! Bounds of the perfguard run; a negative one is not checked. */
struct ScaleGuard
{
    double maxCpuPercent = -1;
    double maxRssMb = -1;
    double maxGapMs = -1;
    bool on() const { return maxCpuPercent >= 0 || maxRssMb >= 0 || maxGapMs >= 0; }
};

ScaleGuard g_guard;

/*! Prints one guard check and returns whether it held. */
bool guardCheck(const QString &what, double value, double bound, const QString &unit)
{
    const bool ok = value <= bound;
    const QString suffix = unit.isEmpty() ? QString() : QLatin1Char(' ') + unit;
    note(QStringLiteral("guard: %1 %2%3 (bound %4%3): %5")
                 .arg(what, f(value, unit.isEmpty() ? 0 : 1), suffix, f(bound, 0),
                      ok ? QStringLiteral("ok") : QStringLiteral("FAILED")));
    return ok;
}

/*! Whether every check of g_guard holds for the run's window; each is printed. */
bool guardHolds(const ScaleRun &r, const Footprint &fp, int elections)
{
    bool ok = guardCheck(QStringLiteral("step-downs"), r.stopped, 0, QString());
    ok = guardCheck(QStringLiteral("elections not renewed in the window"),
                    elections - int(r.lastRenewal.size()), 0, QString()) && ok;
    if (g_guard.maxCpuPercent >= 0)
        ok = guardCheck(QStringLiteral("CPU"), fp.cpuPercent(), g_guard.maxCpuPercent, QStringLiteral("% of a core")) && ok;
    if (g_guard.maxRssMb >= 0)
        ok = guardCheck(QStringLiteral("RSS max"), fp.rssMb.max(), g_guard.maxRssMb, QStringLiteral("MB")) && ok;
    if (g_guard.maxGapMs >= 0)
        ok = guardCheck(QStringLiteral("worst gap between two renewals"), r.worstGap, g_guard.maxGapMs, QStringLiteral("ms")) && ok;
    return ok;
}

/*! How a scale run's elections renew, and on which Registry. */
struct ScaleSetup
{
    QJsonObject registry;
    qint64 leaseMs = 10000;
    qint64 renewMs = 1000;
    /*! Thousands of leases in one file store folder: the target is every renewal on time, no step-down. */
    bool oneFolder = false;
    /*! Elections on Kubernetes Leases instead (no Registry): the kubeconfig they use. */
    QString kubeconfig;
    /*! Called as the measured window starts. */
    std::function<void()> windowStarts;
    /*! The store's requests in the window, \a renewed renewals in it: a line below the table, with its verdict. */
    std::function<QString(int renewed)> requestsSeen;
};

QString scaleConfig(const ScaleSetup &setup, int elections, const QString &prefix)
{
    QJsonObject services;
    if (setup.kubeconfig.isEmpty())
        services.insert(QStringLiteral("Registry"), setup.registry);
    for (int i = 0; i < elections; ++i) {
        const QString name = QStringLiteral("%1-%2").arg(prefix).arg(i, 5, 10, QLatin1Char('0'));
        QJsonObject cluster = storeCluster(name, setup.leaseMs, setup.renewMs);
        if (!setup.kubeconfig.isEmpty()) {
            cluster.insert(QStringLiteral("type"), QStringLiteral("Webda/KubernetesClusterService"));
            cluster.insert(QStringLiteral("config"), setup.kubeconfig);
        }
        services.insert(QStringLiteral("cluster-%1").arg(i, 5, 10, QLatin1Char('0')), cluster);
    }
    return writeConfig(prefix, services);
}

int scale(const ScaleSetup &setup, int elections, int seconds, const QString &callgrindOut)
{
    const QString prefix = uniqueName(QStringLiteral("scale%1").arg(elections));
    const QString config = scaleConfig(setup, elections, prefix);
    ScaleRun run;
    QStringList arguments {QStringLiteral("join"), QStringLiteral("--config"), config,
                           QStringLiteral("--events"), QStringLiteral("json")};
    const bool callgrind = !callgrindOut.isEmpty();
    if (callgrind)
        run.start(QStringLiteral("valgrind"),
                  QStringList {QStringLiteral("--tool=callgrind"), QStringLiteral("--instr-atstart=no"),
                               QStringLiteral("--callgrind-out-file=") + callgrindOut, g_baton}
                          + arguments);
    else
        run.start(g_baton, arguments);
    // The guard is a test: it fails in bounded time, the stop included.
    // Thousands of elections take a while to load and to acquire, on the
    // file store one write after another.
    const int leadTimeoutMs = callgrind ? 300000 : std::max(g_guard.on() ? 90000 : 120000, elections * 60);
    const int stopTimeoutMs = g_guard.on() ? 30000 : 120000;
    // Every election leading at once: a start that made some step down and
    // take their lease again has not settled yet.
    if (!waitFor([&] { return run.leading >= elections; }, leadTimeoutMs)) {
        note(QStringLiteral("scale: %1 of %2 leading; %3").arg(run.leading).arg(elections).arg(run.state()));
        out(QStringLiteral("| %1 | – | – | %2 since the start | – | – | – | – | – | never all leading at once within "
                           "%3 s (%4 not leading then): %5 |")
                    .arg(elections).arg(run.stopped).arg(leadTimeoutMs / 1000).arg(elections - run.leading)
                    .arg(verdict(false)));
        if (g_guard.on())
            note(QStringLiteral("guard: %1 of %2 elections leading after %3 s: FAILED")
                         .arg(run.leading).arg(elections).arg(leadTimeoutMs / 1000));
        run.stop(stopTimeoutMs);
        return 1;
    }
    // One full renewal round before the window, so every lease has a last renewal.
    runFor(int(setup.renewMs) + 500);
    run.resetWindow();
    if (setup.windowStarts)
        setup.windowStarts();
    if (callgrind)
        QProcess::execute(QStringLiteral("callgrind_control"), {QStringLiteral("-i"), QStringLiteral("on"),
                                                                QString::number(run.pid())});
    // etcd's own CPU beside ours, when the script says which process it is.
    const qint64 etcdPid = setup.kubeconfig.isEmpty() ? qEnvironmentVariableIntValue("BATON_BENCH_ETCD_PID") : 0;
    Footprint fp;
    Footprint etcdFp;
    std::vector<std::pair<qint64, Footprint *>> measured {{run.pid(), &fp}};
    if (etcdPid > 0)
        measured.push_back({etcdPid, &etcdFp});
    measureFootprints(measured, seconds);
    const int renewed = run.renewed;
    if (callgrind)
        QProcess::execute(QStringLiteral("callgrind_control"), {QStringLiteral("-d"), QString::number(run.pid())});
    const ScaleRun &r = run;
    const bool onTime = r.deadline == 0 && r.stopped == 0;
    const double expected = double(elections) * fp.seconds * 1000.0 / double(setup.renewMs);
    QString verdicts = QStringLiteral("–");
    // Issue #26's targets: 1,000 elections renew on time cheaply; 10,000
    // (renewing every 5 s) keep their leases within a core.
    // Leases taken in a burst renew in bursts: with a 10 s renewInterval a
    // window cuts one, and the count of renewals says more of the window
    // than of the store. On time is every lease renewed within the window
    // and no gap past 1.2 renewIntervals.
    // On Kubernetes the issue asks requests per renewal (below the row) and
    // renewals on time; the CPU and memory figures are shown without a target.
    if (!setup.kubeconfig.isEmpty())
        verdicts = QStringLiteral("renewals ≥ 99.9 % of due: %1; worst gap < 1.2 × renewInterval: %2; "
                                  "no step-down: %3")
                           .arg(verdict(double(renewed) >= 0.999 * expected),
                                verdict(r.worstGap < 1.2 * double(setup.renewMs)), verdict(r.stopped == 0));
    else if (setup.oneFolder)
        verdicts = QStringLiteral("every lease renewed in the window: %1; worst gap < 1.2 × renewInterval: %2; "
                                  "no step-down: %3")
                           .arg(verdict(int(r.lastRenewal.size()) == elections),
                                verdict(r.worstGap < 1.2 * double(setup.renewMs)), verdict(r.stopped == 0));
    else if (elections >= 10000)
        verdicts = QStringLiteral("no step-down: %1; CPU < 1 core: %2; RSS < 256 MB: %3")
                           .arg(verdict(r.stopped == 0), verdict(fp.cpuPercent() < 100.0),
                                verdict(fp.rssMb.max() < 256.0));
    else if (elections >= 1000)
        verdicts = QStringLiteral("renewals ≥ 99.9 % of due: %1; worst gap < 1.2 × renewInterval: %2; "
                                  "no step-down: %3; CPU < 10 %: %4; RSS < 64 MB: %5")
                           .arg(verdict(double(renewed) >= 0.999 * expected),
                                verdict(r.worstGap < 1.2 * double(setup.renewMs)), verdict(r.stopped == 0),
                                verdict(fp.cpuPercent() < 10.0), verdict(fp.rssMb.max() < 64.0));
    out(QStringLiteral("| %1 | %2 | %3 | %4 | %5 (%6) | %7 | %8 | %9 | %10 | %11 |")
                .arg(elections).arg(int(fp.seconds))
                .arg(QStringLiteral("%1 / %2").arg(renewed).arg(qint64(expected)))
                .arg(QStringLiteral("%1 (%2 deadline)").arg(r.stopped).arg(r.deadline))
                .arg(f(r.latency.median(), 0), f(r.latency.q(0.99), 0))
                .arg(f(r.worstGap, 0))
                .arg(f(fp.cpuPercent(), 2))
                .arg(etcdPid > 0 ? f(etcdFp.cpuPercent(), 2) : QStringLiteral("–"))
                .arg(QStringLiteral("%1 (max %2)").arg(f(fp.rssMb.median()), f(fp.rssMb.max())))
                .arg(verdicts));
    if (setup.requestsSeen) {
        out(QLatin1Char('\n') + setup.requestsSeen(renewed));
    }
    note(QStringLiteral("scale %1: on time %2, errors %3, renewals %4").arg(elections).arg(onTime).arg(r.errors).arg(renewed));
    if (callgrind)
        std::fprintf(stderr, "callgrind-renewals %d\n", renewed);
    const bool held = !g_guard.on() || guardHolds(r, fp, elections);
    run.stop(stopTimeoutMs);
    return held ? 0 : 1;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QTemporaryDir folder;
    g_folder = &folder;
    g_baton = qEnvironmentVariable("BATON_BINARY");
    if (g_baton.isEmpty())
        g_baton = QCoreApplication::applicationDirPath() + QStringLiteral("/../../app/baton");
    QStringList args = app.arguments().mid(1);
    // --check: the exit status says whether every target of the section was
    // met (1 when one was not); without it, only a failed run is an error.
    const bool check = args.removeAll(QStringLiteral("--check")) > 0;
    for (const QString &arg : args.filter(QRegularExpression(QStringLiteral("^--max-")))) {
        bool number = false;
        const double bound = arg.section(QLatin1Char('='), 1).toDouble(&number);
        if (!number) {
            std::fprintf(stderr, "bench_election: %s: the bound must be a number\n", qPrintable(arg));
            return 2;
        }
        if (arg.startsWith(QLatin1String("--max-cpu=")))
            g_guard.maxCpuPercent = bound;
        else if (arg.startsWith(QLatin1String("--max-rss=")))
            g_guard.maxRssMb = bound;
        else if (arg.startsWith(QLatin1String("--max-gap=")))
            g_guard.maxGapMs = bound;
        else {
            std::fprintf(stderr, "bench_election: unknown option %s\n", qPrintable(arg));
            return 2;
        }
        args.removeAll(arg);
    }
    const QString command = args.value(0);
    const QString endpoint = args.value(1).section(QLatin1Char(','), 0, 0);
    if (command.isEmpty() || endpoint.isEmpty()) {
        std::fputs("usage: bench_election [--check] handover|handover-to|failover|requests|footprint|scale ENDPOINT ...\n"
                   "       bench_election [--max-cpu=PERCENT] [--max-rss=MB] [--max-gap=MS] scale ENDPOINT|file ELECTIONS SECONDS [RENEW_MS [LEASE_MS]]\n"
                   "       bench_election [--check] scale-file FOLDER ELECTIONS SECONDS [RENEW_MS]\n"
                   "       bench_election [--check] scale-kube ELECTIONS SECONDS [RENEW_MS [LEASE_MS]]\n"
                   "  (BATON_BINARY: the baton to measure)\n",
                   stderr);
        return 2;
    }
    int status = 2;
    if (command == QLatin1String("handover")) {
        status = handover(endpoint, args.value(2, QStringLiteral("15")).toInt());
    } else if (command == QLatin1String("handover-to")) {
        status = handoverTo(endpoint, args.value(2, QStringLiteral("10")).toInt());
    } else if (command == QLatin1String("failover")) {
        status = failover(endpoint, args.value(2, QStringLiteral("12")).toInt());
    } else if (command == QLatin1String("requests")) {
        status = requests(endpoint);
    } else if (command == QLatin1String("footprint")) {
        status = footprint(endpoint, args.value(2, QStringLiteral("600")).toInt());
    } else if (command == QLatin1String("scale")) {
        const int callgrindAt = args.indexOf(QStringLiteral("--callgrind"));
        // `file`: a FileStore in a private folder, the perfguard's.
        const QJsonObject registry = endpoint == QLatin1String("file")
                ? QJsonObject {{QStringLiteral("type"), QStringLiteral("Webda/FileStore")},
                               {QStringLiteral("folder"), g_folder->filePath(QStringLiteral("registry"))}}
                : etcdRegistry(endpoint, 0);
        // Issue #26's 10,000 elections renew every 5 s on a lease of 15 s.
        ScaleSetup setup;
        setup.registry = registry;
        const QString renew = args.value(4);
        if (!renew.isEmpty() && !renew.startsWith(QLatin1String("--"))) {
            setup.renewMs = renew.toLongLong();
            const QString lease = args.value(5);
            setup.leaseMs = !lease.isEmpty() && !lease.startsWith(QLatin1String("--"))
                    ? lease.toLongLong()
                    : setup.renewMs * 10;
        }
        status = scale(setup, args.value(2, QStringLiteral("1000")).toInt(),
                       args.value(3, QStringLiteral("600")).toInt(),
                       callgrindAt > 0 ? args.value(callgrindAt + 1) : QString());
    } else if (command == QLatin1String("scale-kube")) {
        // Issue #26: one participant with a thousand Leases on the test
        // Lease API server (in this process), its account as in `requests`:
        // Leases yes, candidate ConfigMaps no.
        test::LeaseApiServer server;
        test::TestCertificates certificates;
        QString error;
        if (!startLeaseApiServer(&server, &certificates, g_folder->filePath(QStringLiteral("scale-certs")), &error)) {
            std::fprintf(stderr, "bench_election scale-kube: Lease API server: %s\n", qPrintable(error));
            return 1;
        }
        const QString user = QStringLiteral("scale");
        server.addToken(QStringLiteral("token-scale"), user,
                        {QStringLiteral("get"), QStringLiteral("create"), QStringLiteral("update"),
                         QStringLiteral("list"), QStringLiteral("watch")});
        ScaleSetup setup;
        setup.kubeconfig = writeKubeconfig(QStringLiteral("kubeconfig-scale"), server, certificates,
                                           QStringLiteral("token-scale"));
        const QString renew = args.value(3);
        if (!renew.isEmpty() && !renew.startsWith(QLatin1String("--"))) {
            setup.renewMs = renew.toLongLong();
            const QString lease = args.value(4);
            setup.leaseMs = !lease.isEmpty() && !lease.startsWith(QLatin1String("--")) ? lease.toLongLong()
                                                                                          : setup.renewMs * 10;
        }
        setup.windowStarts = [&server] { server.resetCounters(); };
        setup.requestsSeen = [&server, user](int renewed) {
            const QJsonObject verbs = server.counters().value(user).toObject();
            int total = 0;
            QMap<QString, int> counts;
            for (auto it = verbs.begin(); it != verbs.end(); ++it) {
                total += it.value().toInt();
                counts[it.key()] = it.value().toInt();
            }
            const double perRenewal = renewed > 0 ? double(total) / renewed : 0;
            return QStringLiteral("Requests in the window: **%1 per renewal** (%2), from the test Lease API "
                                  "server's counters; target ≤ 1: %3\n")
                    .arg(f(perRenewal, 2), describeCounts(counts, double(std::max(renewed, 1))),
                         verdict(renewed > 0 && perRenewal <= 1.0));
        };
        // The ELECTIONS argument comes where the others have ENDPOINT.
        status = scale(setup, args.value(1).toInt(), args.value(2, QStringLiteral("60")).toInt(), QString());
    } else if (command == QLatin1String("scale-file")) {
        // Every lease in one folder (issue #26): what each renewal costs
        // must not grow with the leases beside it. A renewal syncs its file
        // and the folder, so on a disk the sync rate bounds the leases; a
        // folder on tmpfs measures the store's own work.
        const int callgrindAt = args.indexOf(QStringLiteral("--callgrind"));
        ScaleSetup setup;
        setup.registry = QJsonObject {{QStringLiteral("type"), QStringLiteral("Webda/FileStore")},
                                      {QStringLiteral("folder"), args.value(1)}};
        const QString renew = args.value(4);
        if (!renew.isEmpty() && !renew.startsWith(QLatin1String("--")))
            setup.renewMs = renew.toLongLong();
        setup.leaseMs = setup.renewMs * 10;
        setup.oneFolder = true;
        status = scale(setup, args.value(2, QStringLiteral("1000")).toInt(),
                       args.value(3, QStringLiteral("60")).toInt(),
                       callgrindAt > 0 ? args.value(callgrindAt + 1) : QString());
    } else {
        std::fprintf(stderr, "bench_election: unknown section \"%s\"\n", qPrintable(command));
        return 2;
    }
    if (status != 0)
        return status;
    std::fprintf(stderr, "bench_election %s: targets met %d, not met %d\n", qPrintable(command),
                 g_targetsMet, g_targetsMissed);
    return check && g_targetsMissed > 0 ? 1 : 0;
}
