#pragma once

#include <QFuture>


#include <functional>
#include <type_traits>
#include <utility>

namespace baton {

/*!
 * A callback of whenLeader(), in the one shape the library runs: a call that
 * returns a QFuture<void>. Synchronous callbacks (returning void) become a
 * call that returns a finished future, so both kinds are awaited alike
 * (W3).
 */
using LeaderCallback = std::function<QFuture<void>()>;

/*!
 * \a fn as a LeaderCallback: a callable that returns void or QFuture<void>,
 * or nullptr for no callback (an empty LeaderCallback).
 */
template<typename Fn>
LeaderCallback toLeaderCallback(Fn &&fn)
{
    using Decayed = std::decay_t<Fn>;
    if constexpr (std::is_same_v<Decayed, std::nullptr_t>) {
        return {};
    } else {
        using Result = std::invoke_result_t<Decayed &>;
        if constexpr (std::is_same_v<Result, void>) {
            return [f = Decayed(std::forward<Fn>(fn))]() mutable {
                f();
                return QtFuture::makeReadyFuture();
            };
        } else {
            static_assert(std::is_convertible_v<Result, QFuture<void>>,
                          "a whenLeader callback returns void or QFuture<void>");
            return [f = Decayed(std::forward<Fn>(fn))]() mutable { return QFuture<void>(f()); };
        }
    }
}

} // namespace baton
