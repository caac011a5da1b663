#include <batoninternal/tickplanner.h>

#include <algorithm>

namespace baton {

using Kind = TickPlanner::Action::Kind;

TickPlanner::TickPlanner(Policy policy, QString instance)
    : m_policy(std::move(policy))
    , m_instance(std::move(instance))
{
}

QList<TickPlanner::Action> TickPlanner::leadershipStarted(qint64 token, const QDateTime &now)
{
    m_leading = true;
    m_token = token;
    realign(now);
    RunRecord asking;
    asking.token = token;
    return {Action{Kind::ReadRecords, asking, {}}};
}

QList<TickPlanner::Action> TickPlanner::leadershipEnded(const QDateTime &)
{
    m_leading = false;
    m_queued.reset();
    // A claim still unanswered is settled when its answer comes; a run
    // going must stop before the lease is released.
    if (m_current && m_started)
        return {Action{Kind::InterruptWork, *m_current, {}}};
    return {};
}

QList<TickPlanner::Action> TickPlanner::recordsListed(qint64 token, const QList<RunRecord> &records,
                                                      const QDateTime &now)
{
    QList<Action> actions;
    if (!m_leading || token != m_token)
        return actions;
    // Running under an earlier leadership: that leader's guard killed the
    // work before this instance could take the lease.
    QList<RunRecord> stale;
    for (const RunRecord &record : records)
        if (record.isRunning() && record.token != m_token)
            stale.append(record);
    std::optional<RunRecord> rerun;
    if (m_policy.onInterrupted == OnInterrupted::Rerun && !m_current) {
        if (!stale.isEmpty()) {
            rerun = stale.takeLast(); // the latest one only
        } else if (const auto newest = std::max_element(records.cbegin(), records.cend(),
                                                        [](const RunRecord &a, const RunRecord &b) {
                                                            return a.tick < b.tick;
                                                        });
                   newest != records.cend() && newest->outcome == RunRecord::interrupted
                   && newest->token != m_token) {
            // Settled "interrupted" by its own leader (a clean stop, a
            // step-down): the newest tick still owes its run as much as
            // one whose leader died.
            rerun = *newest;
        }
    }
    for (const RunRecord &record : std::as_const(stale)) {
        RunRecord settled = record;
        settled.outcome = RunRecord::interrupted;
        settled.end = now;
        actions.append({Kind::MarkInterrupted, settled, record});
    }
    const std::optional<QDateTime> missed = missedTick(records, now);
    if (rerun) {
        claim(QDateTime::fromString(rerun->tick, Qt::ISODate), rerun, now, actions);
        // The latest missed tick is owed its run too, after the rerun: a
        // backlog, not a tick that came during a run.
        if (missed && TickSchedule::tickName(*missed) != rerun->tick)
            m_queued = *missed;
        return actions;
    }
    if (missed)
        due(*missed, now, actions);
    return actions;
}

std::optional<QDateTime> TickPlanner::missedTick(const QList<RunRecord> &records, const QDateTime &now) const
{
    if (m_policy.catchUpMs <= 0)
        return std::nullopt;
    const QDateTime latest = m_policy.schedule.latestAtOrBefore(now);
    if (!latest.isValid() || latest.msecsTo(now) > m_policy.catchUpMs)
        return std::nullopt;
    const QString name = TickSchedule::tickName(latest);
    const bool started = std::any_of(records.cbegin(), records.cend(),
                                     [&name](const RunRecord &r) { return r.tick == name; });
    if (started || (m_current && m_current->tick == name))
        return std::nullopt;
    return latest;
}

QList<TickPlanner::Action> TickPlanner::timerFired(const QDateTime &now)
{
    QList<Action> actions;
    if (!m_leading)
        return actions;
    if (m_nextTick.isValid() && now >= m_nextTick) {
        const QDateTime tick = m_nextTick;
        m_nextTick = m_policy.schedule.nextAfter(std::max(now, tick));
        due(tick, now, actions);
    }
    realign(now);
    return actions;
}

QList<TickPlanner::Action> TickPlanner::claimAnswered(const RunRecord &record, ClaimAnswer answer,
                                                      const QDateTime &now)
{
    QList<Action> actions;
    const bool awaited = m_current && !m_started && m_current->tick == record.tick;
    if (answer != ClaimAnswer::Claimed) {
        if (awaited)
            m_current.reset();
        return actions;
    }
    if (awaited && m_leading && record.token == m_token) {
        m_current = record;
        m_started = true;
        actions.append({Kind::StartWork, record, {}});
        return actions;
    }
    // Written for a leadership that has ended since: nobody runs it, and
    // its record must not say "running" for ever.
    if (awaited)
        m_current.reset();
    RunRecord settled = record;
    settled.outcome = RunRecord::interrupted;
    settled.end = now;
    actions.append({Kind::MarkInterrupted, settled, record});
    return actions;
}

QList<TickPlanner::Action> TickPlanner::runEnded(const QString &outcome, const QDateTime &now)
{
    QList<Action> actions;
    if (!m_current || !m_started)
        return actions;
    RunRecord settled = *m_current;
    settled.outcome = outcome;
    settled.end = now;
    actions.append({Kind::Settle, settled, *m_current});
    m_current.reset();
    m_started = false;
    if (m_queued && m_leading) {
        const QDateTime next = *m_queued;
        m_queued.reset();
        due(next, now, actions);
    }
    return actions;
}

QDateTime TickPlanner::wakeAt() const
{
    return m_leading ? m_nextTick : QDateTime();
}

void TickPlanner::realign(const QDateTime &now)
{
    // A tick more than a second behind was not waited for (a clock set
    // forward, a host that slept): wait for the next one instead.
    if (!m_nextTick.isValid() || m_nextTick <= now.addSecs(-1))
        m_nextTick = m_policy.schedule.nextAfter(now);
}

void TickPlanner::due(const QDateTime &tick, const QDateTime &now, QList<Action> &actions)
{
    if (!m_current) {
        claim(tick, std::nullopt, now, actions);
        return;
    }
    const auto skip = [&](const QDateTime &skipped) {
        RunRecord record = freshRecord(TickSchedule::tickName(skipped), now);
        record.outcome = RunRecord::skipped;
        record.end = record.start;
        actions.append({Kind::RecordSkip, record, *m_current});
    };
    if (m_policy.overlap == Overlap::Queue) {
        if (m_queued)
            skip(*m_queued); // one tick waits at most: the newer one
        m_queued = tick;
        return;
    }
    skip(tick);
}

void TickPlanner::claim(const QDateTime &tick, const std::optional<RunRecord> &interrupted, const QDateTime &now,
                        QList<Action> &actions)
{
    RunRecord record = freshRecord(TickSchedule::tickName(tick), now);
    if (interrupted)
        record.attempt = interrupted->attempt + 1;
    m_current = record; // a tick that comes meanwhile finds this one going
    m_started = false;
    if (interrupted)
        actions.append({Kind::TakeOver, record, *interrupted});
    else
        actions.append({Kind::Claim, record, {}});
}

RunRecord TickPlanner::freshRecord(const QString &tick, const QDateTime &now) const
{
    RunRecord record;
    record.tick = tick;
    record.instance = m_instance;
    record.token = m_token;
    record.start = now;
    record.outcome = RunRecord::running;
    // A reader (the dashboard) tells the next tick and the missed ones from it.
    record.schedule = m_policy.schedule.text();
    return record;
}

} // namespace baton
