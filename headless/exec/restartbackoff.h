#pragma once

#include <QtGlobal>

#include <algorithm>

namespace baton {

/*!
 * How long --exec waits before it starts again a command that exited by
 * itself while leading: the delay doubles with each exit, up to a bound, so
 * that a command that fails at once does not spin; a new leadership, or a
 * command that ran longer than the bound, starts again from the short delay.
 */
class RestartBackoff
{
public:
    RestartBackoff(qint64 initialMs, qint64 maxMs)
        : m_initialMs(initialMs)
        , m_maxMs(maxMs)
        , m_currentMs(initialMs)
    {
    }

    /*! A new leadership: from the short delay again. */
    void reset() { m_currentMs = m_initialMs; }
    /*! The delay in force, without moving it on (after an exit that was no failure). */
    qint64 currentMs() const { return m_currentMs; }
    /*! The delay after a command that ran \a ranMs (-1: it never started); the next one is longer. */
    qint64 next(qint64 ranMs)
    {
        if (ranMs > m_maxMs)
            reset();
        const qint64 delay = m_currentMs;
        m_currentMs = std::min(m_currentMs * 2, m_maxMs);
        return delay;
    }

private:
    qint64 m_initialMs;
    qint64 m_maxMs;
    qint64 m_currentMs;
};

} // namespace baton
