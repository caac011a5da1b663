#include "watchprinter.h"

#include "commandline.h"

#include <batoninternal/eventrecord.h>

#include <baton/clock.h>

#include <QJsonObject>

namespace baton {

using namespace statusformat;

namespace {

/*!
 * What a row says that a renewal does not change: the lease, the holder,
 * SINCE, TRANS and STATE; the ages (and -o wide's renewal time) run on.
 */
QStringList factsOf(const QStringList &cells)
{
    return {cells.value(0), cells.value(1), cells.value(2), cells.value(4), cells.value(cells.size() - 1)};
}

} // namespace

WatchPrinter::WatchPrinter(LeaseObserver *observer, Options options, QObject *parent)
    : QObject(parent)
    , m_observer(observer)
    , m_options(std::move(options))
    , m_columns(m_options.history ? historyColumns(m_options.wide) : leaseColumns(wide()))
{
    connect(m_observer, &LeaseObserver::failover, this,
            [this](const LeaseFailover &change) { onChange(change, false); });
    // A handover: the release, told when seen, then the release with its
    // successor and the time without a leader.
    connect(m_observer, &LeaseObserver::handedOver, this,
            [this](int, const LeaseFailover &change) { onChange(change, true); });
    connect(m_observer, &LeaseObserver::storedChangeSeen, this,
            [this](int, const LeaseFailover &change) { onChange(change, false); });
    connect(m_observer, &LeaseObserver::leaseChanged, this, &WatchPrinter::onLeaseChanged);
    connect(m_observer, &LeaseObserver::leaseRemoved, this, &WatchPrinter::onLeaseRemoved);
    connect(m_observer, &LeaseObserver::leaseExpired, this, [this](const QString &name) {
        const auto lease = m_observer->lease(name);
        if (!m_options.json || !lease || !m_options.selected(name))
            return; // a row says EXPIRED: leaseChanged() follows
        QJsonObject r = eventrecord::make(m_observer->clock(), name, m_options.observerId,
                                          QStringLiteral("lease-expired"));
        r.insert(QStringLiteral("holder"), lease->record.holder);
        r.insert(QStringLiteral("sinceChangeMs"), double(lease->sinceChangeMs(m_observer->clock().monotonicMs())));
        commandline::write(jsonLine(r));
    });
}

std::optional<WideColumns> WatchPrinter::wide() const
{
    if (!m_options.wide)
        return std::nullopt;
    return WideColumns {m_observer->clock().monotonicMs(), m_observer->describeSource()};
}

void WatchPrinter::follow(const QList<ObservedLease> &leases, const QList<LeaseFailover> &changes)
{
    if (m_options.json)
        return;
    if (m_options.history) {
        for (const LeaseFailover &change : changes)
            m_columns.fit(historyCells(change));
        m_headerShown = !changes.isEmpty();
        return;
    }
    const QDateTime wall = m_observer->clock().wallNow();
    const std::optional<WideColumns> columns = wide();
    for (const ObservedLease &lease : leases) {
        const QStringList cells = leaseCells(lease, wall, columns);
        m_columns.fit(cells);
        m_rows.insert(lease.name, cells);
        m_facts.insert(lease.name, factsOf(cells));
    }
    m_headerShown = !leases.isEmpty();
}

void WatchPrinter::printRow(const QStringList &cells)
{
    if (!m_headerShown) {
        m_headerShown = true;
        m_columns.fit(cells);
        if (!m_options.noHeaders)
            commandline::say(m_columns.header());
    }
    commandline::say(m_columns.line(cells));
}

void WatchPrinter::onLeaseChanged(const QString &name)
{
    if (!m_observer->isReady() || !m_options.selected(name))
        return;
    const auto lease = m_observer->lease(name);
    if (!lease)
        return;
    if (m_options.json) {
        commandline::write(jsonLine(leaseRecord(*lease, m_options.observerId, m_observer->clock().monotonicMs(),
                                                m_observer->clock().wallNow())));
        return;
    }
    if (m_options.history)
        return;
    const QStringList cells = leaseCells(*lease, m_observer->clock().wallNow(), wide());
    m_rows.insert(name, cells);
    if (m_facts.value(name) == factsOf(cells))
        return;
    m_facts.insert(name, factsOf(cells));
    printRow(cells);
}

void WatchPrinter::onLeaseRemoved(const QString &name)
{
    if (m_options.json || m_options.history || !m_rows.contains(name))
        return;
    // kubectl prints a deleted object's last row: so does this, saying so.
    QStringList cells = m_rows.take(name);
    m_facts.remove(name);
    cells.last() = QStringLiteral("removed");
    printRow(cells);
}

void WatchPrinter::onChange(const LeaseFailover &change, bool handover)
{
    if (!m_options.selected(change.lease))
        return;
    // Counted once each: a handover completes the release already counted.
    const auto release = std::find_if(m_seen.rbegin(), m_seen.rend(), [&](const LeaseFailover &seen) {
        return seen.lease == change.lease && seen.from == change.from && seen.to.isEmpty();
    });
    if (handover && release != m_seen.rend())
        *release = change;
    else
        m_seen.append(change);
    if (m_options.json) {
        QJsonObject r = eventrecord::make(m_observer->clock(), change.lease, m_options.observerId,
                                          QStringLiteral("leader-changed"));
        insertChange(&r, change);
        commandline::write(jsonLine(r));
    } else if (m_options.history) {
        printRow(historyCells(change));
    }
}

void WatchPrinter::end()
{
    if (m_options.json)
        return;
    // What this watch saw, not the stored history it read at start.
    commandline::complain("status", QStringLiteral("%1 failover(s) seen").arg(m_seen.size()));
    for (const LeaseFailover &change : std::as_const(m_seen))
        commandline::complain("status", changeLine(change));
}

} // namespace baton
