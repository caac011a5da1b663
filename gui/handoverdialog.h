#pragma once

#include <QDialog>
#include <QPointer>

class QLabel;
class QListWidget;
class QPushButton;

namespace baton {

class CandidateModel;

/*!
 * "Hand over to…": the live candidates of the lease CandidateModel
 * follows, to pick the next leader from, or whoever asks first (a plain
 * release); below the list, what the handover will lead to, in plain
 * words. Accepting it is the operator's confirmation; chosen() says to whom.
 */
class HandoverDialog : public QDialog
{
    Q_OBJECT
public:
    HandoverDialog(CandidateModel *model, qint64 leaseDurationMs, QWidget *parent = nullptr);

    /*! Picks \a instance (`*`: whoever asks first), when the list has it. */
    void choose(const QString &instance);
    /*! The instance picked; `*` for whoever asks first, empty for none. */
    QString chosen() const;
    QListWidget *list() const { return m_list; }
    /*! What the handover leads to, as the dialog says it. */
    QString consequence() const;

private:
    void fill();
    void explain();

    QPointer<CandidateModel> m_model;
    QString m_lease;
    QString m_holder;
    qint64 m_leaseDurationMs;
    QLabel *m_title;
    QListWidget *m_list;
    QLabel *m_consequence;
    QPushButton *m_accept;
};

} // namespace baton
