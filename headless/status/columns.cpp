#include "columns.h"

#include <algorithm>

namespace baton {

Columns::Columns(QList<Column> columns)
    : m_columns(std::move(columns))
{
    for (const Column &column : std::as_const(m_columns))
        m_widths.append(std::max(column.minWidth, int(column.title.size())));
}

void Columns::fit(const QStringList &cells)
{
    for (qsizetype i = 0; i < m_widths.size() && i < cells.size(); ++i)
        m_widths[i] = std::max(m_widths.at(i), int(cells.at(i).size()));
}

QString Columns::line(const QStringList &cells)
{
    fit(cells);
    return format(cells);
}

QStringList Columns::titles() const
{
    QStringList titles;
    for (const Column &column : m_columns)
        titles.append(column.title);
    return titles;
}

QString Columns::format(const QStringList &cells) const
{
    QString text;
    for (qsizetype i = 0; i < m_columns.size(); ++i) {
        const QString cell = cells.value(i);
        if (i > 0)
            text += QStringLiteral("  ");
        const bool last = i + 1 == m_columns.size();
        if (m_columns.at(i).alignRight)
            text += cell.rightJustified(m_widths.at(i));
        else
            text += last ? cell : cell.leftJustified(m_widths.at(i));
    }
    return text;
}

} // namespace baton
