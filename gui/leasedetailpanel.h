#pragma once

#include <QPointer>
#include <QTimer>
#include <QWidget>

class QLabel;

namespace baton {

class DashboardSession;

/*!
 * The selected lease at a glance: its holder, the renew timings as this
 * observer sees them (last renewal, expiry: what `kubectl get lease` does
 * not show), and what its timings guarantee (O4, O6).
 */
class LeaseDetailPanel : public QWidget
{
    Q_OBJECT
public:
    explicit LeaseDetailPanel(QWidget *parent = nullptr);

    void setSession(DashboardSession *session);
    void setLease(const QString &lease);
    QString lease() const { return m_lease; }

private:
    void refresh();

    QPointer<DashboardSession> m_session;
    QString m_lease;
    QLabel *m_title;
    QLabel *m_facts;
    QLabel *m_timings;
    QTimer m_refresh;
};

} // namespace baton
