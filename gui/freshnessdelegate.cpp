#include "freshnessdelegate.h"

#include "leasetablemodel.h"

#include <QApplication>
#include <QPainter>

namespace baton {

QColor FreshnessDelegate::amber()
{
    return QColor(0xe0, 0x9b, 0x1a);
}

QColor FreshnessDelegate::red()
{
    return QColor(0xd6, 0x3b, 0x3b);
}

QSize FreshnessDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    if (index.column() != LeaseTableModel::StateColumn)
        return QStyledItemDelegate::sizeHint(option, index);
    QStyleOptionViewItem bold(option);
    bold.font.setBold(true);
    bold.fontMetrics = QFontMetrics(bold.font);
    return QStyledItemDelegate::sizeHint(bold, index);
}

void FreshnessDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    // A lease without a leader for longer than its duration: amber.
    const bool expired = index.data(LeaseTableModel::ExpiredRole).toBool();
    const bool leaderless = index.data(LeaseTableModel::StateKeyRole).toString() == QLatin1String("free")
            && index.data(LeaseTableModel::SinceChangeMsRole).toLongLong()
                    > index.data(LeaseTableModel::LeaseDurationMsRole).toLongLong();
    if (index.column() == LeaseTableModel::StateColumn && (expired || leaderless)) {
        QStyleOptionViewItem opt(option);
        initStyleOption(&opt, index);
        if (!(opt.state & QStyle::State_Selected))
            opt.palette.setColor(QPalette::Text, expired ? red() : amber().darker(115));
        opt.font.setBold(true);
        QStyle *style = opt.widget ? opt.widget->style() : QApplication::style();
        style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, opt.widget);
        return;
    }
    const double ratio = index.data(LeaseTableModel::FreshnessRole).toDouble();
    if (index.column() != LeaseTableModel::FreshnessColumn || ratio < 0) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    QStyleOptionViewItem opt(option);
    initStyleOption(&opt, index);
    const QString text = opt.text;
    opt.text.clear();
    QStyle *style = opt.widget ? opt.widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, opt.widget);

    const QRect area = opt.rect.adjusted(4, 4, -4, -4);
    QColor fill;
    if (ratio >= 1.0)
        fill = red();
    else if (ratio >= 0.5)
        fill = amber();
    else
        fill = opt.palette.color(QPalette::Highlight);
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    QColor track = opt.palette.color(QPalette::Text);
    track.setAlphaF(0.08f);
    painter->setPen(Qt::NoPen);
    painter->setBrush(track);
    painter->drawRoundedRect(area, 3, 3);
    QRect bar = area;
    bar.setWidth(int(area.width() * std::min(ratio, 1.0)));
    if (ratio < 0.5)
        fill.setAlphaF(0.45f); // a fresh lease is not news: quiet
    painter->setBrush(fill);
    if (bar.width() > 0)
        painter->drawRoundedRect(bar, 3, 3);
    painter->setPen(opt.state & QStyle::State_Selected && ratio < 0.5
                            ? opt.palette.color(QPalette::HighlightedText)
                            : opt.palette.color(QPalette::Text));
    painter->setFont(opt.font);
    painter->drawText(area.adjusted(6, 0, -4, 0), Qt::AlignVCenter | Qt::AlignLeft, text);
    painter->restore();
}

} // namespace baton
