#pragma once

#include <baton/baton_export.h>
#include <baton/clusterservice.h>

#include <QString>

/*!
 * Baton's public API: leader work (whenLeader(), LeaderTimer), the cluster
 * service that runs one election, and the application model it lives in.
 */
namespace baton {

/*!
 * The first cluster service of the current application, in configuration
 * order (C1). With none configured, or with no Application at all, a
 * local cluster that always leads (W8), owned by the application or,
 * without one, by the QCoreApplication.
 */
BATON_EXPORT ClusterService &useCluster();

/*! The cluster service named \a serviceName, or nullptr (P3). */
BATON_EXPORT ClusterService *useCluster(const QString &serviceName);

/*! Plumbing of the whenLeader() templates: not part of the API. */
namespace detail {
/*!
 * Registers leader work on useCluster() from anywhere in the program. Made
 * while the application is being configured and initialised, before its
 * cluster service exists, the registration waits for that service and starts
 * with it (W7).
 */
BATON_EXPORT Remover whenLeaderOnDefaultCluster(LeaderCallback fn, LeaderCallback deregisteredFn,
                                                QObject *context);
} // namespace detail

/*!
 * Runs \a fn each time this instance becomes the leader of useCluster(), and
 * \a deregisteredFn each time it stops leading (W1-W5, W7). Either may
 * return void or QFuture<void>; the two never overlap. Callable from any code
 * of the program, before or after the election started:
 *
 * \code
 * baton::whenLeader([&] { poller.start(); }, [&] { poller.stop(); });
 * \endcode
 *
 * Returns the Remover that undoes the registration.
 */
template<typename Fn, typename DeregisteredFn = std::nullptr_t>
Remover whenLeader(Fn &&fn, DeregisteredFn &&deregisteredFn = nullptr)
{
    return detail::whenLeaderOnDefaultCluster(
            toLeaderCallback(std::forward<Fn>(fn)),
            toLeaderCallback(std::forward<DeregisteredFn>(deregisteredFn)), nullptr);
}

/*!
 * As whenLeader(fn, deregisteredFn), bound to \a context (W6): the
 * callbacks run in the context's thread, and the registration is removed
 * when the context is destroyed. A \a deregisteredFn still owed then runs
 * in the service's thread, not the context's (it may be gone), and must not
 * use the context.
 */
template<typename Fn, typename DeregisteredFn = std::nullptr_t>
Remover whenLeader(QObject *context, Fn &&fn, DeregisteredFn &&deregisteredFn = nullptr)
{
    return detail::whenLeaderOnDefaultCluster(
            toLeaderCallback(std::forward<Fn>(fn)),
            toLeaderCallback(std::forward<DeregisteredFn>(deregisteredFn)), context);
}

} // namespace baton
