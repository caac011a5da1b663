#include "leasefilterproxymodel.h"

#include "leasetablemodel.h"

namespace baton {

LeaseFilterProxyModel::LeaseFilterProxyModel(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(LeaseTableModel::SortRole);
    setSortCaseSensitivity(Qt::CaseInsensitive);
    setDynamicSortFilter(true);
}

void LeaseFilterProxyModel::setFilterText(const QString &text)
{
    m_text = text;
    m_anyWords.clear();
    m_nameWords.clear();
    m_holderWords.clear();
    const QStringList words = text.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    for (const QString &word : words) {
        if (word.startsWith(QLatin1String("holder:"), Qt::CaseInsensitive))
            m_holderWords.append(word.mid(7));
        else if (word.startsWith(QLatin1String("lease:"), Qt::CaseInsensitive))
            m_nameWords.append(word.mid(6));
        else
            m_anyWords.append(word);
    }
    m_holderWords.removeAll(QString());
    m_nameWords.removeAll(QString());
    apply();
}

void LeaseFilterProxyModel::setNameFilter(const QString &text)
{
    setFilterText(text.isEmpty() ? QString() : QStringLiteral("lease:") + text);
}

void LeaseFilterProxyModel::setHolderFilter(const QString &text)
{
    setFilterText(text.isEmpty() ? QString() : QStringLiteral("holder:") + text);
}

void LeaseFilterProxyModel::apply()
{
    // Qt 6.4 has no begin/endFilterChange; invalidateFilter keeps the sort.
    invalidateFilter();
}

bool LeaseFilterProxyModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (m_anyWords.isEmpty() && m_nameWords.isEmpty() && m_holderWords.isEmpty())
        return true;
    const QModelIndex index = sourceModel()->index(sourceRow, 0, sourceParent);
    const QString name = index.data(LeaseTableModel::LeaseNameRole).toString();
    const QString holder = index.data(LeaseTableModel::HolderRole).toString();
    for (const QString &word : m_nameWords)
        if (!name.contains(word, Qt::CaseInsensitive))
            return false;
    for (const QString &word : m_holderWords)
        if (!holder.contains(word, Qt::CaseInsensitive))
            return false;
    for (const QString &word : m_anyWords)
        if (!name.contains(word, Qt::CaseInsensitive) && !holder.contains(word, Qt::CaseInsensitive))
            return false;
    return true;
}

} // namespace baton
