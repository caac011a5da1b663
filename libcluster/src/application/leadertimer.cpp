#include <baton/cluster.h>
#include <baton/clusterservice.h>
#include <baton/leadertimer.h>

#include <QPointer>
#include <QTimer>

namespace baton {

class LeaderTimerPrivate
{
public:
    LeaderTimerPrivate(LeaderTimer *timer, ClusterService *boundCluster)
        : q(timer)
        , cluster(boundCluster)
        // A child, so that it lives and dies in the timer's thread.
        , tick(new QTimer(timer))
    {
        tick->setObjectName(QStringLiteral("baton-leadertimer-tick"));
    }

    ClusterService &currentCluster() const { return cluster ? *cluster : useCluster(); }

    // The one place that starts and stops the underlying timer: it runs when,
    // and only when, the program wants it and the last leadership callback
    // said this instance leads.
    void update()
    {
        const bool ticking = userActive && leading;
        if (ticking == tick->isActive())
            return;
        if (ticking)
            tick->start();
        else
            tick->stop();
        Q_EMIT q->tickingChanged(ticking);
    }

    void onTick()
    {
        // F4: the leadership callbacks may lag behind the deadline (a frozen
        // process resumes and this timer fires before the election acts).
        // isLeader() compares the deadline with the monotonic clock now, so
        // a late tick is dropped here. The timer keeps running: the
        // election steps down at its next act and the deregistered callback
        // stops it (W2); stopping it here instead could leave it stopped
        // when the same term turns out to continue.
        if (!currentCluster().isLeader())
            return;
        Q_EMIT q->timeout();
    }

    LeaderTimer *q;
    ClusterService *cluster; // nullptr: useCluster(), looked up at each tick
    QTimer *tick;
    Remover remover;
    bool userActive = false;
    bool leading = false;
};

namespace {

// Both callbacks hold a guarded pointer: a deregistered callback that the
// removal runs after the timer is gone (W6) must find nothing to do.
void registerOn(LeaderTimer *timer, LeaderTimerPrivate *d, ClusterService *cluster)
{
    QPointer<LeaderTimer> self(timer);
    auto setLeading = [self, d](bool leading) {
        if (!self)
            return;
        d->leading = leading;
        d->update();
    };
    auto fn = [setLeading] { setLeading(true); };
    auto deregisteredFn = [setLeading] { setLeading(false); };
    // W1, W2: fn runs each time this instance becomes the leader (at once
    // when it already leads), deregisteredFn each time it stops leading.
    d->remover = cluster ? cluster->whenLeader(timer, fn, deregisteredFn)
                         : baton::whenLeader(timer, fn, deregisteredFn);
}

} // namespace

LeaderTimer::LeaderTimer(QObject *parent)
    : QObject(parent)
    , d(std::make_unique<LeaderTimerPrivate>(this, nullptr))
{
    connect(d->tick, &QTimer::timeout, this, [this] { d->onTick(); });
    registerOn(this, d.get(), nullptr);
}

LeaderTimer::LeaderTimer(ClusterService &cluster, QObject *parent)
    : QObject(parent)
    , d(std::make_unique<LeaderTimerPrivate>(this, &cluster))
{
    connect(d->tick, &QTimer::timeout, this, [this] { d->onTick(); });
    registerOn(this, d.get(), &cluster);
}

LeaderTimer::~LeaderTimer()
{
    // No tickingChanged() from a destructor: the timer just goes.
    d->tick->stop();
    d->leading = false;
    d->remover();
}

void LeaderTimer::setInterval(int msec)
{
    d->tick->setInterval(msec);
}

int LeaderTimer::interval() const
{
    return d->tick->interval();
}

bool LeaderTimer::isActive() const
{
    return d->userActive;
}

bool LeaderTimer::isTicking() const
{
    return d->tick->isActive();
}

void LeaderTimer::start()
{
    d->userActive = true;
    // As QTimer: starting a running timer starts its interval again.
    if (d->tick->isActive())
        d->tick->start();
    else
        d->update();
}

void LeaderTimer::start(int msec)
{
    setInterval(msec);
    start();
}

void LeaderTimer::stop()
{
    d->userActive = false;
    d->update();
}

} // namespace baton
