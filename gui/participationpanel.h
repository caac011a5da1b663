#pragma once

#include <QGroupBox>
#include <QPointer>

class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace baton {

class DashboardParticipant;

/*!
 * "Take part": join the selected lease's election from the dashboard with
 * an instance id and the timings, and step down (O4). The work is
 * DashboardParticipant's; this only collects the inputs and shows the state.
 */
class ParticipationPanel : public QGroupBox
{
    Q_OBJECT
public:
    explicit ParticipationPanel(QWidget *parent = nullptr);

    void setParticipant(DashboardParticipant *participant);
    /*! The lease the operator selected: the default lease to join. */
    /*!
     * Proposes joining \a lease with the timings its holders use: its
     * record's \a leaseDurationMs and the renewal interval seen, \a
     * renewIntervalMs (each ignored when not positive). Nothing changes while
     * the dashboard takes part.
     */
    void setSelectedLease(const QString &lease, qint64 leaseDurationMs = -1, qint64 renewIntervalMs = -1);

Q_SIGNALS:
    /*! Something to tell the operator (a refused join). */
    void message(const QString &text);

private:
    void join();
    void refresh();

    QPointer<DashboardParticipant> m_participant;
    QLineEdit *m_leaseName;
    QLineEdit *m_instanceId;
    QDoubleSpinBox *m_leaseDuration;
    QDoubleSpinBox *m_renewInterval;
    QPushButton *m_join;
    QPushButton *m_stepDown;
    QLabel *m_state;
};

} // namespace baton
