#include "draincommand.h"

#include "commandline.h"
#include "electionconfig.h"
#include "operatorname.h"

#include <batoninternal/candidatebook.h>
#include <batoninternal/didyoumean.h>
#include <batoninternal/durationtext.h>
#include <batoninternal/observercandidatebook.h>
#include <batoninternal/opencandidatebook.h>

#include <baton/application.h>
#include <baton/clusterservice.h>
#include <baton/leaseobserver.h>
#include <baton/store.h>

#include <QCommandLineParser>
#include <QFileInfo>
#include <QTimer>
#include <QUrl>

namespace baton {

namespace {

// The instance rewrites its record every heartbeat: a drain that meets one
// reads again and retries; more than a few in a row is something else.
constexpr int maxAttempts = 5;

const QString registryName = QStringLiteral("Registry");

QString commandName(bool drain)
{
    return drain ? QStringLiteral("drain") : QStringLiteral("undrain");
}

} // namespace

DrainCommand::DrainCommand(Options options, QObject *parent)
    : QObject(parent)
    , m_options(std::move(options))
{
}

DrainCommand::~DrainCommand()
{
    // The books hold stores of the application: gone first.
    for (const Lease &lease : std::as_const(m_leases))
        delete lease.book;
}

int DrainCommand::start()
{
    if (!m_options.storeUrl.isEmpty())
        return openStore();
    const QByteArray command = commandName(m_options.drain).toLatin1();
    m_application = std::make_unique<Application>();
    // No election starts: no signal of its own to stop one.
    m_application->setStopOnSignals(false);
    QList<ClusterService *> clusters;
    QString error;
    if (!electionconfig::load(*m_application, m_options.configPath, &clusters, &error)) {
        commandline::complain(command.constData(), error);
        return commandline::BadUsage;
    }
    const int opened = openBooks(clusters);
    if (opened != commandline::Run)
        return opened;
    QTimer::singleShot(0, this, &DrainCommand::nextLease);
    return commandline::Run;
}

int DrainCommand::openBooks(const QList<ClusterService *> &clusters)
{
    const QByteArray command = commandName(m_options.drain).toLatin1();
    QList<ClusterService *> chosen;
    QStringList names;
    for (ClusterService *cluster : clusters) {
        // An election within one process has no other candidate to drain to.
        if (cluster->type() == QLatin1String("Webda/LocalClusterService"))
            continue;
        names.append(cluster->leaseName());
        if (m_options.lease.isEmpty() || cluster->leaseName() == m_options.lease)
            chosen.append(cluster);
    }
    if (chosen.isEmpty()) {
        // Nothing is written for a lease that is not there: a typo drains nothing.
        QString why;
        if (names.isEmpty()) {
            why = QStringLiteral("%1 has no election with other instances (only local ones): nothing to %2")
                          .arg(m_options.configPath, commandName(m_options.drain));
        } else {
            const QString meant = parameters::closest(m_options.lease, names);
            why = QStringLiteral("--lease %1: %2 has no election of that lease (its leases: %3)%4")
                          .arg(m_options.lease, m_options.configPath, names.join(QStringLiteral(", ")),
                               meant.isEmpty() ? QString() : QStringLiteral("; did you mean %1?").arg(meant));
        }
        commandline::complain(command.constData(), why);
        return commandline::BadUsage;
    }
    for (ClusterService *cluster : std::as_const(chosen)) {
        QString error;
        CandidateBook *book = initStoreOf(cluster, &error) ? openCandidateBook(cluster, nullptr, &error) : nullptr;
        if (!book) {
            commandline::complain(command.constData(),
                                  QStringLiteral("lease %1: %2").arg(cluster->leaseName(), error));
            return 1;
        }
        m_leases.append({cluster->leaseName(), book});
    }
    return commandline::Run;
}

int DrainCommand::openStore()
{
    // Opened for writing, a file store would create a mistyped folder: not so.
    const QUrl url(m_options.storeUrl);
    if (url.isLocalFile() && !QFileInfo(url.toLocalFile()).isDir()) {
        commandline::complain(commandName(m_options.drain).toLatin1().constData(),
                              QStringLiteral("--store %1: no folder %2").arg(m_options.storeUrl, url.toLocalFile()));
        return commandline::BadUsage;
    }
    LeaseSourceOptions source;
    source.kind = LeaseSourceOptions::Kind::StoreUrl;
    source.storeUrl = m_options.storeUrl;
    source.readOnly = false; // the mark is a write
    QString error;
    LeaseObserver::OpenError why = LeaseObserver::OpenError::NoError;
    m_observer = LeaseObserver::open(source, this, &error, &why);
    if (!m_observer) {
        commandline::complain(commandName(m_options.drain).toLatin1().constData(), error);
        return why == LeaseObserver::OpenError::SourceUnavailable ? 1 : commandline::BadUsage;
    }
    connect(m_observer, &LeaseObserver::storeError, this, [this](const QString &message) { m_storeError = message; });
    connect(m_observer, &LeaseObserver::ready, this, &DrainCommand::onStoreRead, Qt::SingleShotConnection);
    m_observer->start();
    return commandline::Run;
}

void DrainCommand::onStoreRead()
{
    const QByteArray command = commandName(m_options.drain).toLatin1();
    m_observer->stop(); // read once: the lease names
    if (!m_storeError.isEmpty()) {
        commandline::complain(command.constData(), m_storeError);
        Q_EMIT finished(1);
        return;
    }
    QStringList names;
    for (const ObservedLease &lease : m_observer->leases())
        names.append(lease.name);
    if (!names.contains(m_options.lease)) {
        // A store holds the leases of many configurations: only one it has is taken for meant.
        const QString meant = parameters::closest(m_options.lease, names);
        commandline::complain(command.constData(),
                              QStringLiteral("--lease %1: the store at %2 has no such lease (its leases: %3)%4")
                                      .arg(m_options.lease, m_options.storeUrl,
                                           names.isEmpty() ? QStringLiteral("none") : names.join(QStringLiteral(", ")),
                                           meant.isEmpty() ? QString()
                                                           : QStringLiteral("; did you mean %1?").arg(meant)));
        Q_EMIT finished(commandline::BadUsage);
        return;
    }
    QString error;
    CandidateBook *book = openCandidateBook(m_observer, m_options.lease, nullptr, &error);
    if (!book) {
        commandline::complain(command.constData(), QStringLiteral("lease %1: %2").arg(m_options.lease, error));
        Q_EMIT finished(1);
        return;
    }
    m_leases.append({m_options.lease, book});
    nextLease();
}

bool DrainCommand::initStoreOf(ClusterService *cluster, QString *errorString)
{
    if (cluster->type() == QLatin1String("Webda/KubernetesClusterService"))
        return true; // the book opens its own client
    const QString storeName = cluster->parameters().value(QStringLiteral("store")).toString(registryName);
    Service *store = m_application->service(storeName);
    if (!store) {
        // The default Registry starts when first asked for.
        if (!m_application->registry()) {
            *errorString = QStringLiteral("the default Registry cannot start (the log says why)");
            return false;
        }
        return true;
    }
    if (m_initialised.contains(store))
        return true;
    if (!store->init(errorString))
        return false;
    m_initialised.append(store);
    return true;
}

void DrainCommand::nextLease()
{
    ++m_current;
    if (m_current >= m_leases.size()) {
        Q_EMIT finished(m_exitCode);
        return;
    }
    readAndWrite(1);
}

void DrainCommand::readAndWrite(int attempt)
{
    CandidateBook *book = m_leases.at(m_current).book;
    book->read(m_options.instance, [this, book, attempt](bool ok, const std::optional<CandidateRecord> &stored,
                                                         const QString &error) {
        if (!ok) {
            fail(QStringLiteral("reading the candidate record of %1: %2").arg(m_options.instance, error));
            return;
        }
        CandidateRecord record;
        QString news;
        if (!change(stored ? &*stored : nullptr, &record, &news)) {
            commandline::say(news);
            nextLease();
            return;
        }
        const auto done = [this, attempt](bool written, const CandidateRecord &result, const QString &why) {
            this->written(attempt, written, result, why);
        };
        if (stored) {
            book->replace(*stored, record, done);
            return;
        }
        // Drained before it ever ran, which is allowed; but a misspelt name
        // would drain nobody, so the names that did run are told beside it.
        book->list([this, book, record, done](bool listed, const QList<CandidateRecord> &records, const QString &) {
            if (listed)
                warnIfUnknown(records);
            book->create(record, done);
        });
    });
}

void DrainCommand::warnIfUnknown(const QList<CandidateRecord> &records) const
{
    QStringList names;
    for (const CandidateRecord &record : records)
        names.append(record.instance);
    if (names.isEmpty())
        return;
    names.sort();
    const QString meant = parameters::closest(m_options.instance, names);
    commandline::complain(m_options.drain ? "drain" : "undrain",
                          QStringLiteral("warning: no instance %1 has stood for %2 yet (its candidates: %3%4): it "
                                         "is drained all the same, and starts drained if it ever runs")
                                  .arg(m_options.instance, m_leases.at(m_current).name,
                                       names.join(QStringLiteral(", ")),
                                       meant.isEmpty() ? QString() : QStringLiteral("; did you mean %1?").arg(meant)));
}

void DrainCommand::written(int attempt, bool ok, const CandidateRecord &record, const QString &error)
{
    if (ok) {
        commandline::say(whatFollows(record));
        nextLease();
    } else if (!error.isEmpty()) {
        fail(QStringLiteral("writing the candidate record of %1: %2").arg(m_options.instance, error));
    } else if (attempt < maxAttempts) {
        readAndWrite(attempt + 1); // the instance wrote in between: from its version
    } else {
        fail(QStringLiteral("the candidate record of %1 changed under each of %2 writes; nothing was changed, "
                            "try again")
                     .arg(m_options.instance)
                     .arg(maxAttempts));
    }
}

bool DrainCommand::change(const CandidateRecord *stored, CandidateRecord *record, QString *news) const
{
    const QString &lease = m_leases.at(m_current).name;
    if (!stored) {
        if (!m_options.drain) {
            *news = QStringLiteral("%1 is not drained for %2: nothing to do").arg(m_options.instance, lease);
            return false;
        }
        // Not live (left, no heartbeat interval): nobody takes it for a running candidate.
        record->instance = m_options.instance;
        record->left = true;
        record->heartbeatIntervalMs = 0;
    } else {
        *record = *stored;
    }
    if (m_options.drain) {
        // Kept as it is when an operator drained it already (not a `--standby` start): the time says since when.
        if (stored && stored->drained && stored->drainedBy != QLatin1String("standby")) {
            *news = QStringLiteral("%1 is drained for %2 already (since %3)")
                            .arg(m_options.instance, lease,
                                 stored->drainedAt.toUTC().toString(Qt::ISODate));
            return false;
        }
        record->drained = true;
        record->drainedBy = operatorName();
        record->drainedAt = QDateTime::currentDateTimeUtc(); // for display
        return true;
    }
    if (!stored->drained) {
        *news = QStringLiteral("%1 is not drained for %2: nothing to do").arg(m_options.instance, lease);
        return false;
    }
    record->drained = false;
    record->drainedBy.clear();
    record->drainedAt = QDateTime();
    return true;
}

QString DrainCommand::whatFollows(const CandidateRecord &record) const
{
    const QString &lease = m_leases.at(m_current).name;
    const bool running = !record.left && record.heartbeatIntervalMs > 0;
    const QString within = durationtext::format(record.heartbeatIntervalMs);
    if (m_options.drain) {
        if (!running)
            return QStringLiteral("%1 drained for %2: it is not running; it starts drained, and stays so until "
                                  "baton undrain %1")
                    .arg(m_options.instance, lease);
        return QStringLiteral("%1 drained for %2: it hands over within %3, its next heartbeat, if it leads, and "
                              "takes the lease only when no other candidate is live")
                .arg(m_options.instance, lease, within);
    }
    if (!running)
        return QStringLiteral("%1 undrained for %2: it is not running; it starts as any candidate")
                .arg(m_options.instance, lease);
    return QStringLiteral("%1 undrained for %2: it may lead again from its next heartbeat, within %3")
            .arg(m_options.instance, lease, within);
}

void DrainCommand::fail(const QString &text)
{
    const QString &lease = m_leases.at(m_current).name;
    commandline::complain(commandName(m_options.drain).toLatin1().constData(),
                          QStringLiteral("lease %1: %2").arg(lease, text));
    m_exitCode = 1;
    nextLease(); // the other leases are independent of this one
}

namespace drainoptions {

const char *const usage = R"(  drain INSTANCE (--config FILE [--lease NAME] | --store URL --lease NAME)
                 marks INSTANCE drained for each lease of FILE's elections
                 (or NAME only; with --store, the lease NAME of the store
                 at URL, which must have it): at its next heartbeat it
                 hands the leadership over to another live candidate if it
                 leads, and it takes no lease while another candidate is
                 live (it still does when none is: the work must run
                 somewhere). The mark is kept beside the lease and
                 outlives a restart; an instance not started yet starts
                 drained. Exits 0 once written, 1 when a write failed, 2
                 for a bad command line, configuration or lease name
                 (nothing is written then)
  undrain INSTANCE (--config FILE [--lease NAME] | --store URL --lease NAME)
                 removes the mark drain left: INSTANCE may lead again
)";

Parsed parse(const QStringList &arguments)
{
    using namespace commandline;
    const bool drain = arguments.value(1) != QLatin1String("undrain");
    const QByteArray command = commandName(drain).toLatin1();
    QCommandLineParser parser;
    parser.setApplicationDescription(
            drain ? QStringLiteral("Marks an instance drained: it hands its leases over and takes none while "
                                   "another candidate is live.")
                  : QStringLiteral("Removes the mark of baton drain: the instance may lead again."));
    parser.addPositionalArgument(QStringLiteral("INSTANCE"),
                                 drain ? QStringLiteral("The instance to drain (its instance id).")
                                       : QStringLiteral("The instance to undrain (its instance id)."));
    const QCommandLineOption lease(QStringLiteral("lease"),
                                   QStringLiteral("Only this lease, instead of every lease of the configuration."),
                                   QStringLiteral("NAME"));
    const QCommandLineOption store(QStringLiteral("store"),
                                   QStringLiteral("The store the lease is in, by URL instead of a configuration "
                                                  "(with --lease): file:///folder, or etcd endpoints "
                                                  "http://host:port[,...]."),
                                   QStringLiteral("URL"));
    const QCommandLineOption config = configOption();
    parser.addOptions({lease, store, config});
    if (const int done = commandline::parse(parser, command.constData(), arguments, /*takesArguments=*/true);
        done != Run)
        return {{}, done};
    const QStringList instances = parser.positionalArguments();
    if (instances.size() != 1)
        return {{}, refuse(command.constData(),
                           QStringLiteral("name exactly one INSTANCE (given: %1)").arg(instances.size()))};
    DrainCommand::Options options;
    options.drain = drain;
    options.instance = instances.first().trimmed();
    if (options.instance.isEmpty())
        return {{}, refuse(command.constData(), QStringLiteral("INSTANCE is empty: name the instance id"))};
    if (parser.isSet(lease)) {
        options.lease = parser.value(lease).trimmed();
        if (options.lease.isEmpty())
            return {{}, refuse(command.constData(), QStringLiteral("--lease is empty: name a lease"))};
    }
    options.storeUrl = parser.value(store);
    if (!options.storeUrl.isEmpty()) {
        if (options.lease.isEmpty())
            return {{}, refuse(command.constData(),
                               QStringLiteral("--store URL needs --lease NAME: a store holds the leases of many "
                                              "configurations"))};
        return {options};
    }
    options.configPath = configPathOf(parser, config);
    if (options.configPath.isEmpty())
        return {{}, refuse(command.constData(),
                           QStringLiteral("--config FILE (or BATON_CONFIG) or --store URL --lease NAME is required"))};
    return {options};
}

} // namespace drainoptions

} // namespace baton
