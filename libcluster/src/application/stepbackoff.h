#pragma once

#include <algorithm>

namespace baton {

/*!
 * How many heartbeats one step of the candidate record's heartbeat (its
 * write, or the listing) sits out after failing: none after the first
 * failure, then 1, 3, 7, ... up to \c maxPause - 1 in a row, until it works
 * again. Each step has its own: a store that refuses only the listing (a
 * Role with get, create and update on ConfigMaps but not list) must not
 * pause the write that tells the others this candidate is alive.
 */
class StepBackoff
{
public:
    explicit StepBackoff(int maxPause)
        : m_maxPause(maxPause)
    {
    }

    /*! Whether the step runs at this heartbeat; asked once per heartbeat. */
    bool takeTurn()
    {
        if (m_skip == 0)
            return true;
        --m_skip;
        return false;
    }

    void failed()
    {
        m_failures = std::min(m_failures + 1, 30);
        m_skip = std::min(1 << (m_failures - 1), m_maxPause) - 1;
    }

    /*! It failed last time it ran, and has not worked since. */
    bool failing() const { return m_failures > 0; }

    void succeeded()
    {
        m_failures = 0;
        m_skip = 0;
    }

private:
    int m_maxPause;
    int m_failures = 0;
    int m_skip = 0;
};

} // namespace baton
