#pragma once

#include "boottimer.h"
#include "electionsteering.h"
#include "elector.h"
#include "failedattempts.h"

#include <baton/clusterservice.h>
#include <batoninternal/labelselector.h>

#include <QJsonObject>

#include <deque>
#include <functional>
#include <memory>
#include <optional>

namespace baton {

class Clock;
class LeaseProtocol;
class LeaseWatch;
class Registrations;
struct SourcedLease;

/*! Makes the protocol of a cluster service's lease, or nullptr with the error set (P1). */
using LeaseProtocolFactory = std::function<std::unique_ptr<LeaseProtocol>(QString *errorString)>;

/*! The parameters every cluster service takes (the configuration refuses others, P1). */
QStringList clusterParameterNames();
/*! The parameters of preference and drain, for the elections that have other candidates. */
QStringList steeringParameterNames();

/*!
 * The driver between the Elector and the world: arms the one timer the
 * Elector asks for, sends its requests through the lease protocol, feeds the
 * answers back, and hands leadership to the registrations. Thin on
 * purpose: every decision is the Elector's.
 */
class ClusterServicePrivate : public QObject
{
    Q_OBJECT
public:
    explicit ClusterServicePrivate(ClusterService *q);
    ~ClusterServicePrivate() override;

    static ClusterServicePrivate *of(ClusterService *service) { return service->d.get(); }
    /*!
     * The hook of the library's own cluster types (not in the public
     * header): where \a service's lease lives, made once by init().
     */
    static void setLeaseProtocolFactory(ClusterService *service, LeaseProtocolFactory factory)
    {
        of(service)->makeProtocol = std::move(factory);
    }

    /*! The library's own hook: how \a service's candidate roster is made (preference, drain). */
    static void setSteeringFactory(ClusterService *service, ElectionSteeringFactory factory)
    {
        of(service)->makeSteering = std::move(factory);
    }

    bool readParameters(QString *errorString);
    void startElection();
    void startSteering();
    void beginStop();

    /*! Queues \a actions (the Elector's answer to one event) and runs the loop. */
    void execute(ElectorActions actions);
    /*! The Elector's deadlines are due (the wake timer's reason to fire). */
    bool wakeIsDue() const;
    /*!
     * Performs the queued actions, then those of the Elector's deadlines
     * that are due; the wake timer's slot.
     */
    void runActions();
    void perform(const ElectorAction &action);
    void announceHolder();
    /*! Where the answer to the Elector's request \a request goes. */
    std::function<void(const LeaseReply &)> replyTo(quint64 request);
    /*! Follows the lease where its protocol can; false when the election polls. */
    bool startWatching();
    /*! A watch or a list told how the lease is now. */
    void onWatched(const SourcedLease &lease);
    void onWatched(const LeaseState &state);
    void armTimer();
    void releaseWhenIdle();
    /*! Tells a handover's actions (events, logs); false for any other action. */
    bool performSteering(const ElectorAction &action);
    /*! The second half of a handover, once the registrations' work has ended. */
    void handOverWhenIdle();
    /*! Asks for a handover: to the Elector when leading, else through the lease. */
    void requestHandover(const QString &to, const QString &requestedBy);
    void finishStop();
    /*! Emits leadershipChanged when \a leading differs from the last state told. */
    void announceLeadership(bool leading);
    void emitEvent(const QString &event, QJsonObject fields = {});
    bool isLeaderNow() const;

    ClusterService *q;
    const Clock *clock;
    ElectorParams params;
    QString leaseName;
    /*!
     * No other instance can take the lease (W8): the leadership has no
     * bound, which remainingLeadershipMs() tells.
     */
    bool unbounded = false;
    bool started = false;
    bool stopping = false;
    bool stopFinished = false;
    bool releaseAsked = false;
    /*! Inside runActions(): actions of a re-entrant call wait in pendingActions. */
    bool executing = false;
    std::deque<ElectorAction> pendingActions;
    bool announcedLeading = false;
    int identityConflicts = 0;
    FailedAttempts failedAttempts;
    QString holder;
    /*! The holder last told through holderChanged(). */
    QString announcedHolder;
    /*! Why the holder changed in the actions being run; none when no change of leader was among them. */
    std::optional<HolderChange> holderChangeWhy;

    /*! Preference and drain, as configured: the roster announces them. */
    int priority = 0;
    qint64 preferAfterMs = 30000;
    bool standby = false;
    CandidateLabels labels;
    ElectionSteeringFactory makeSteering;
    /*! The candidate roster; none for a local election, or when it could not be made. */
    ElectionSteering *steering = nullptr;

    Registrations *registrations;
    std::unique_ptr<Elector> elector;
    LeaseProtocolFactory makeProtocol;
    std::unique_ptr<LeaseProtocol> protocol;
    /*! Follows leaseName in the protocol; nullptr when it cannot, and once stopped. */
    LeaseWatch *watch = nullptr;
    // Deadlines on the decisions' clock: a QTimer would fire late by the
    // time the host was suspended (F4).
    BootTimer wakeTimer;
    BootTimer stopDeadlineTimer;
};

} // namespace baton
