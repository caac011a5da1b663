#include "statuscommand.h"

#include "commandline.h"
#include "electionscope.h"
#include "historyexport.h"
#include "runsprinter.h"
#include "signalwatcher.h"
#include "statuscheck.h"
#include "statusformat.h"
#include "verdict.h"
#include "watchprinter.h"
#include "yamltext.h"

#include <baton/clock.h>
#include <baton/leaseobserver.h>
#include <baton/store.h>

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSysInfo>

namespace baton {

using namespace statusformat;

using commandline::say;

namespace {

void complain(const QString &text)
{
    commandline::complain("status", text);
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
    if (!m_options.historyPath.isEmpty() && !historyexport::isExportName(m_options.historyPath)) {
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
        m_watch = new WatchPrinter(m_observer,
                                   {m_options.json, m_options.wide, m_options.noHeaders, m_options.history,
                                    m_observerId, [this](const QString &lease) { return selected(lease); }},
                                   this);
        m_signals = new SignalWatcher(this);
        connect(m_signals, &SignalWatcher::terminationRequested, this, [this] {
            m_watch->end();
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
        // --check: whatever keeps it from looking leaves the verdict unknown.
        if (m_options.check)
            return verdict::tell(verdict::Unknown, error);
        complain(error);
        return why == LeaseObserver::OpenError::SourceUnavailable ? int(RuntimeFailure) : int(BadUsage);
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
    if (m_options.check) {
        if (!m_storeError.isEmpty()) {
            finish(verdict::tell(verdict::Unknown, m_storeError));
            return;
        }
        const statuscheck::Verdict verdict = statuscheck::judge(selectedLeases(), m_observer->leases(), m_options.leases,
                                                                m_emptyText, m_observer->clock().wallNow());
        finish(verdict::tell(verdict.severity, verdict.summary, verdict.details));
        return;
    }
    if (!m_storeError.isEmpty() && !m_options.watch) {
        complain(m_storeError);
        finish(RuntimeFailure);
        return;
    }
    if (!m_storeError.isEmpty())
        complain(m_storeError);
    if (m_options.runs) {
        printRuns();
        return;
    }
    if (showsCandidates()) {
        QStringList names;
        for (const ObservedLease &lease : selectedLeases())
            names.append(lease.name);
        auto *reader = new CandidatesReader(m_observer, names, this);
        reader->read([this](const CandidatesReader::Found &found) {
            m_candidates = found;
            show();
        });
        return;
    }
    show();
}

bool StatusCommand::showsCandidates() const
{
    return !m_options.watch && !m_options.history && (m_options.wide || m_options.jsonDocument || m_options.yamlDocument);
}

void StatusCommand::show()
{
    if (m_options.history)
        printHistory();
    else
        printSnapshot();
    if (m_watch)
        m_watch->follow(selectedLeases(), selectedHistory());
    // kubectl's NotFound: a lease asked for by name that is not there is
    // an error, told after what was found; a watch waits for it to come.
    const QStringList missing = statuscheck::notFound(m_observer->leases(), m_options.leases);
    for (const QString &problem : missing)
        complain(m_options.watch ? problem + QStringLiteral("; watching for it") : problem);
    if (m_options.watch)
        return;
    if (!exportHistory())
        finish(RuntimeFailure);
    else
        finish(missing.isEmpty() ? Success : NotFound);
}

QList<ObservedLease> StatusCommand::selectedLeases() const
{
    QList<ObservedLease> leases = m_observer->leases();
    leases.removeIf([this](const ObservedLease &lease) { return !selected(lease.name); });
    return leases;
}

QList<LeaseFailover> StatusCommand::selectedHistory() const
{
    QList<LeaseFailover> history = m_observer->history();
    history.removeIf([this](const LeaseFailover &change) { return !selected(change.lease); });
    return history;
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
    if (m_options.jsonDocument || m_options.yamlDocument) {
        QJsonArray records;
        for (const ObservedLease &lease : leases) {
            QJsonObject record = leaseRecord(lease, m_observerId, now, wall);
            // Only where there are some: a lease without candidates reads as before.
            if (m_candidates.contains(lease.name))
                record.insert(QStringLiteral("candidates"), CandidatesReader::toJson(m_candidates.value(lease.name), wall));
            records.append(record);
        }
        printDocument(list(records));
        return;
    }
    if (m_options.json) {
        for (const ObservedLease &lease : leases)
            writeJson(leaseRecord(lease, m_observerId, now, wall));
        return;
    }
    if (leases.isEmpty() && !m_options.leases.isEmpty())
        return; // what was asked for is not there: notFound() says so, as kubectl does
    const std::optional<WideColumns> wide = m_options.wide
            ? std::optional(WideColumns {now, m_observer->describeSource()})
            : std::nullopt;
    QStringList lines = table(leases, wall, m_emptyText, wide);
    if (m_options.noHeaders && !leases.isEmpty())
        lines.removeFirst();
    if (!m_candidates.isEmpty()) {
        QStringList names;
        for (const ObservedLease &lease : leases)
            names.append(lease.name);
        lines.append(QString());
        lines += CandidatesReader::table(names, m_candidates, wall, m_options.noHeaders);
    }
    for (const QString &line : std::as_const(lines))
        say(line);
}

void StatusCommand::printHistory()
{
    const QList<LeaseFailover> history = selectedHistory();
    if (m_options.jsonDocument || m_options.yamlDocument) {
        // The same document as an export to FILE.json: one format to parse.
        printDocument(QJsonDocument::fromJson(LeaseObserver::historyToJson(history)).object());
        return;
    }
    if (m_options.json) {
        for (const LeaseFailover &change : std::as_const(history))
            writeJson(changeRecord(change, m_observerId));
        return;
    }
    if (history.isEmpty()) {
        if (selectedLeases().isEmpty() && !m_options.leases.isEmpty())
            return; // notFound() says so
        say(selectedLeases().isEmpty() ? m_emptyText : QStringLiteral("no holder changes stored or seen"));
        return;
    }
    QStringList lines = statusformat::history(history, m_options.wide);
    if (m_options.noHeaders)
        lines.removeFirst();
    for (const QString &line : std::as_const(lines))
        say(line);
}

void StatusCommand::printDocument(const QJsonObject &document)
{
    if (m_options.yamlDocument) {
        commandline::write(yamltext::fromJson(document));
        return;
    }
    say(QString::fromUtf8(QJsonDocument(document).toJson(QJsonDocument::Indented)).trimmed());
}

void StatusCommand::writeJson(const QJsonObject &record)
{
    commandline::write(jsonLine(record));
}

bool StatusCommand::exportHistory()
{
    if (m_options.historyPath.isEmpty())
        return true;
    QString error;
    if (!historyexport::write(m_options.historyPath, selectedHistory(), &error)) {
        complain(error);
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

void StatusCommand::printRuns()
{
    RunsPrinter::Options options;
    options.leases = m_options.leases;
    if (options.leases.isEmpty())
        for (const ObservedLease &lease : m_observer->leases())
            options.leases.append(lease.name);
    options.document = m_options.jsonDocument || m_options.yamlDocument;
    options.noHeaders = m_options.noHeaders;
    options.writeDocument = [this](const QJsonObject &document) { printDocument(document); };
    auto *printer = new RunsPrinter(m_observer, options, this);
    printer->print([this](int exitCode) { finish(exitCode == 0 ? Success : RuntimeFailure); });
}

} // namespace baton
