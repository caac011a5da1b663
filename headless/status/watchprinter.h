#pragma once

#include "columns.h"
#include "statusformat.h"

#include <baton/leaseobserver.h>

#include <QHash>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace baton {

/*!
 * What `baton status --watch` prints as the leases change, as `kubectl get
 * -w` prints it: after the first look (the table, printed as without
 * --watch), the row of each lease whose holder, state or transitions
 * changed, in the same columns; a renewal alone, which changes only the
 * ages, prints nothing. A lease removed is its last row again, its STATE
 * `removed`. With --history, the row of each holder change instead; with
 * -o jsonl, records (docs/reference/events.md). At the end, on stderr, the holder
 * changes this watch saw, each with its time without a leader: the rows
 * have no column for it.
 */
class WatchPrinter : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        bool json = false;
        bool wide = false;
        bool noHeaders = false;
        /*! --history: holder changes, not leases. */
        bool history = false;
        /*! The `instance` of the records. */
        QString observerId;
        /*! Whether a lease is one of those shown. */
        std::function<bool(const QString &)> selected;
    };

    WatchPrinter(LeaseObserver *observer, Options options, QObject *parent = nullptr);

    /*!
     * The first look, as it was printed (the table of \a leases, or the
     * history \a changes): the rows that follow go in its columns, under its
     * header, or under one printed before the first of them when it had none.
     */
    void follow(const QList<ObservedLease> &leases, const QList<LeaseFailover> &changes);
    /*! The holder changes this watch saw (not those read from the stored history), on stderr. */
    void end();

private:
    void onLeaseChanged(const QString &name);
    void onLeaseRemoved(const QString &name);
    /*! A holder change seen; \a handover: the release it completes is replaced, not counted again. */
    void onChange(const LeaseFailover &change, bool handover);
    void printRow(const QStringList &cells);
    std::optional<statusformat::WideColumns> wide() const;

    LeaseObserver *m_observer;
    Options m_options;
    Columns m_columns;
    bool m_headerShown = false;
    /*! Per lease: the last row printed, and what of it a change would change. */
    QHash<QString, QStringList> m_rows;
    QHash<QString, QStringList> m_facts;
    QList<LeaseFailover> m_seen;
};

} // namespace baton
