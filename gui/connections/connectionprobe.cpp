#include "connectionprobe.h"

#include "dashboardsession.h"
#include <baton/leaseobserver.h>

#include <QTimer>

namespace baton {

ConnectionProbe::ConnectionProbe(QObject *parent)
    : QObject(parent)
{
}

ConnectionProbe::~ConnectionProbe() = default;

void ConnectionProbe::probe(const Connection &connection)
{
    m_session = std::make_unique<DashboardSession>();
    m_session->setObserveOnly(true);
    m_storeError.clear();
    QString error;
    if (!m_session->open(connection, &error)) {
        // Asynchronous like a success, so that callers have one path.
        QTimer::singleShot(0, this, [this, error] { finish(false, error); });
        return;
    }
    LeaseObserver *observer = m_session->observer();
    // The observer reports a failed list first, then that it is ready.
    connect(observer, &LeaseObserver::storeError, this, [this](const QString &message) { m_storeError = message; });
    connect(observer, &LeaseObserver::ready, this, [this, observer] {
        if (!m_storeError.isEmpty())
            finish(false, m_storeError);
        else
            finish(true, tr("Connected: %n lease(s) found.", nullptr, int(observer->leases().size())));
    });
}

void ConnectionProbe::finish(bool ok, const QString &summary)
{
    if (!m_session)
        return;
    // Not deleted here: this runs inside one of the observer's signals.
    m_session.release()->deleteLater();
    Q_EMIT finished(ok, summary);
}

} // namespace baton
