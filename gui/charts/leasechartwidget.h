#pragma once

#include <QPointer>
#include <QWidget>

namespace baton {

class LeaseActivity;

/*!
 * A chart of one lease's activity: what the timeline and the renew-timing
 * chart share. It follows the track of lease() in activity() and repaints
 * when that track changes, and only then: a dashboard with thousands of
 * leases renewing must not repaint for each of them.
 */
class LeaseChartWidget : public QWidget
{
    Q_OBJECT
public:
    explicit LeaseChartWidget(QWidget *parent = nullptr);

    void setActivity(LeaseActivity *activity);
    LeaseActivity *activity() const;
    void setLease(const QString &lease);
    QString lease() const { return m_lease; }

protected:
    /*! \a lease's track changed: repaints when it is lease(). */
    virtual void onTrackChanged(const QString &lease);
    /*! activity() is another one now (or none). */
    virtual void onActivityChanged() {}

private:
    QPointer<LeaseActivity> m_activity;
    QString m_lease;
};

} // namespace baton
