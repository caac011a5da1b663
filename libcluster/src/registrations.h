#pragma once

#include <baton/leadercallback.h>

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>

namespace baton {

/*!
 * The whenLeader() registrations of one cluster service (SPEC W1-W6, C3).
 * Knows nothing about leases: it is told whether the instance leads and
 * brings every registration to that state, one callback at a time per
 * registration. Futures are awaited; exceptions and failed futures are
 * logged with the registration and the lease name and change nothing else.
 */
class Registrations : public QObject
{
    Q_OBJECT
public:
    explicit Registrations(QString leaseName, QObject *parent = nullptr);
    ~Registrations() override;

    /*!
     * Asked just before an `fn` starts: false stops it from starting (the
     * F4 deadline passed since leadership was announced).
     */
    void setLeadingCheck(std::function<bool()> stillLeading);
    /*! The lease name that logged failures carry. */
    void setLeaseName(const QString &leaseName) { m_leaseName = leaseName; }

    /*!
     * Adds a registration; with \a context, the callbacks run in the
     * context's thread and the registration goes when the context does.
     * Returns its id. When the instance leads, `fn` starts on the next turn
     * of the event loop (W1).
     */
    quint64 add(LeaderCallback fn, LeaderCallback deregisteredFn, QObject *context = nullptr);
    /*! Removes a registration (W5): runs its deregisteredFn when fn had run. Harmless twice. */
    void remove(quint64 id);
    void setLeading(bool leading);
    bool isLeading() const { return m_leading; }
    /*! No callback is running or waiting to run. */
    bool isIdle() const;
    int count() const;

Q_SIGNALS:
    /*! Emitted whenever the last running callback finishes. */
    void idle();

private:
    struct Entry;
    void reconcile(quint64 id);
    void runCallback(quint64 id, bool isFn);
    void callbackFinished(quint64 id, bool isFn, const QString &failure);
    void maybeEmitIdle();

    QString m_leaseName;
    std::function<bool()> m_stillLeading;
    bool m_leading = false;
    quint64 m_nextId = 1;
    QHash<quint64, Entry *> m_entries;
};

} // namespace baton
