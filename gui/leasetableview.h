#pragma once

#include <QList>
#include <QTableView>

namespace baton {

/*!
 * The dashboard's table of leases (O4): a row per lease of the model it is
 * given (a LeaseTableModel or a proxy of one), sorted by any column, the
 * last renewal painted by FreshnessDelegate. In any language its columns
 * fit its width: the State column whole, and no sideways scrolling.
 */
class LeaseTableView : public QTableView
{
    Q_OBJECT
public:
    explicit LeaseTableView(QWidget *parent = nullptr);

    /*!
     * Shows \a model (null: nothing). The first time a model comes, the
     * columns take the widths of \a savedHeader (QHeaderView::saveState(),
     * the operator's), or else the widths their contents want.
     */
    void setLeaseModel(QAbstractItemModel *model, const QByteArray &savedHeader = {});
    /*! The lease of the current row; empty when there is none. */
    QString selectedLease() const;
    /*! Makes \a lease the current row and scrolls to it, when it is shown. */
    void selectLease(const QString &lease);

Q_SIGNALS:
    /*! The current row moved, so selectedLease() may have changed. */
    void currentLeaseChanged();

protected:
    bool viewportEvent(QEvent *event) override;

private:
    void setPreferredWidths();
    /*! Narrows the name columns when the table would scroll sideways or cut the State column off.
     */
    void fitColumns();

    bool m_headerRestored = false;
    /*! The widths the columns want (all but State), when not restored from the settings. */
    QList<int> m_preferredWidths;
};

} // namespace baton
