#pragma once

#include <baton/baton_export.h>

#include <functional>
#include <memory>

namespace baton {

/*!
 * What whenLeader() returns (W5). Calling it removes the registration
 * and, when its `fn` has run and its `deregisteredFn` has not run since,
 * runs `deregisteredFn`. Calling it again does nothing. Copies share the
 * registration; destroying a Remover does not remove anything.
 */
class BATON_EXPORT Remover
{
public:
    /*! A remover of nothing: calling it does nothing, isActive() is false. */
    Remover();
    /*! A remover that calls \a remove the first time it is called. */
    explicit Remover(std::function<void()> remove);

    /*! Removes the registration (W5); harmless when called again. */
    void operator()() const;
    /*! True until the registration has been removed. */
    bool isActive() const;

private:
    friend class ApplicationPrivate;
    // A registration made before its cluster existed moves there when it
    // starts; its remover (and the copies the caller holds) follows it.
    void retarget(std::function<void()> remove) const;

    struct State;
    std::shared_ptr<State> m_state;
};

} // namespace baton
