#pragma once

#include "connection.h"

#include <QObject>

#include <memory>

namespace baton {

class DashboardSession;

/*!
 * "Test connection" (O4): opens a connection as the dashboard would, but
 * only to read it (a missing file Registry folder is reported, not
 * created), waits for the first list of its leases, says what it found or
 * why it failed, and closes it again. Nothing is saved.
 */
class ConnectionProbe : public QObject
{
    Q_OBJECT
public:
    explicit ConnectionProbe(QObject *parent = nullptr);
    ~ConnectionProbe() override;

    /*! Reads \a connection (its secrets loaded) once; finished() follows, always asynchronously. */
    void probe(const Connection &connection);
    bool isRunning() const { return m_session != nullptr; }

Q_SIGNALS:
    /*! \a summary says what was found ("3 leases") or why it failed, in the current language. */
    void finished(bool ok, const QString &summary);

private:
    void finish(bool ok, const QString &summary);

    std::unique_ptr<DashboardSession> m_session;
    QString m_storeError;
};

} // namespace baton
