#pragma once

#include "participantprocess.h"

#include <QSignalSpy>
#include <QString>
#include <QTest>

#include <csignal>
#include <functional>
#include <memory>
#include <vector>

namespace baton::test {

/*! One holder change the scenario caused: what a stored history must show. */
struct ExpectedChange
{
    QString from;
    QString to;
    QString why;
};

/*!
 * The failovers an operator finds in the morning (issue 18): three
 * participants of one lease, the leader killed (SIGKILL) twice, then the
 * third leader stopped cleanly (SIGTERM), handing over. Each killed one is
 * replaced at once by a new participant, as a supervisor would restart it,
 * so that three run throughout and the clean stop has a successor. Every
 * new leader is waited for through the participants' event streams.
 *
 * \a start starts the participant with that instance id (`baton join
 * --events json`); the scenario keeps what it returns. The bounds are
 * derived from \a leaseMs and \a renewMs (F6: a crash failover within a
 * lease and a renewal after the last renewal). After run(), changes() are
 * the four changes in order: first-acquire, expired, expired, released.
 */
class FailoverScenario
{
public:
    using Start = std::function<std::unique_ptr<ParticipantProcess>(const QString &instanceId)>;

    FailoverScenario(Start start, qint64 leaseMs, qint64 renewMs)
        : m_start(std::move(start))
        , m_leaseMs(leaseMs)
        , m_renewMs(renewMs)
    {
    }

    /*! Runs it; QTest failures on the way (check QTest::currentTestFailed()). */
    void run()
    {
        for (const QString &id : {QStringLiteral("p1"), QStringLiteral("p2"), QStringLiteral("p3")})
            add(id);
        // The first election: three processes starting, not a failover.
        QTRY_VERIFY_WITH_TIMEOUT(leader(), startupBoundMs());
        m_changes.append({QString(), leader()->instanceId(), QStringLiteral("first-acquire")});

        for (const QString &replacement : {QStringLiteral("p4"), QStringLiteral("p5")}) {
            ParticipantProcess *killed = leader();
            QVERIFY(killed);
            QSignalSpy died(killed, &ParticipantProcess::finished);
            killed->sendSignal(SIGKILL);
            QVERIFY(died.count() > 0 || died.wait(failoverBoundMs()));
            add(replacement);
            QTRY_VERIFY_WITH_TIMEOUT(leader(), startupBoundMs() + failoverBoundMs());
            m_changes.append({killed->instanceId(), leader()->instanceId(), QStringLiteral("expired")});
        }

        // F5: a clean stop releases; a follower takes the lease at once.
        ParticipantProcess *stopped = leader();
        QVERIFY(stopped);
        QSignalSpy exited(stopped, &ParticipantProcess::finished);
        stopped->sendSignal(SIGTERM);
        QVERIFY(exited.count() > 0 || exited.wait(failoverBoundMs()));
        QCOMPARE(stopped->exitCode(), 0);
        QTRY_VERIFY_WITH_TIMEOUT(leader(), failoverBoundMs());
        m_changes.append({stopped->instanceId(), leader()->instanceId(), QStringLiteral("released")});
    }

    QList<ExpectedChange> changes() const { return m_changes; }

    /*! The running leader, or none. */
    ParticipantProcess *leader() const
    {
        for (const auto &p : m_participants)
            if (p->isRunning() && p->isLeading())
                return p.get();
        return nullptr;
    }

    /*! SIGKILL to every participant still running (a test's cleanup). */
    void killAll()
    {
        for (const auto &p : m_participants)
            if (p->isRunning())
                p->sendSignal(SIGKILL);
        m_participants.clear();
    }

private:
    void add(const QString &id) { m_participants.push_back(m_start(id)); }
    /*! F6: the lease runs out, and a follower's next attempt takes it; twice, for a slow machine. */
    int failoverBoundMs() const { return int(2 * (m_leaseMs + m_renewMs)); }
    /*! A process starting has a lease to wait out before it may take a held lease (F2). */
    int startupBoundMs() const { return int(5 * m_leaseMs); }

    Start m_start;
    qint64 m_leaseMs;
    qint64 m_renewMs;
    std::vector<std::unique_ptr<ParticipantProcess>> m_participants;
    QList<ExpectedChange> m_changes;
};

} // namespace baton::test
