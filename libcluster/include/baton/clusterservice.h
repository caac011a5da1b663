#pragma once

#include <baton/baton_export.h>
#include <baton/leadercallback.h>
#include <baton/leaserecord.h>
#include <baton/remover.h>
#include <baton/service.h>

#include <QJsonObject>
#include <QString>

#include <memory>

namespace baton {

class ClusterServicePrivate;
class Clock;

/*!
 * Timings that follow from a configuration (O6), all in milliseconds.
 */
struct BATON_EXPORT ElectionTimings
{
    /*! How long a lease holds without a renewal (`leaseDuration`). */
    qint64 leaseDuration = 0;
    /*! How often the leader renews and a follower tries (`renewInterval`). */
    qint64 renewInterval = 0;
    /*! A crash is noticed at the latest this long after the leader's last renewal (F6). */
    qint64 worstCrashFailover = 0;
    /*! Where the store can watch, a clean stop hands over about this fast (F8). */
    qint64 cleanHandover = 0;
    /*! A leader stops leading this long after the start of its last successful attempt (F4). */
    qint64 stepDownDeadline = 0;
    /*! Between the leader's deadline and the earliest takeover by another instance. */
    qint64 safetyMargin = 0;
    /*! The relative clock-rate difference between hosts that the margin absorbs, e.g. 0.2 for 20 %. */
    double toleratedClockDrift = 0;

    /*! The timings that follow from \a leaseDuration and \a renewInterval, in milliseconds. */
    static ElectionTimings forParameters(qint64 leaseDuration, qint64 renewInterval);
    /*! Several lines a person can read, for logs and `--explain`. */
    QString explain() const;
};

/*!
 * Takes part in one election (one lease name) and runs the application's
 * leader work on the leader only.
 *
 * What it promises (the F rules of the contract): at most one instance leads a lease at a
 * time, provided the hosts' clocks run at rates within
 * ElectionTimings::toleratedClockDrift of each other; a leader that cannot
 * renew, or whose last successful attempt started more than
 * `(leaseDuration + renewInterval) / 2` ago, stops leading at once, and
 * isLeader() says so the moment it is called; a crashed leader is replaced
 * within `leaseDuration + renewInterval`; a leader that stops cleanly hands
 * over at once.
 *
 * What it cannot promise: that leader work which ignores isLeader() stops in
 * time, or that a write sent by an old leader arrives before its successor's.
 * Work that writes to an external system should carry fencingToken() and
 * have that system refuse a token lower than one it has seen.
 *
 * Callbacks run on the event loop of the thread that owns the service, or
 * of the context object's thread (C3, W6).
 */
class BATON_EXPORT ClusterService : public Service
{
    Q_OBJECT
    /*! isLeader(), for property bindings and QML. */
    Q_PROPERTY(bool leader READ isLeader NOTIFY leadershipChanged)
    /*! currentHolder(): the holder as last seen. */
    Q_PROPERTY(QString holder READ currentHolder NOTIFY holderChanged)
    /*! fencingToken(): changes only when leadership does. */
    Q_PROPERTY(qint64 fencingToken READ fencingToken NOTIFY leadershipChanged)
public:
    /*!
     * A service named \a name with its configuration \a parameters, owned by
     * \a application (or by nobody, in tests). Nothing starts before init().
     */
    ClusterService(const QString &name, const QJsonObject &parameters, Application *application);
    ~ClusterService() override;

    /*!
     * Runs \a fn each time this instance becomes the leader and \a
     * deregisteredFn each time it stops leading (W1-W5). Either may
     * return void or QFuture<void>; the two never overlap.
     */
    template<typename Fn, typename DeregisteredFn = std::nullptr_t>
    Remover whenLeader(Fn &&fn, DeregisteredFn &&deregisteredFn = nullptr)
    {
        return addRegistration(toLeaderCallback(std::forward<Fn>(fn)),
                               toLeaderCallback(std::forward<DeregisteredFn>(deregisteredFn)),
                               nullptr);
    }

    /*!
     * As whenLeader(fn, deregisteredFn), bound to \a context (W6): the
     * callbacks run in the context's thread, and the registration is removed
     * when the context is destroyed, with the rule of the remover: when `fn`
     * had run, `deregisteredFn` runs then, in the service's thread, and must
     * not use the context (it is gone). May be called from any thread.
     */
    template<typename Fn, typename DeregisteredFn = std::nullptr_t>
    Remover whenLeader(QObject *context, Fn &&fn, DeregisteredFn &&deregisteredFn = nullptr)
    {
        return addRegistration(toLeaderCallback(std::forward<Fn>(fn)),
                               toLeaderCallback(std::forward<DeregisteredFn>(deregisteredFn)),
                               context);
    }

    /*! Registers callbacks already in the library's shape. */
    Remover addRegistration(LeaderCallback fn, LeaderCallback deregisteredFn, QObject *context);

    /*!
     * Whether this instance leads now: compared with the step-down deadline
     * on the monotonic clock at the moment of the call (F4).
     */
    virtual bool isLeader() const;
    /*! This instance's identity in the election (C1): the `instanceId` parameter, or a generated one. */
    QString instanceId() const;
    /*!
     * An alias of instanceId(), kept for code written against the original
     * framework's API (Webda's `getInstanceId()`, C1); new code calls
     * instanceId().
     */
    QString getInstanceId() const { return instanceId(); }
    /*!
     * This run of the process: a random value drawn at start and written
     * beside the instance id in the lease record (R5). A record with this
     * instance's id but another incarnation belongs to another process, and
     * is taken only when it expires or is released. So a process restarted
     * with a fixed instanceId waits one lease duration, unless its earlier
     * run released the lease.
     */
    QString incarnation() const;
    /*!
     * How many times another process was seen holding the lease under this
     * instance's id: a configuration copied to several machines, or
     * containers with one fixed host name and pid.
     */
    int identityConflicts() const;
    /*! The name of the lease this service campaigns for. */
    QString leaseName() const;
    /*!
     * The lease's transition count when this instance became leader
     * (F7): strictly increasing across leaders of the lease. -1 while not
     * leading.
     */
    qint64 fencingToken() const;
    /*!
     * The lease's transition count (F7) as this instance last read it
     * from the store, leader or not; 0 before the first read. The number
     * `baton status` shows for the lease.
     */
    qint64 leaseTransitions() const;
    /*!
     * How long this instance still leads by its step-down deadline (F4), in
     * milliseconds on the monotonic clock, read at the moment of the call:
     * for work that must end with the authority by a clock of its own (the
     * `--exec` guard). 0 while not leading; -1 while leading where no lease
     * bounds the leadership (W8: the only instance, which nobody else can
     * replace).
     */
    qint64 remainingLeadershipMs() const;
    /*!
     * Hands the leadership over to the instance \a to, with no other
     * instance leading in between. The leader stops its work first, as for
     * stop(), then writes the lease free and kept for \a to alone for one
     * lease duration; should \a to be gone, anybody takes it after that.
     * Called on the leader, it begins at once; called elsewhere, it asks
     * the leader through the lease record, which makes nobody the holder.
     * \a to `"*"` asks for a plain release. Told in electionEvent() as
     * handover-requested, handed-over and reserved-for.
     */
    void handOver(const QString &to);
    /*! The holder as last seen, empty when the lease is free or unknown. */
    QString currentHolder() const;
    /*! The timings of this configuration (O6). */
    ElectionTimings timings() const;

    /*!
     * Checks the parameters without starting anything (P1): afterwards
     * leaseName(), instanceId() and timings() describe this configuration,
     * which is what `baton join --explain` prints. init() checks them again.
     */
    bool validate(QString *errorString);

    bool init(QString *errorString) override;
    /*!
     * Stops cleanly (F5): runs the deregistered callbacks when leading,
     * waits for them, releases the lease, then emits stopped(). The wait is
     * bounded, so a stop always ends: a leader waits never past its F4
     * deadline; a follower whose callbacks of its last term still run waits
     * until that term's lease has expired for the others (the deadline plus
     * the safety margin of timings()). A callback still running then is
     * logged and left running; the lease is left to expire. The release
     * leaves on a later turn of the event loop: quit after stopped(), not
     * in the call that stops.
     */
    void stop() override;

Q_SIGNALS:
    /*!
     * Emitted when this instance starts or stops leading, with the state at
     * the moment of emission, before the registrations' callbacks run: a
     * slot or an `fn` that calls stop() is followed by `false`, never by a
     * stale `true`. Such a slot does not make the signal nest: the `false`
     * follows once every receiver has had the `true`.
     */
    void leadershipChanged(bool leading);
    /*!
     * currentHolder() changed from \a previous to \a holder (either empty:
     * nobody), for \a why: a change of leader this instance judged, or
     * HolderChange::Seen for a holder read without one (the first read).
     * A new term under the same id (a process restarted with a fixed
     * instanceId) is told too, with \a previous equal to \a holder. Told
     * once the actions of the event that changed it are done; of several
     * changes in one event, the last.
     */
    void holderChanged(const QString &holder, const QString &previous, baton::HolderChange why);
    /*!
     * Another process holds the lease under this instance's id, with
     * incarnation \a theirIncarnation (empty when its record names none).
     * Told once each time such a record first appears.
     */
    void identityConflict(const QString &theirIncarnation);
    /*! Each record of the event stream (O5, docs/reference/events.md), `ts` and `mono` included. */
    void electionEvent(const QJsonObject &event);

protected:
    /*! For tests and simulations: the clock every decision reads. Set before init(). */
    void setClock(const Clock *clock);

private:
    friend class ClusterServicePrivate;
    std::unique_ptr<ClusterServicePrivate> d;
};

} // namespace baton
