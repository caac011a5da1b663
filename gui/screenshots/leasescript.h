#pragma once

#include <QHash>
#include <QObject>
#include <QString>

#include <functional>

namespace baton {

class Clock;
class Store;

/*!
 * Writes lease records straight into a store, as participants would, with
 * no election: the dashboard's scripted demo (`baton-screenshots`), its
 * tests and its benchmark drive the observer with it. Keeps each lease's
 * version and transition count, so each write is a valid conditional
 * update (B2).
 */
class LeaseScript : public QObject
{
    Q_OBJECT
public:
    /*!
     * \a clock gives the wall time written into the records (acquireTime,
     * renewTime), so that a scripted election on a ManualClock writes the
     * times its observer shows; nullptr: the system clock.
     */
    explicit LeaseScript(Store *store, const Clock *clock = nullptr, QObject *parent = nullptr);

    using Done = std::function<void(bool ok)>;
    /*!
     * Writes \a holder (empty: released) as the holder of \a lease with a
     * lease of \a leaseDurationMs; the same holder again is a renewal.
     */
    void write(const QString &lease, const QString &holder, qint64 leaseDurationMs, Done done = {});
    /*!
     * The next writes of \a lease go on from a term its holders began
     * before the script: \a holder took it at \a acquired, as the
     * \a transitions-th change (what a stored history tells).
     */
    void resume(const QString &lease, const QString &holder, qint64 transitions, const QDateTime &acquired);
    /*! The version of \a lease after the last write answered. */
    QString version(const QString &lease) const { return m_states.value(lease).version; }
    /*! Writes that have not been answered yet. */
    int pending() const { return m_pending; }

private:
    struct State
    {
        QString version;
        QString holder;
        qint64 transitions = 0;
        qint64 acquireMs = 0;
    };
    Store *m_store;
    const Clock *m_clock;
    QHash<QString, State> m_states;
    int m_pending = 0;
};

} // namespace baton
