#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace baton {

/*!
 * Text columns as kubectl prints them: two spaces apart, each as wide as
 * the widest cell it has held, so that a watch's rows, printed one at a
 * time, stay under the header printed first. Widths only grow: a wider
 * cell widens its column for the lines that follow. A last column aligned
 * left is not padded.
 */
class Columns
{
public:
    struct Column
    {
        QString title;
        /*! At least this wide, whatever it holds: a time is always 24. */
        int minWidth = 0;
        bool alignRight = false;
    };

    explicit Columns(QList<Column> columns);

    /*! Widens the columns to hold \a cells, one per column. */
    void fit(const QStringList &cells);
    /*! The titles, in the widths fitted so far. */
    QString header() const { return format(titles()); }
    /*! \a cells in their columns, fitted first. */
    QString line(const QStringList &cells);

private:
    QStringList titles() const;
    QString format(const QStringList &cells) const;

    QList<Column> m_columns;
    QList<int> m_widths;
};

} // namespace baton
