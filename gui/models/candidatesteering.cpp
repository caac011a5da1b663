#include "candidatesteering.h"

#include "leasetablemodel.h"

#include <batoninternal/observercandidatebook.h>
#include <baton/clock.h>
#include <baton/leaseobserver.h>

#include <QSysInfo>

#include <pwd.h>
#include <unistd.h>

namespace baton {

namespace {

// The candidate rewrites its record every heartbeat: a drain may lose a
// race with it, and wins on the next read.
constexpr int drainAttempts = 4;

} // namespace

CandidateSteering::CandidateSteering(LeaseObserver *observer, QObject *parent)
    : QObject(parent)
    , m_observer(observer)
{
}

QString CandidateSteering::requester()
{
    const passwd *entry = getpwuid(getuid());
    const QString user = entry ? QString::fromLocal8Bit(entry->pw_name) : QString::number(getuid());
    return QStringLiteral("%1@%2 (dashboard)").arg(user, QSysInfo::machineHostName());
}

CandidateBook *CandidateSteering::openBook(const QString &lease, QString *errorString)
{
    if (!m_observer) {
        *errorString = tr("No connection is open.");
        return nullptr;
    }
    if (m_observer->store())
        return new CandidateBook(m_observer->store(), lease, this);
    CandidateBook *book = openCandidateBook(m_observer, lease, this, errorString);
    if (!book)
        *errorString = tr("Cannot reach the candidates of %1: %2").arg(lease, *errorString);
    return book;
}

void CandidateSteering::setDrained(const QString &lease, const QString &instance, bool drained, const QString &by,
                                   Done done)
{
    QString error;
    CandidateBook *book = openBook(lease, &error);
    if (!book) {
        done(false, error);
        return;
    }
    // The book goes with the last answer.
    Done finish = [book, done = std::move(done)](bool ok, const QString &message) {
        book->deleteLater();
        done(ok, message);
    };
    attempt(book, Drain {lease, instance, drained, by}, drainAttempts, finish);
}

void CandidateSteering::attempt(CandidateBook *book, const Drain &drain, int attemptsLeft, const Done &done)
{
    book->read(drain.instance, [this, book, drain, attemptsLeft, done](bool ok, const std::optional<CandidateRecord> &stored,
                                                                       const QString &error) {
        if (!ok) {
            done(false, tr("Cannot read the record of %1 for %2: %3").arg(drain.instance, drain.lease, error));
            return;
        }
        // A drain over the mark of a `--standby` start records the operator, as `baton drain` does.
        const bool standbyOnly = stored && stored->drained && stored->drainedBy == QLatin1String("standby");
        if (stored && stored->drained == drain.drained && !(drain.drained && standbyOnly)) {
            done(true, drain.drained ? tr("%1 was drained for %2 already.").arg(drain.instance, drain.lease)
                                     : tr("%1 was not drained for %2.").arg(drain.instance, drain.lease));
            return;
        }
        if (!stored && !drain.drained) {
            done(true, tr("%1 has no record for %2: it is not drained.").arg(drain.instance, drain.lease));
            return;
        }
        CandidateRecord next;
        if (stored) {
            next = *stored;
        } else {
            // Drained before it ever started: it comes up drained.
            next.instance = drain.instance;
            next.left = true;
            next.heartbeatIntervalMs = 0;
        }
        next.drained = drain.drained;
        next.drainedBy = drain.drained ? drain.by : QString();
        next.drainedAt = drain.drained && m_observer ? m_observer->clock().wallNow() : QDateTime();
        write(book, drain, stored, next, attemptsLeft, done);
    });
}

void CandidateSteering::write(CandidateBook *book, const Drain &drain, const std::optional<CandidateRecord> &stored,
                              const CandidateRecord &next, int attemptsLeft, const Done &done)
{
    auto written = [this, book, drain, attemptsLeft, done](bool ok, const CandidateRecord &, const QString &error) {
        if (ok) {
            done(true, drain.drained ? tr("%1 is drained for %2.").arg(drain.instance, drain.lease)
                                     : tr("%1 is no longer drained for %2.").arg(drain.instance, drain.lease));
            return;
        }
        if (error.isEmpty() && attemptsLeft > 1) {
            attempt(book, drain, attemptsLeft - 1, done);
            return;
        }
        done(false, error.isEmpty()
                     ? tr("The record of %1 for %2 kept changing while it was written; nothing was changed. Try again.")
                               .arg(drain.instance, drain.lease)
                     : tr("Cannot write the record of %1 for %2: %3").arg(drain.instance, drain.lease, error));
    };
    if (stored)
        book->replace(*stored, next, written);
    else
        book->create(next, written);
}

void CandidateSteering::handOver(const QString &lease, const QString &to, const QString &by, Done done)
{
    if (!m_observer) {
        done(false, tr("No connection is open."));
        return;
    }
    m_observer->requestHandover(lease, to, by, std::move(done));
}

QString CandidateSteering::drainConsequence(const QString &lease, const CandidateRecord &record, bool leading,
                                            bool anotherCanLead, bool gone)
{
    const QString heartbeat = LeaseTableModel::formatDuration(record.heartbeatIntervalMs);
    if (gone)
        return tr("%1 is not running for %2 now. When it starts, it takes no lease while another candidate is live.")
                .arg(record.instance, lease);
    if (leading && anotherCanLead)
        return tr("%1 hands over %2 within one heartbeat (%3) and takes no lease while another candidate is live.")
                .arg(record.instance, lease, heartbeat);
    if (leading)
        return tr("%1 keeps leading %2 for now: no other candidate is live and not drained. It hands over within "
                  "one heartbeat (%3) of one coming, and takes no lease while another candidate is live.")
                .arg(record.instance, lease, heartbeat);
    return tr("%1 takes no lease of %2 while another candidate is live (within one heartbeat, %3). When no other "
              "candidate can lead, it still does.")
            .arg(record.instance, lease, heartbeat);
}

QString CandidateSteering::undrainConsequence(const QString &lease, const CandidateRecord &record, bool gone)
{
    if (gone)
        return tr("%1 is not running for %2 now. When it starts, it stands for the lease as any other candidate.")
                .arg(record.instance, lease);
    return tr("%1 stands for %2 again within one heartbeat (%3): it takes the lease when it is free, and takes it "
              "over from a leader of a lower priority.")
            .arg(record.instance, lease, LeaseTableModel::formatDuration(record.heartbeatIntervalMs));
}

QString CandidateSteering::handoverConsequence(const QString &lease, const QString &holder, const QString &to,
                                               qint64 leaseDurationMs)
{
    const QString duration = LeaseTableModel::formatDuration(leaseDurationMs);
    if (to == QLatin1String("*"))
        return tr("%1 stops its work for %2 and releases the lease; whichever candidate asks first leads next.")
                .arg(holder, lease);
    return tr("%1 stops its work for %2 and hands the lease to %3, which leads next; nobody else leads in between. "
              "Should %3 not take it, the lease stays free for at most %4.")
            .arg(holder, lease, to, duration);
}

} // namespace baton
