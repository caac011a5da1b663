// What `baton join` tells systemd costs the same per event whether it takes
// part in ten elections or a thousand (P3: each election is its own, and
// one process may hold many): the work is counted, never timed. An event
// formats its own election's part of STATUS= only; renewals, which change
// nothing shown, build no line; a line goes at most once a second of the
// boot clock and carries every change since the last; without NOTIFY_SOCKET
// nothing is formatted at all. The lines are read from a datagram socket
// this test binds and names in NOTIFY_SOCKET, as systemd does.

#include "storecluster.h"
#include "systemdnotifier.h"
#include "testsupport.h"

#include "manualclock.h"

#include <QFile>
#include <QLoggingCategory>
#include <QTemporaryDir>
#include <QTest>

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

using namespace baton;
using baton::test::StoreCluster;

namespace {

/*!
 * The systemd side of sd_notify: a bound AF_UNIX datagram socket and the
 * STATUS= lines it got. Read by a thread of its own, as systemd reads
 * apart from baton: a sender that floods it blocks on a full socket, never
 * on this test's event loop.
 */
class StatusSocket
{
public:
    explicit StatusSocket(const QString &path)
    {
        m_fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        sockaddr_un address {};
        address.sun_family = AF_UNIX;
        const QByteArray encoded = QFile::encodeName(path);
        if (m_fd < 0 || size_t(encoded.size()) >= sizeof(address.sun_path))
            return;
        std::memcpy(address.sun_path, encoded.constData(), size_t(encoded.size()));
        if (::bind(m_fd, reinterpret_cast<const sockaddr *>(&address), sizeof(address)) != 0)
            return;
        m_reader = std::thread([this] { read(); });
    }
    ~StatusSocket()
    {
        m_stop = true;
        if (m_reader.joinable())
            m_reader.join();
        if (m_fd >= 0)
            ::close(m_fd);
    }
    bool isListening() const { return m_reader.joinable(); }
    QStringList statuses() const
    {
        const std::lock_guard lock(m_mutex);
        return m_statuses;
    }

private:
    void read()
    {
        // A line of a thousand elections is tens of kilobytes.
        QByteArray buffer(1 << 20, Qt::Uninitialized);
        while (!m_stop) {
            pollfd readable {m_fd, POLLIN, 0};
            if (::poll(&readable, 1, 50) <= 0)
                continue;
            const ssize_t size = ::recv(m_fd, buffer.data(), size_t(buffer.size()), 0);
            if (size <= 0)
                continue;
            const QStringList lines = QString::fromUtf8(buffer.constData(), qsizetype(size))
                                              .split(QLatin1Char('\n'), Qt::SkipEmptyParts);
            const std::lock_guard lock(m_mutex);
            for (const QString &line : lines)
                if (line.startsWith(QLatin1String("STATUS=")))
                    m_statuses.append(line.mid(7));
        }
    }

    int m_fd = -1;
    std::atomic_bool m_stop = false;
    mutable std::mutex m_mutex;
    QStringList m_statuses;
    std::thread m_reader;
};

/*! NOTIFY_SOCKET as this scope says (unset when \a path is empty), restored after. */
class NotifySocketVariable
{
public:
    explicit NotifySocketVariable(const QString &path)
        : m_old(qgetenv("NOTIFY_SOCKET"))
        , m_wasSet(qEnvironmentVariableIsSet("NOTIFY_SOCKET"))
    {
        if (path.isEmpty())
            qunsetenv("NOTIFY_SOCKET");
        else
            qputenv("NOTIFY_SOCKET", QFile::encodeName(path));
    }
    ~NotifySocketVariable()
    {
        if (m_wasSet)
            qputenv("NOTIFY_SOCKET", m_old);
        else
            qunsetenv("NOTIFY_SOCKET");
    }

private:
    QByteArray m_old;
    bool m_wasSet;
};

/*!
 * \a count elections of one instance each on a memory store, followed by
 * a notifier, with what each emits counted: renewals apart, and every
 * record that changes what STATUS= shows apart.
 */
class Elections
{
public:
    Elections(int count, SystemdNotifier *notifier)
        : m_store(test::makeStore())
    {
        // Long enough that no renewal of a thousand comes too late on a
        // loaded machine: the counts below are of renewals, not of losses.
        const test::ClusterTimings timings {test::scaledMs(8000), test::scaledMs(1000)};
        for (int i = 0; i < count; ++i) {
            // Zero-padded: no lease name starts another's.
            const QString lease = QStringLiteral("lease-%1").arg(i, 4, 10, QLatin1Char('0'));
            m_clusters.push_back(std::make_unique<StoreCluster>(m_store.get(), QStringLiteral("me"), lease, timings));
            StoreCluster *cluster = m_clusters.back().get();
            QString error;
            if (!cluster->validate(&error))
                qFatal("%s", qPrintable(error));
            notifier->follow(cluster);
            QObject::connect(cluster, &ClusterService::electionEvent, cluster, [this](const QJsonObject &event) {
                ++events;
                const QString name = event.value(QStringLiteral("event")).toString();
                if (name == QLatin1String("attempt")
                    && event.value(QStringLiteral("outcome")).toString() == QLatin1String("renewed"))
                    ++renewals;
                else if (name != QLatin1String("attempt"))
                    ++changes;
            });
        }
    }
    ~Elections()
    {
        for (const auto &cluster : m_clusters)
            cluster->stop();
        m_clusters.clear();
    }

    bool start()
    {
        QString error;
        for (const auto &cluster : m_clusters)
            if (!cluster->init(&error))
                return false;
        return true;
    }
    bool allLead() const
    {
        return std::all_of(m_clusters.cbegin(), m_clusters.cend(),
                           [](const auto &cluster) { return cluster->isLeader(); });
    }
    const std::vector<std::unique_ptr<StoreCluster>> &clusters() const { return m_clusters; }

    quint64 events = 0;
    quint64 renewals = 0;
    /*! Records other than attempts: leadership and holder changes. */
    quint64 changes = 0;

private:
    std::unique_ptr<MemoryStore> m_store;
    std::vector<std::unique_ptr<StoreCluster>> m_clusters;
};

/*! What one window of renewals of \a count elections cost the notifier. */
struct Work
{
    quint64 renewals = 0;
    quint64 events = 0;
    quint64 changes = 0;
    quint64 partsFormatted = 0;
    quint64 linesBuilt = 0;
    double partsPerRenewal() const { return renewals ? double(partsFormatted) / double(renewals) : qQNaN(); }
};

} // namespace

class TestSystemdNotifier : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void aRenewalCostsTheSameWithTenElectionsAsWithAThousand();
    void withoutNotifySocketNothingIsFormatted();
    void aLineWaitsASecondOfTheBootClockAndCarriesEveryChange();

private:
    /*! Renewals of \a count elections until each renewed about twice, counted. */
    Work measure(int count);

    QTemporaryDir m_folder;
};

void TestSystemdNotifier::initTestCase()
{
    QVERIFY(m_folder.isValid());
    // A thousand elections say a thousand times who leads.
    QLoggingCategory::setFilterRules(QStringLiteral("baton.*.info=false"));
}

Work TestSystemdNotifier::measure(int count)
{
    StatusSocket socket(m_folder.filePath(QStringLiteral("notify-%1").arg(count)));
    if (!socket.isListening())
        qFatal("cannot bind the notify socket");
    NotifySocketVariable variable(m_folder.filePath(QStringLiteral("notify-%1").arg(count)));
    SystemdNotifier notifier;
    Elections elections(count, &notifier);
    if (!elections.start())
        qFatal("the elections did not start");
    notifier.ready();
    // Once every election leads, and the line that says so went.
    const auto settled = [&] {
        return elections.allLead() && !socket.statuses().isEmpty()
                && socket.statuses().constLast().count(QLatin1String("leading ")) == count;
    };
    if (!QTest::qWaitFor(settled, int(test::scaledMs(60000))))
        qFatal("%d elections did not all lead and say so", count);

    Work work;
    const quint64 renewals = elections.renewals;
    const quint64 events = elections.events;
    const quint64 changes = elections.changes;
    const quint64 parts = notifier.statusPartsFormatted();
    const quint64 lines = notifier.statusLinesBuilt();
    if (!QTest::qWaitFor([&] { return elections.renewals - renewals >= quint64(2 * count); },
                         int(test::scaledMs(60000))))
        qFatal("%d elections did not renew", count);
    work.renewals = elections.renewals - renewals;
    work.events = elections.events - events;
    work.changes = elections.changes - changes;
    work.partsFormatted = notifier.statusPartsFormatted() - parts;
    work.linesBuilt = notifier.statusLinesBuilt() - lines;
    qInfo("%d elections: %llu renewals, %llu events, %llu changes, %llu parts formatted, %llu lines built", count,
          work.renewals, work.events, work.changes, work.partsFormatted, work.linesBuilt);
    return work;
}

void TestSystemdNotifier::aRenewalCostsTheSameWithTenElectionsAsWithAThousand()
{
    // P3: a renewal of one election formats that election's part of
    // STATUS= and nothing else, whatever the number of elections; a line
    // was once rebuilt from all of them on every attempt of any.
    const Work ten = measure(10);
    const Work thousand = measure(1000);
    QVERIFY(ten.renewals > 0 && thousand.renewals > 0);
    QCOMPARE(thousand.partsPerRenewal(), ten.partsPerRenewal());
    QCOMPARE(ten.partsPerRenewal(), 1.0);
    // Every record in the windows is a renewal: what is counted is theirs.
    QCOMPARE(ten.events, ten.renewals);
    QCOMPARE(thousand.events, thousand.renewals);
    // A renewal changes nothing shown: no line is put together for it.
    QCOMPARE(ten.linesBuilt, quint64(0));
    QCOMPARE(thousand.linesBuilt, quint64(0));
}

void TestSystemdNotifier::withoutNotifySocketNothingIsFormatted()
{
    // O3: sd_notify sends nothing without NOTIFY_SOCKET: neither is a
    // STATUS= made for it, however many elections change.
    NotifySocketVariable variable {QString()};
    SystemdNotifier notifier;
    QVERIFY(!notifier.isNotifying());
    Elections elections(10, &notifier);
    QVERIFY(elections.start());
    notifier.ready();
    QTRY_VERIFY_WITH_TIMEOUT(elections.allLead() && elections.renewals >= 20, int(test::scaledMs(60000)));
    QCOMPARE(notifier.statusPartsFormatted(), quint64(0));
    QCOMPARE(notifier.statusLinesBuilt(), quint64(0));
}

void TestSystemdNotifier::aLineWaitsASecondOfTheBootClockAndCarriesEveryChange()
{
    // O3: a hundred elections acquiring at once make one line, not a
    // hundred; it goes once a second of the boot clock passed since the
    // last, and says every election's state.
    const QString path = m_folder.filePath(QStringLiteral("notify-clock"));
    StatusSocket socket(path);
    QVERIFY(socket.isListening());
    NotifySocketVariable variable(path);
    test::ManualClock clock;
    SystemdNotifier notifier(nullptr, &clock);
    QVERIFY(notifier.isNotifying());
    Elections elections(100, &notifier);
    notifier.ready(); // before the start: the first line says none leads yet
    QTRY_COMPARE_WITH_TIMEOUT(socket.statuses().size(), 1, 20000);
    QVERIFY(socket.statuses().constFirst().startsWith(QLatin1String("no leader of lease-0000 yet; ")));
    QVERIFY(elections.start());
    QTRY_VERIFY_WITH_TIMEOUT(elections.allLead(), int(test::scaledMs(60000)));
    // Every part changed, and the clock has not moved: nothing was sent yet.
    QCOMPARE(notifier.statusLinesBuilt(), quint64(1));
    QCOMPARE(socket.statuses().size(), 1);

    clock.advance(SystemdNotifier::kStatusIntervalMs);
    QTRY_COMPARE_WITH_TIMEOUT(socket.statuses().size(), 2, 20000);
    QStringList expected;
    for (const auto &cluster : elections.clusters())
        expected.append(QStringLiteral("leading %1, token %2").arg(cluster->leaseName()).arg(cluster->fencingToken()));
    QCOMPARE(socket.statuses().constLast(), expected.join(QStringLiteral("; ")));
    QCOMPARE(notifier.statusLinesBuilt(), quint64(2));
}

QTEST_GUILESS_MAIN(TestSystemdNotifier)
#include "tst_systemdnotifier.moc"
