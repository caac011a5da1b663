#pragma once

#include <batoninternal/candidatebook.h>

#include <QObject>
#include <QPointer>

#include <functional>

namespace baton {

class LeaseObserver;

/*!
 * What the dashboard's operator can do to steer a lease, and what each
 * act will lead to, in plain words for the confirmation that comes first.
 * It never writes the lease's holder: a drain is a change of the
 * candidate's record (read, change, write back if unchanged, as `baton
 * drain` does), which the candidate acts on at its next heartbeat; a
 * handover is a request in the lease record (LeaseObserver::requestHandover),
 * which the holder acts on.
 */
class CandidateSteering : public QObject
{
    Q_OBJECT
public:
    /*! \a message says what was done, or what was wrong (then nothing was written). */
    using Done = std::function<void(bool ok, const QString &message)>;

    explicit CandidateSteering(LeaseObserver *observer, QObject *parent = nullptr);

    /*! Who asks, as the records keep it: `user@host (dashboard)`. */
    static QString requester();

    /*!
     * Drains \a instance for \a lease (or undrains it when \a drained is
     * false), asked by \a by. An instance without a record gets one that
     * says it left, so that it comes up drained. A write that lost a race
     * with the candidate's heartbeat is tried again, a few times.
     */
    void setDrained(const QString &lease, const QString &instance, bool drained, const QString &by, Done done);
    /*! Asks the holder of \a lease to hand it over to \a to (`*`: whoever takes it). */
    void handOver(const QString &lease, const QString &to, const QString &by, Done done);

    /*!
     * What draining \a record (a candidate for \a lease) leads to: \a leading
     * when it holds the lease, \a anotherCanLead when a live candidate that
     * is not drained could lead instead.
     */
    static QString drainConsequence(const QString &lease, const CandidateRecord &record, bool leading,
                                    bool anotherCanLead, bool gone);
    /*! What undraining \a record leads to. */
    static QString undrainConsequence(const QString &lease, const CandidateRecord &record, bool gone);
    /*!
     * What asking \a holder to hand \a lease (of \a leaseDurationMs) over to
     * \a to leads to; \a to `*`: to whoever takes it.
     */
    static QString handoverConsequence(const QString &lease, const QString &holder, const QString &to,
                                       qint64 leaseDurationMs);

private:
    CandidateBook *openBook(const QString &lease, QString *errorString);
    struct Drain
    {
        QString lease;
        QString instance;
        bool drained = false;
        QString by;
    };
    /*! One read-change-write of the record \a drain names; a lost race tries again while \a attemptsLeft. */
    void attempt(CandidateBook *book, const Drain &drain, int attemptsLeft, const Done &done);
    /*! Writes \a next over \a stored (absent: creates it) and answers \a done, or tries again. */
    void write(CandidateBook *book, const Drain &drain, const std::optional<CandidateRecord> &stored,
               const CandidateRecord &next, int attemptsLeft, const Done &done);

    QPointer<LeaseObserver> m_observer;
};

} // namespace baton
