#include "joincommand.h"

#include "signalwatcher.h"

#include <baton/application.h>
#include <baton/clusterservice.h>

#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>

namespace baton {

JoinCommand::JoinCommand(Options options, QObject *parent)
    : QObject(parent)
    , m_options(std::move(options))
{
}

JoinCommand::~JoinCommand() = default;

int JoinCommand::start()
{
    m_application = std::make_unique<Application>();
    QString error;
    if (!m_application->loadConfigFile(m_options.configPath, &error)) {
        std::fprintf(stderr, "baton join: %s\n", qPrintable(error));
        return BadUsage;
    }
    QList<ClusterService *> clusters;
    for (Service *service : m_application->services())
        if (auto *cluster = qobject_cast<ClusterService *>(service))
            clusters.append(cluster);
    if (clusters.isEmpty()) {
        std::fprintf(stderr,
                     "baton join: %s: no cluster service to join (add one of type "
                     "\"Webda/StoreClusterService\")\n",
                     qPrintable(m_options.configPath));
        return BadUsage;
    }
    if (m_options.eventsJson)
        for (ClusterService *cluster : clusters)
            connect(cluster, &ClusterService::electionEvent, this, &JoinCommand::writeEvent);

    // Signals are caught before the election starts, so that even the first
    // acquisition is released cleanly when a stop comes at once.
    m_signals = new SignalWatcher(this);
    connect(m_signals, &SignalWatcher::terminationRequested, this, [this] {
        m_application->stop();
    });
    connect(m_application.get(), &Application::stopped, this, [this] { Q_EMIT finished(Success); });

    if (!m_application->init(&error)) {
        std::fprintf(stderr, "baton join: %s\n", qPrintable(error));
        return BadUsage;
    }
    for (ClusterService *cluster : clusters)
        std::fprintf(stderr, "baton join: %s takes part in \"%s\" as %s\n  %s\n",
                     qPrintable(cluster->name()), qPrintable(cluster->leaseName()),
                     qPrintable(cluster->instanceId()),
                     qPrintable(cluster->timings().explain().replace(QLatin1Char('\n'),
                                                                     QStringLiteral("\n  "))));
    return -1;
}

void JoinCommand::writeEvent(const QJsonObject &event)
{
    const QByteArray line = QJsonDocument(event).toJson(QJsonDocument::Compact);
    std::fwrite(line.constData(), 1, size_t(line.size()), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout); // readers act on each line as it comes
}

} // namespace baton
