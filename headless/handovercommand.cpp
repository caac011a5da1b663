#include "handovercommand.h"

#include "commandline.h"
#include "operatorname.h"

#include <baton/leaseobserver.h>
#include <batoninternal/labelselector.h>

#include <QCommandLineParser>
#include <QTimer>

namespace baton {

HandoverCommand::HandoverCommand(Options options, QObject *parent)
    : QObject(parent)
    , m_options(std::move(options))
{
}

int HandoverCommand::start()
{
    LeaseSourceOptions source;
    if (!m_options.storeUrl.isEmpty()) {
        source.kind = LeaseSourceOptions::Kind::StoreUrl;
        source.storeUrl = m_options.storeUrl;
    } else {
        source.kind = LeaseSourceOptions::Kind::Configuration;
        source.configPath = m_options.configPath;
    }
    source.readOnly = false; // the request is a write into the lease record
    QString error;
    LeaseObserver::OpenError why = LeaseObserver::OpenError::NoError;
    m_observer = LeaseObserver::open(source, this, &error, &why);
    if (!m_observer) {
        commandline::complain("handover", error);
        return why == LeaseObserver::OpenError::SourceUnavailable ? 1 : commandline::BadUsage;
    }
    auto done = [this](bool ok, const QString &message) {
        if (ok)
            commandline::say(message);
        else
            commandline::complain("handover", message);
        // After the callback has returned: the observer owns the request.
        QTimer::singleShot(0, this, [this, ok] { Q_EMIT finished(ok ? 0 : 1); });
    };
    if (m_options.selector.isEmpty())
        m_observer->requestHandover(m_options.lease, m_options.to, operatorName(), done);
    else
        m_observer->requestHandoverToMatching(m_options.lease, m_options.selector, operatorName(), done);
    return -1;
}

namespace handoveroptions {

const char *const usage = R"(  handover LEASE --to INSTANCE|SELECTOR|any (--config FILE | --store URL)
                 asks LEASE's holder to hand the leadership over to
                 INSTANCE with no other instance leading in between: the
                 holder stops its work as on a stop, then leaves the lease
                 free and kept for INSTANCE alone for one lease duration
                 (should INSTANCE be gone, anybody takes it after that);
                 --to SELECTOR (zone=b, "zone in (b,c),!canary"): to the
                 running, undrained candidate whose labels (join --label)
                 match, of the highest priority, else of the first id;
                 nothing moves if the holder matches already;
                 --to any: a plain release. It writes the request into the
                 lease (in FILE's Registry or the store at URL) and exits
                 0 once written; 1 when nobody holds LEASE, no candidate
                 matches SELECTOR, or the write failed. The history
                 records who asked (user@host)
)";

Parsed parse(const QStringList &arguments)
{
    using namespace commandline;
    QCommandLineParser parser;
    parser.setApplicationDescription(
            QStringLiteral("Asks a lease's holder to hand the leadership over to another instance."));
    parser.addPositionalArgument(QStringLiteral("LEASE"), QStringLiteral("The lease to hand over."));
    const QCommandLineOption to(QStringLiteral("to"),
                                QStringLiteral("The instance to hand over to; a label selector (zone=b) for the "
                                               "best running candidate that matches (none: exit status 1, "
                                               "nothing written); or \"any\" for a plain release."),
                                QStringLiteral("INSTANCE"));
    const QCommandLineOption store(QStringLiteral("store"),
                                   QStringLiteral("The store the lease is in, by URL instead of a configuration: "
                                                  "file:///folder, or etcd endpoints http://host:port[,...]."),
                                   QStringLiteral("URL"));
    const QCommandLineOption config = configOption();
    parser.addOptions({to, store, config});
    if (const int done = commandline::parse(parser, "handover", arguments, /*takesArguments=*/true);
        done != Run)
        return {{}, done};
    const QStringList leases = parser.positionalArguments();
    if (leases.size() != 1)
        return {{}, refuse("handover", QStringLiteral("name exactly one LEASE (given: %1)").arg(leases.size()))};
    const QString target = parser.value(to).trimmed();
    if (target.isEmpty())
        return {{}, refuse("handover", QStringLiteral("--to INSTANCE is required (or --to any)"))};
    HandoverCommand::Options options;
    options.lease = leases.first();
    if (LabelSelector::looksLikeSelector(target)) {
        QString error;
        if (!LabelSelector::parse(target, &error))
            return {{}, refuse("handover", QStringLiteral("--to %1").arg(error))};
        options.selector = target;
    } else {
        options.to = target == QLatin1String("any") ? QStringLiteral("*") : target;
    }
    options.storeUrl = parser.value(store);
    if (options.storeUrl.isEmpty()) {
        options.configPath = configPathOf(parser, config);
        if (options.configPath.isEmpty())
            return {{}, refuse("handover", QStringLiteral("--config FILE (or BATON_CONFIG) or --store URL is required"))};
    }
    return {options};
}

} // namespace handoveroptions

} // namespace baton
