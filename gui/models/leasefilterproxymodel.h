#pragma once

#include <QSortFilterProxyModel>

namespace baton {

/*!
 * Filters the lease table by lease name and by holder, and sorts every
 * column by LeaseTableModel::SortRole (numbers as numbers, times as times).
 *
 * setFilterText() reads what an operator types in the filter box: words
 * match the lease name or the holder; `holder:WORD` only the holder;
 * `lease:WORD` only the name. Matching is a case-insensitive substring.
 */
class LeaseFilterProxyModel : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit LeaseFilterProxyModel(QObject *parent = nullptr);

    void setFilterText(const QString &text);
    QString filterText() const { return m_text; }
    void setNameFilter(const QString &text);
    void setHolderFilter(const QString &text);
    /*! The words of \a filterText a holder is matched against: the `holder:` words and the plain ones. */
    static QStringList holderWordsIn(const QString &filterText);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    struct Words
    {
        QStringList any;
        QStringList names;
        QStringList holders;
    };
    static Words parse(const QString &text);
    void apply();

    QString m_text;
    QStringList m_anyWords;
    QStringList m_nameWords;
    QStringList m_holderWords;
};

} // namespace baton
