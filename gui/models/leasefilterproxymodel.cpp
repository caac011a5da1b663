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

LeaseFilterProxyModel::Words LeaseFilterProxyModel::parse(const QString &text)
{
    Words parsed;
    const QStringList words = text.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    for (const QString &word : words) {
        if (word.startsWith(QLatin1String("holder:"), Qt::CaseInsensitive))
            parsed.holders.append(word.mid(7));
        else if (word.startsWith(QLatin1String("lease:"), Qt::CaseInsensitive))
            parsed.names.append(word.mid(6));
        else
            parsed.any.append(word);
    }
    parsed.holders.removeAll(QString());
    parsed.names.removeAll(QString());
    return parsed;
}

QStringList LeaseFilterProxyModel::holderWordsIn(const QString &filterText)
{
    const Words parsed = parse(filterText);
    return parsed.holders + parsed.any;
}

void LeaseFilterProxyModel::setFilterText(const QString &text)
{
    m_text = text;
    const Words parsed = parse(text);
    m_anyWords = parsed.any;
    m_nameWords = parsed.names;
    m_holderWords = parsed.holders;
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
