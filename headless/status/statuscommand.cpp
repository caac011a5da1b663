#include "statuscommand.h"

#include "electionscope.h"
#include "signalwatcher.h"

#include <batoninternal/eventrecord.h>
#include <batoninternal/privatefiles.h>

#include <baton/clock.h>
#include <baton/leaseobserver.h>
#include <baton/store.h>

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QSysInfo>

#include <cstdio>

namespace baton {

namespace {

void say(const QString &text)
{
    std::fprintf(stdout, "%s\n", qPrintable(text));
    std::fflush(stdout);
}

void complain(const QString &text)
{
    std::fprintf(stderr, "baton status: %s\n", qPrintable(text));
}

QString seconds(qint64 ms)
{
    return QStringLiteral("%1s").arg(double(ms) / 1000.0, 0, 'f', 1);
}

QString orNone(const QString &holder)
{
    return holder.isEmpty() ? QStringLiteral("(none)") : holder;
}

QString timeText(const QDateTime &time)
{
    return time.isValid() ? time.toUTC().toString(Qt::ISODateWithMs) : QString();
}

} // namespace

StatusCommand::StatusCommand(Options options, QObject *parent)
    : QObject(parent)
    , m_options(std::move(options))
{
    // An observer writes records too; its identity says it is one (O5 `instance`).
    m_observerId = QStringLiteral("observer-%1-%2")
                           .arg(QSysInfo::machineHostName())
                           .arg(QCoreApplication::applicationPid());
}

StatusCommand::~StatusCommand() = default;

int StatusCommand::start()
{
    if (!m_options.historyPath.isEmpty() && !m_options.historyPath.endsWith(QLatin1String(".csv"))
        && !m_options.historyPath.endsWith(QLatin1String(".json"))) {
        complain(QStringLiteral("--history %1: the file name must end in .csv or .json")
                         .arg(m_options.historyPath));
        return BadUsage;
    }
    const int early = createObserver();
    if (early >= 0)
        return early;
    connect(m_observer, &LeaseObserver::storeError, this, [this](const QString &message) {
        m_storeError = message;
        if (m_options.watch && m_observer->isReady())
            complain(message);
    });
    connect(m_observer, &LeaseObserver::ready, this, &StatusCommand::onReady);
    if (m_options.watch) {
        const auto printChange = [this](const LeaseFailover &change) {
            if (!selected(change.lease))
                return;
            if (m_options.json) {
                QJsonObject r = record(change.lease, QStringLiteral("leader-changed"));
                insertChange(&r, change);
                writeJson(r);
                return;
            }
            QString line = QStringLiteral("%1  %2: %3 -> %4 (%5")
                                   .arg(timeText(change.when), change.lease, orNone(change.from),
                                        orNone(change.to), change.why);
            if (change.gapMs > 0)
                line += QStringLiteral(", %1 ms without a leader").arg(change.gapMs);
            say(line + QLatin1Char(')'));
        };
        connect(m_observer, &LeaseObserver::failover, this, printChange);
        // A handover prints twice: the release when seen, then the release
        // with its successor and the time without a leader.
        connect(m_observer, &LeaseObserver::handedOver, this,
                [printChange](int, const LeaseFailover &change) { printChange(change); });
        connect(m_observer, &LeaseObserver::storedChangeSeen, this,
                [printChange](int, const LeaseFailover &change) { printChange(change); });
        connect(m_observer, &LeaseObserver::leaseExpired, this, [this](const QString &name) {
            const auto lease = m_observer->lease(name);
            if (!lease || !selected(name))
                return;
            if (m_options.json) {
                QJsonObject r = record(name, QStringLiteral("lease-expired"));
                r.insert(QStringLiteral("holder"), lease->record.holder);
                r.insert(QStringLiteral("sinceChangeMs"),
                         double(lease->sinceChangeMs(m_observer->clock().monotonicMs())));
                writeJson(r);
                return;
            }
            say(QStringLiteral("%1  %2: the lease of %3 expired: not renewed for %4 ms")
                        .arg(timeText(m_observer->clock().wallNow()), name, lease->record.holder)
                        .arg(lease->record.leaseDurationMs));
        });
        if (m_options.json)
            connect(m_observer, &LeaseObserver::leaseChanged, this, [this](const QString &name) {
                if (!m_observer->isReady() || !selected(name))
                    return;
                if (const auto lease = m_observer->lease(name))
                    writeJson(leaseRecord(*lease, m_observerId, m_observer->clock().monotonicMs(),
                                          m_observer->clock().wallNow()));
            });
        m_signals = new SignalWatcher(this);
        connect(m_signals, &SignalWatcher::terminationRequested, this, [this] {
            if (!m_options.json) {
                const QList<LeaseFailover> history = m_observer->history();
                say(QStringLiteral("\n%1 failover(s) seen").arg(history.size()));
            }
            finish(exportHistory() ? Success : RuntimeFailure);
        });
    }
    m_observer->start();
    return -1;
}

int StatusCommand::createObserver()
{
    LeaseSourceOptions source;
    if (!m_options.storeUrl.isEmpty()) {
        source.kind = LeaseSourceOptions::Kind::StoreUrl;
        source.storeUrl = m_options.storeUrl;
        source.caFile = m_options.caFile;
        source.certFile = m_options.certFile;
        source.keyFile = m_options.keyFile;
        source.user = m_options.user;
        source.passwordFile = m_options.passwordFile;
        source.prefix = m_options.prefix;
    } else if (!m_options.configPath.isEmpty()) {
        source.kind = LeaseSourceOptions::Kind::Configuration;
        source.configPath = m_options.configPath;
    } else {
        source.kind = LeaseSourceOptions::Kind::Kubernetes;
        source.kubeconfigPath = m_options.kubeconfigPath;
        source.kubeContext = m_options.kubeContext;
        source.namespaceName = m_options.namespaceName;
        source.allNamespaces = m_options.allNamespaces;
    }
    // Looking never writes: a file Registry is opened read-only.
    source.readOnly = true;
    QString error;
    LeaseObserver::OpenError why = LeaseObserver::OpenError::NoError;
    m_observer = LeaseObserver::open(source, this, &error, &why);
    if (!m_observer) {
        complain(error);
        return why == LeaseObserver::OpenError::SourceUnavailable ? storeFailure() : int(BadUsage);
    }
    m_emptyText = QStringLiteral("no leases (%1)").arg(m_observer->describeEmpty());
    // R8: the default Registry only, which nobody chose; on stderr, so that
    // the table and the records stay as they are.
    if (const Store *store = m_observer->store(); store && m_observer->isDefaultRegistry())
        complain(QStringLiteral("warning: ") + storeScope(*store, true).text);
    return -1;
}

void StatusCommand::onReady()
{
    if (!m_storeError.isEmpty() && !m_options.watch) {
        complain(m_storeError);
        finish(storeFailure());
        return;
    }
    if (!m_storeError.isEmpty())
        complain(m_storeError);
    if (m_options.history)
        printHistory();
    else
        printSnapshot();
    if (m_options.watch)
        return;
    const bool live = !m_options.check || everyLeaseHasALiveHolder(selectedLeases());
    if (!exportHistory())
        finish(RuntimeFailure);
    else
        finish(live ? Success : NoLiveHolder);
}

QList<ObservedLease> StatusCommand::selectedLeases() const
{
    QList<ObservedLease> leases = m_observer->leases();
    leases.removeIf([this](const ObservedLease &lease) { return !selected(lease.name); });
    return leases;
}

bool StatusCommand::everyLeaseHasALiveHolder(const QList<ObservedLease> &leases) const
{
    const QDateTime wall = m_observer->clock().wallNow();
    bool live = true;
    for (const QString &name : std::as_const(m_options.leases)) {
        const bool found = std::any_of(leases.cbegin(), leases.cend(),
                                       [&](const ObservedLease &l) { return l.name == name; });
        if (!found) {
            complain(QStringLiteral("lease \"%1\": not found").arg(name));
            live = false;
        }
    }
    if (leases.isEmpty() && m_options.leases.isEmpty()) {
        complain(m_emptyText);
        live = false;
    }
    for (const ObservedLease &lease : leases) {
        const LeaseRecord &r = lease.record;
        // One look has no clock of its own to judge by: the holder's renewal
        // time against its lease duration is the hint the table shows too.
        const qint64 renewedAgo = r.renewTime.isValid() ? r.renewTime.msecsTo(wall) : -1;
        QString why;
        if (!lease.valid)
            why = QStringLiteral("unreadable: ") + lease.error;
        else if (r.holder.isEmpty())
            why = QStringLiteral("no holder");
        else if (lease.expired || renewedAgo > r.leaseDurationMs)
            why = QStringLiteral("the lease of %1 expired (not renewed for %2 ms, by its clock)")
                          .arg(r.holder)
                          .arg(renewedAgo);
        if (!why.isEmpty()) {
            complain(QStringLiteral("lease \"%1\": %2").arg(lease.name, why));
            live = false;
        }
    }
    return live;
}

void StatusCommand::printSnapshot()
{
    const qint64 now = m_observer->clock().monotonicMs();
    const QDateTime wall = m_observer->clock().wallNow();
    const QList<ObservedLease> leases = selectedLeases();
    if (m_options.namesOnly) {
        for (const ObservedLease &lease : leases)
            say(lease.name);
        return;
    }
    if (m_options.jsonDocument) {
        QJsonArray records;
        for (const ObservedLease &lease : leases)
            records.append(leaseRecord(lease, m_observerId, now, wall));
        say(QString::fromUtf8(QJsonDocument(records).toJson(QJsonDocument::Indented)).trimmed());
        return;
    }
    if (m_options.json) {
        for (const ObservedLease &lease : leases)
            writeJson(leaseRecord(lease, m_observerId, now, wall));
        return;
    }
    const std::optional<WideColumns> wide = m_options.wide
            ? std::optional(WideColumns {now, m_observer->describeSource()})
            : std::nullopt;
    QStringList lines = formatTable(leases, wall, m_emptyText, wide);
    if (m_options.noHeaders && !leases.isEmpty())
        lines.removeFirst();
    for (const QString &line : std::as_const(lines))
        say(line);
}

void StatusCommand::printHistory()
{
    QList<LeaseFailover> history = m_observer->history();
    history.removeIf([this](const LeaseFailover &change) { return !selected(change.lease); });
    if (m_options.jsonDocument) {
        // The same document as an export to FILE.json: one format to parse.
        say(QString::fromUtf8(LeaseObserver::historyToJson(history)).trimmed());
        return;
    }
    if (m_options.json) {
        for (const LeaseFailover &change : std::as_const(history))
            writeJson(changeRecord(change, m_observerId));
        return;
    }
    if (history.isEmpty()) {
        say(selectedLeases().isEmpty() ? m_emptyText : QStringLiteral("no holder changes stored or seen"));
        return;
    }
    QStringList lines = formatHistory(history, m_options.wide);
    if (m_options.noHeaders)
        lines.removeFirst();
    for (const QString &line : std::as_const(lines))
        say(line);
}

QStringList StatusCommand::formatHistory(const QList<LeaseFailover> &history, bool wide)
{
    int leaseWidth = 5;
    int fromWidth = 4;
    int toWidth = 2;
    for (const LeaseFailover &change : history) {
        leaseWidth = std::max(leaseWidth, int(change.lease.size()));
        fromWidth = std::max(fromWidth, int(orNone(change.from).size()));
        toWidth = std::max(toWidth, int(orNone(change.to).size()));
    }
    const int whyWidth = int(QStringLiteral("first-acquire").size());
    auto line = [&](const QString &time, const QString &lease, const QString &from, const QString &to,
                    const QString &why, const QString &gap, const QString &transitions,
                    const QString &source) {
        QString text = QStringLiteral("%1  %2  %3  %4  %5  %6  %7")
                               .arg(time, -24)
                               .arg(lease, -leaseWidth)
                               .arg(from, -fromWidth)
                               .arg(to, -toWidth)
                               .arg(why, -whyWidth)
                               .arg(gap, 6)
                               .arg(transitions, 5);
        if (wide)
            text += QStringLiteral("  ") + source;
        return text;
    };
    QStringList lines {line(QStringLiteral("TIME"), QStringLiteral("LEASE"), QStringLiteral("FROM"),
                            QStringLiteral("TO"), QStringLiteral("WHY"), QStringLiteral("GAP-MS"),
                            QStringLiteral("TRANS"), QStringLiteral("SOURCE"))};
    for (const LeaseFailover &change : history)
        // A stored change's time is its new holder's clock, a seen one's
        // this observer's: -o wide says which, since they may disagree (F2).
        lines.append(line(timeText(change.when), change.lease, orNone(change.from), orNone(change.to),
                          change.why,
                          change.gapMs >= 0 ? QString::number(change.gapMs) : QStringLiteral("-"),
                          QString::number(change.transitions),
                          change.recorded ? QStringLiteral("stored") : QStringLiteral("seen")));
    return lines;
}

QJsonObject StatusCommand::changeRecord(const LeaseFailover &change, const QString &observerId)
{
    // When the change happened, not when it is printed: a history is read
    // long after. A stored change's mono is this observer's estimate.
    QJsonObject r {
            {QStringLiteral("v"), eventrecord::streamVersion},
            {QStringLiteral("ts"), timeText(change.when)},
            {QStringLiteral("mono"), double(change.mono)},
            {QStringLiteral("lease"), change.lease},
            {QStringLiteral("instance"), observerId},
            {QStringLiteral("event"), QStringLiteral("leader-changed")},
    };
    insertChange(&r, change);
    return r;
}

void StatusCommand::insertChange(QJsonObject *record, const LeaseFailover &change)
{
    record->insert(QStringLiteral("from"), change.from);
    record->insert(QStringLiteral("to"), change.to);
    record->insert(QStringLiteral("why"), change.why);
    record->insert(QStringLiteral("transitions"), double(change.transitions));
    if (change.gapMs >= 0)
        record->insert(QStringLiteral("gapMs"), double(change.gapMs));
    record->insert(QStringLiteral("recorded"), change.recorded);
}

QStringList StatusCommand::formatTable(const QList<ObservedLease> &leases, const QDateTime &nowWall,
                                       const QString &emptyText, const std::optional<WideColumns> &wide)
{
    if (leases.isEmpty())
        return {emptyText.isEmpty() ? QStringLiteral("no leases (no cluster:* entries in the Registry)") : emptyText};
    int nameWidth = 5;
    int holderWidth = 6;
    for (const ObservedLease &lease : leases) {
        nameWidth = std::max(nameWidth, int(lease.name.size()));
        holderWidth = std::max(holderWidth, int(orNone(lease.record.holder).size()));
    }
    // -o wide: what a kubectl user finds there, between the counts and the state.
    const int sourceWidth = wide ? std::max(6, int(wide->source.size())) : 0;
    auto wideCells = [&](const QString &renewTime, const QString &duration, const QString &observed) {
        if (!wide)
            return QString();
        return QStringLiteral("%1  %2  %3  %4  ")
                .arg(renewTime, -24)
                .arg(duration, -8)
                .arg(observed, -8)
                .arg(wide->source, -sourceWidth);
    };
    const QString format = QStringLiteral("%1  %2  %3  %4  %5  %6%7");
    QStringList lines {format.arg(QStringLiteral("LEASE"), -nameWidth)
                               .arg(QStringLiteral("HOLDER"), -holderWidth)
                               .arg(QStringLiteral("SINCE"), -24)
                               .arg(QStringLiteral("RENEWED/LEASE"), -13)
                               .arg(QStringLiteral("TRANS"), 5)
                               .arg(wide ? QStringLiteral("%1  %2  %3  %4  ")
                                                   .arg(QStringLiteral("RENEW-TIME"), -24)
                                                   .arg(QStringLiteral("DURATION"), -8)
                                                   .arg(QStringLiteral("OBSERVED"), -8)
                                                   .arg(QStringLiteral("SOURCE"), -sourceWidth)
                                         : QString(),
                                    QStringLiteral("STATE"))};
    for (const ObservedLease &lease : leases) {
        const LeaseRecord &r = lease.record;
        const qint64 renewedAgo = r.renewTime.isValid() ? r.renewTime.msecsTo(nowWall) : -1;
        QString state;
        if (!lease.valid)
            state = QStringLiteral("unreadable: ") + lease.error;
        else if (r.holder.isEmpty())
            state = QStringLiteral("free");
        else if (lease.expired)
            state = QStringLiteral("EXPIRED");
        else if (renewedAgo > r.leaseDurationMs)
            // The record's clock is another host's: a hint, not a verdict (F2).
            state = QStringLiteral("stale? (by the holder's clock)");
        else
            state = QStringLiteral("held");
        // While held: the last renewal against the lease it renews. A free
        // lease has no duration to show (a release writes a token 1 s).
        const bool held = lease.valid && !r.holder.isEmpty() && renewedAgo >= 0;
        const QString renewed = held
                ? QStringLiteral("%1/%2").arg(seconds(renewedAgo), seconds(r.leaseDurationMs))
                : QStringLiteral("-");
        // OBSERVED: since this observer saw the record change, by its own
        // clock: what expiry is judged by (F2), unlike the holder's times.
        const QString cells = wideCells(
                r.renewTime.isValid() ? timeText(r.renewTime) : QStringLiteral("-"),
                lease.valid && !r.holder.isEmpty() ? seconds(r.leaseDurationMs) : QStringLiteral("-"),
                wide ? seconds(lease.sinceChangeMs(wide->nowMono)) : QString());
        lines.append(format.arg(lease.name, -nameWidth)
                             .arg(orNone(r.holder), -holderWidth)
                             .arg(r.acquireTime.isValid() ? timeText(r.acquireTime) : QStringLiteral("-"), -24)
                             .arg(renewed, -13)
                             .arg(r.transitions, 5)
                             .arg(cells, state));
    }
    return lines;
}

QJsonObject StatusCommand::leaseRecord(const ObservedLease &lease, const QString &observerId,
                                       qint64 nowMono, const QDateTime &nowWall)
{
    QJsonObject r {
            {QStringLiteral("v"), eventrecord::streamVersion},
            {QStringLiteral("ts"), timeText(nowWall)},
            {QStringLiteral("mono"), double(nowMono)},
            {QStringLiteral("lease"), lease.name},
            {QStringLiteral("instance"), observerId},
            {QStringLiteral("event"), QStringLiteral("lease")},
            {QStringLiteral("holder"), lease.record.holder},
            {QStringLiteral("acquireTime"), timeText(lease.record.acquireTime)},
            {QStringLiteral("renewTime"), timeText(lease.record.renewTime)},
            {QStringLiteral("leaseDurationMs"), double(lease.record.leaseDurationMs)},
            {QStringLiteral("transitions"), double(lease.record.transitions)},
            {QStringLiteral("sinceChangeMs"), double(lease.sinceChangeMs(nowMono))},
            {QStringLiteral("expired"), lease.expired},
    };
    if (!lease.record.holderIncarnation.isEmpty())
        r.insert(QStringLiteral("holderIncarnation"), lease.record.holderIncarnation);
    if (!lease.valid)
        r.insert(QStringLiteral("error"), lease.error);
    return r;
}

QJsonObject StatusCommand::record(const QString &lease, const QString &event) const
{
    return eventrecord::make(m_observer->clock(), lease, m_observerId, event);
}

void StatusCommand::writeJson(const QJsonObject &record)
{
    const QByteArray line = QJsonDocument(record).toJson(QJsonDocument::Compact);
    std::fwrite(line.constData(), 1, size_t(line.size()), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
}

bool StatusCommand::exportHistory()
{
    if (m_options.historyPath.isEmpty())
        return true;
    QList<LeaseFailover> history = m_observer->history();
    history.removeIf([this](const LeaseFailover &change) { return !selected(change.lease); });
    QSaveFile file(m_options.historyPath);
    if (!privatefiles::openForWriting(file)
        || file.write(m_options.historyPath.endsWith(QLatin1String(".csv"))
                              ? LeaseObserver::historyToCsv(history)
                              : LeaseObserver::historyToJson(history))
                < 0
        || !file.commit()) {
        complain(QStringLiteral("cannot write the history to %1: %2")
                         .arg(m_options.historyPath, file.errorString()));
        return false;
    }
    return true;
}

void StatusCommand::finish(int exitCode)
{
    if (m_done)
        return;
    m_done = true;
    if (m_observer)
        m_observer->stop();
    QMetaObject::invokeMethod(this, [this, exitCode] { Q_EMIT finished(exitCode); }, Qt::QueuedConnection);
}

} // namespace baton
