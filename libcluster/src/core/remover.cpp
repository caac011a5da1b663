#include <baton/remover.h>

#include <mutex>

namespace baton {

struct Remover::State
{
    std::mutex mutex;
    std::function<void()> remove;
    bool removed = false;
};

Remover::Remover()
    : m_state(std::make_shared<State>())
{
    m_state->removed = true;
}

Remover::Remover(std::function<void()> remove)
    : m_state(std::make_shared<State>())
{
    m_state->remove = std::move(remove);
}

void Remover::operator()() const
{
    std::function<void()> remove;
    {
        std::lock_guard lock(m_state->mutex);
        if (m_state->removed)
            return;
        m_state->removed = true;
        remove = std::move(m_state->remove);
    }
    if (remove)
        remove();
}

bool Remover::isActive() const
{
    std::lock_guard lock(m_state->mutex);
    return !m_state->removed;
}

void Remover::retarget(std::function<void()> remove) const
{
    std::lock_guard lock(m_state->mutex);
    if (!m_state->removed)
        m_state->remove = std::move(remove);
}

} // namespace baton
