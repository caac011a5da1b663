#include "leasetableview.h"

#include "freshnessdelegate.h"
#include "leasetablemodel.h"

#include <algorithm>
#include <QAbstractProxyModel>
#include <QEvent>
#include <QHeaderView>

namespace baton {

LeaseTableView::LeaseTableView(QWidget *parent)
    : QTableView(parent)
{
    setObjectName(QStringLiteral("leaseTable"));
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setSortingEnabled(true);
    setAlternatingRowColors(true);
    setWordWrap(false);
    verticalHeader()->hide();
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
    horizontalHeader()->setStretchLastSection(true);
    horizontalHeader()->setSectionsMovable(true);
    setItemDelegate(new FreshnessDelegate(this));
    setTabKeyNavigation(false);
}

void LeaseTableView::setLeaseModel(QAbstractItemModel *model, const QByteArray &savedHeader)
{
    if (!model) {
        setModel(nullptr);
        return;
    }
    QItemSelectionModel *oldSelection = selectionModel();
    setModel(model);
    delete oldSelection;
    if (!m_headerRestored)
        m_headerRestored = horizontalHeader()->restoreState(savedHeader);
    if (!m_headerRestored)
        setPreferredWidths();
    fitColumns();
    connect(selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &LeaseTableView::currentLeaseChanged);
    // The time columns move every second without a dataChanged for every
    // row (LeaseTableModel): the rows shown are painted again.
    QAbstractItemModel *source = model;
    while (auto *proxy = qobject_cast<QAbstractProxyModel *>(source))
        source = proxy->sourceModel();
    if (auto *leases = qobject_cast<LeaseTableModel *>(source))
        connect(leases, &LeaseTableModel::timeAdvanced, viewport(), qOverload<>(&QWidget::update),
                Qt::UniqueConnection);
}

void LeaseTableView::setPreferredWidths()
{
    sortByColumn(LeaseTableModel::LeaseColumn, Qt::AscendingOrder);
    const QFontMetrics metrics = fontMetrics();
    const auto width
        = [&metrics](const QString &sample) { return metrics.horizontalAdvance(sample) + 24; };
    setColumnWidth(LeaseTableModel::LeaseColumn, width(QStringLiteral("search-indexer-xx")));
    setColumnWidth(LeaseTableModel::HolderColumn, width(QStringLiteral("node-a-7f3c-xx")));
    setColumnWidth(LeaseTableModel::HeldSinceColumn,
                   width(QStringLiteral("00:00:00 (00 min 00 s)")));
    setColumnWidth(LeaseTableModel::FreshnessColumn, width(QStringLiteral("00.0 s of 15 s")) + 40);
    resizeColumnToContents(LeaseTableModel::ChangesColumn);
    resizeColumnToContents(LeaseTableModel::TransitionsColumn);
    // Never narrower than the header, whatever the language.
    m_preferredWidths.clear();
    for (int column = 0; column < LeaseTableModel::StateColumn; ++column) {
        setColumnWidth(column,
                       std::max(columnWidth(column), horizontalHeader()->sectionSizeHint(column)));
        m_preferredWidths.append(columnWidth(column));
    }
}

QString LeaseTableView::selectedLease() const
{
    const QModelIndex current = selectionModel() ? selectionModel()->currentIndex() : QModelIndex();
    return current.isValid() ? current.data(LeaseTableModel::LeaseNameRole).toString() : QString();
}

void LeaseTableView::selectLease(const QString &lease)
{
    if (!model())
        return;
    for (int row = 0; row < model()->rowCount(); ++row) {
        const QModelIndex index = model()->index(row, 0);
        if (index.data(LeaseTableModel::LeaseNameRole).toString() == lease) {
            selectionModel()->setCurrentIndex(
                index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            scrollTo(index);
            return;
        }
    }
}

bool LeaseTableView::viewportEvent(QEvent *event)
{
    // Before the view lays out its header for the new width.
    if (event->type() == QEvent::Resize)
        fitColumns();
    return QTableView::viewportEvent(event);
}

void LeaseTableView::fitColumns()
{
    // Whatever the language, the table fits its width: the State column
    // whole and no sideways scrolling. Starting each time from the widths
    // the columns want, Held since gives way first, then the holder, then
    // the lease name (elided), never below their header; a wider table
    // gives them back. Widths the operator
    // set (restored from the settings) are left alone.
    const QHeaderView *header = horizontalHeader();
    if (!model() || m_preferredWidths.size() != LeaseTableModel::StateColumn)
        return;
    const int state = std::max(header->sectionSizeHint(LeaseTableModel::StateColumn),
                               sizeHintForColumn(LeaseTableModel::StateColumn));
    int needed = state;
    QList<int> widths = m_preferredWidths;
    for (int column = 0; column < LeaseTableModel::StateColumn; ++column)
        if (!header->isSectionHidden(column))
            needed += widths.at(column);
    int excess = needed - viewport()->width();
    for (int column : { LeaseTableModel::HeldSinceColumn, LeaseTableModel::HolderColumn,
                        LeaseTableModel::LeaseColumn }) {
        const int cut = std::clamp(
            excess, 0, std::max(0, widths.at(column) - header->sectionSizeHint(column)));
        widths[column] -= cut;
        excess -= cut;
    }
    for (int column = 0; column < LeaseTableModel::StateColumn; ++column)
        if (header->sectionSize(column) != widths.at(column))
            setColumnWidth(column, widths.at(column));
    // The last section stretches over what is left, but never below the
    // width it was last given (100 px by default): give it what it needs.
    if (header->sectionSize(LeaseTableModel::StateColumn) > state)
        setColumnWidth(LeaseTableModel::StateColumn, state);
}

} // namespace baton
