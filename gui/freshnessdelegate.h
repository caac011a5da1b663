#pragma once

#include <QStyledItemDelegate>

namespace baton {

/*!
 * Paints the lease table's "last renewal" cell as a bar of
 * LeaseTableModel::FreshnessRole, and nothing else: the system palette while
 * the lease is fresh, amber past half the lease, red past the lease (the
 * instant a follower may take it, F2). The state of an expired lease is
 * written in the same red. Colour only where it means something.
 */
class FreshnessDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    static QColor amber();
    static QColor red();

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    /*! The State column measured in bold, as an alarming state is painted, so that it fits whole. */
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;
};

} // namespace baton
