#pragma once

#include <QPointer>
#include <QTimer>
#include <QWidget>

class QLabel;
class QMessageBox;
class QPushButton;
class QTableView;

namespace baton {

class CandidateModel;
class DashboardSession;
class HandoverDialog;
class LeaseTableView;

/*!
 * The Candidates tab: for the lease selected in \a leases, the instances
 * that stand for it (CandidateModel), and the operator's steering: "Hand
 * over to…" (also in the lease table's context menu), "Drain…" and
 * "Undrain…" of a candidate (also in its context menu). Each asks first,
 * saying in plain words what will follow (CandidateSteering), and says
 * what was done or what went wrong. It follows the session and the
 * selection by itself.
 */
class CandidatesTab : public QWidget
{
    Q_OBJECT
public:
    CandidatesTab(DashboardSession *session, LeaseTableView *leases, QWidget *parent = nullptr);

    CandidateModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    /*! The candidate of the current row; empty when there is none. */
    QString selectedCandidate() const;
    void selectCandidate(const QString &instance);

    /*! Opens "Hand over to…" for the selected lease (\a to preselected, when given). */
    void askHandover(const QString &to = {});
    /*! Asks whether to drain (or undrain) the selected candidate. */
    void askDrain(bool drained);
    /*! The question open now, if any (asked by askDrain). */
    QMessageBox *confirmation() const;
    /*! The handover dialog open now, if any. */
    HandoverDialog *handoverDialog() const;
    /*! What the last act did, or why it failed. */
    QString lastMessage() const;

Q_SIGNALS:
    /*! An act answered: \a message says what was done, or what went wrong. */
    void acted(bool ok, const QString &message);

protected:
    void showEvent(QShowEvent *event) override;

private:
    void follow();
    void refresh();
    void updateActions();
    void showCandidateMenu(const QPoint &position);
    void showLeaseMenu(const QPoint &position);
    void report(bool ok, const QString &message);
    qint64 leaseDurationMs() const;

    QPointer<DashboardSession> m_session;
    LeaseTableView *m_leases;
    CandidateModel *m_model;
    QLabel *m_summary;
    QLabel *m_empty;
    QLabel *m_status;
    QTableView *m_table;
    QPushButton *m_handOverButton;
    QPushButton *m_drainButton;
    QPushButton *m_undrainButton;
    QPointer<QMessageBox> m_confirmation;
    QPointer<HandoverDialog> m_handover;
    QTimer m_clock;
};

} // namespace baton
