#pragma once

#include <baton/baton_export.h>

#include <QDateTime>
#include <QMetaType>
#include <QObject>
#include <QString>

#include <memory>

namespace baton {

class ClusterService;
class LeaderSchedulePrivate;
class Store;

/*!
 * One run of one tick of a LeaderSchedule: what the work needs to make its
 * own writes idempotent per tick and fenced.
 */
class BATON_EXPORT RunId
{
public:
    /*! No run. */
    RunId() = default;
    /*! The \a attempt of the run of \a tick under the leadership of \a fencingToken. */
    RunId(const QString &tick, qint64 fencingToken, int attempt);

    /*! Whether it names a run: false for a default-constructed RunId. */
    bool isValid() const { return !m_tick.isEmpty(); }
    /*! The tick's name, its nominal instant in UTC to the second: `2026-12-01T03:00:00Z`. */
    QString tick() const { return m_tick; }
    /*! The tick's nominal instant, fixed by the schedule whatever the clocks say. */
    QDateTime tickTime() const;
    /*! The fencing token of the leadership that runs it. */
    qint64 fencingToken() const { return m_token; }
    /*! 1, or more when an interrupted run of the tick is run again. */
    int attempt() const { return m_attempt; }

    /*! The same run: the same tick, leadership and attempt. */
    friend bool operator==(const RunId &a, const RunId &b)
    {
        return a.m_tick == b.m_tick && a.m_token == b.m_token && a.m_attempt == b.m_attempt;
    }

private:
    QString m_tick;
    qint64 m_token = 0;
    int m_attempt = 0;
};

/*!
 * Scheduled work that runs once per tick for the whole application, on the
 * leader: the LeaderTimer of cron ticks.
 *
 * \code
 * auto *nightly = new baton::LeaderSchedule(cluster, this);
 * if (!nightly->setSchedule(QStringLiteral("0 3 * * * Europe/Paris")))
 *     qFatal("%s", qPrintable(nightly->errorString()));
 * connect(nightly, &baton::LeaderSchedule::due, this, [=](const baton::RunId &run) {
 *     compact(run.tick(), run.fencingToken());   // then:
 *     nightly->finish(run, true);
 * });
 * connect(nightly, &baton::LeaderSchedule::interrupted, this, &Compactor::abandon);
 * nightly->start();
 * \endcode
 *
 * A schedule is five cron fields with an optional IANA time zone
 * (`0 3 * * * Europe/Paris`), or `every DURATION` (`every 10m`). A tick is
 * named by its nominal instant in UTC, so instances with skewed clocks agree
 * on which tick is which.
 *
 * Before a tick is due here, its run record is created in the store that
 * keeps the lease (a conditional create carrying the fencing token): of the
 * instances that reach a tick, one at most gets due() for it. finish()
 * writes the outcome. When the leadership ends during a run, interrupted()
 * says that the work must stop, and the record says "interrupted:
 * leadership ended". A new leader settles the runs an earlier leadership
 * left going, and runs the latest one again under OnInterrupted::Rerun; a
 * tick nobody started runs once when it is no older than the catch-up
 * window; a tick that comes while a run is going is skipped (and recorded)
 * or, under Overlap::Queue, waits for it.
 *
 * The wall clock says when a tick is due; leadership stays on the boot
 * clock: a leader frozen past its deadline starts nothing (F4). Use it in
 * the thread of its cluster service.
 */
class BATON_EXPORT LeaderSchedule : public QObject
{
    Q_OBJECT
public:
    /*! What went wrong, as errorString() says in a sentence. */
    enum class Error {
        /*! Nothing. */
        NoError,
        /*! setSchedule() was given text that is not a schedule. */
        BadSchedule,
        /*! There is nowhere to keep the run records (a cluster service without an application, a Lease name too long for a label). */
        NoRunStore,
    };
    Q_ENUM(Error)
    /*! A run that an earlier leadership left going. */
    enum class OnInterrupted {
        /*! Not run again (the default: for work that is not idempotent). */
        Skip,
        /*! Run again by the new leader, as the next attempt (the latest such run only). */
        Rerun,
    };
    Q_ENUM(OnInterrupted)
    /*! A tick that comes while a run is going. */
    enum class Overlap {
        /*! The tick is not run, and recorded as "skipped: previous run still going" (the default). */
        Skip,
        /*! The tick runs when the run ends; one waits at most (a newer one pushes it out, skipped). */
        Queue,
    };
    Q_ENUM(Overlap)

    /*! Keeps its run records where \a cluster keeps its lease; \a cluster must outlive it. */
    explicit LeaderSchedule(ClusterService &cluster, QObject *parent = nullptr);
    /*! Keeps its run records in \a store, which must outlive it. */
    LeaderSchedule(ClusterService &cluster, Store &store, QObject *parent = nullptr);
    /*! Stops, silently: a run going is left "running", for the next leader to settle as interrupted. */
    ~LeaderSchedule() override;

    /*!
     * Reads \a spec; false, with error() BadSchedule and errorString()
     * naming the field and what is wrong, when it is not a schedule (the
     * schedule in force is then unchanged). Takes effect at the next start().
     */
    bool setSchedule(const QString &spec);
    /*! The schedule's text; empty until one is set. */
    QString schedule() const;

    /*! What a new leader does with a run an earlier leadership left going (default Skip). */
    void setOnInterrupted(OnInterrupted policy);
    /*! See setOnInterrupted(). */
    OnInterrupted onInterrupted() const;
    /*! How late (milliseconds) a tick nobody started may still run once; 0 (the default): never. */
    void setCatchUp(qint64 msec);
    /*! See setCatchUp(). */
    qint64 catchUp() const;
    /*! What a tick that comes while a run is going does (default Skip). */
    void setOverlap(Overlap policy);
    /*! See setOverlap(). */
    Overlap overlap() const;

    /*! Why the last setSchedule() or start() failed; NoError after one that succeeded. */
    Error error() const;
    /*! What went wrong, in a sentence; empty when nothing did. */
    QString errorString() const;

    /*! Whether the program started it: true from a successful start() to stop(). */
    bool isActive() const;

public Q_SLOTS:
    /*!
     * Starts: ticks become due whenever this instance leads. false, with
     * error() and errorString(), when no schedule is set or the records
     * have nowhere to go.
     */
    bool start();
    /*! Stops: no more ticks. A run going is interrupted (interrupted(), and its record says so). */
    void stop();
    /*!
     * The work of \a run ended, with success or not (\a detail says how it
     * failed: "failed: <detail>"). Ignored for a run that is not the
     * current one (an interrupted run's end is recorded already).
     */
    void finish(const baton::RunId &run, bool ok, const QString &detail = QString());

Q_SIGNALS:
    /*! A tick is due, claimed for this instance: do its work, then call finish(). */
    void due(const baton::RunId &run);
    /*! The leadership ended during \a run: stop its work now; its record says interrupted. */
    void interrupted(const baton::RunId &run);
    /*!
     * A run left going by an earlier leadership (that of \a instance) is
     * now recorded as interrupted; so is a tick this instance claimed for a
     * leadership that ended before the claim was answered.
     */
    void earlierRunInterrupted(const baton::RunId &run, const QString &instance);
    /*! A tick that came while a run was going was not run (Overlap::Skip, or pushed out of the queue). */
    void skipped(const QString &tick);

private:
    friend class LeaderSchedulePrivate;
    std::unique_ptr<LeaderSchedulePrivate> d;
};

} // namespace baton

Q_DECLARE_METATYPE(baton::RunId)
