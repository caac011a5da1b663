#include "checkcommand.h"

#include "commandline.h"
#include "electionconfig.h"
#include "electionprobe.h"
#include "verdict.h"

#include <baton/application.h>
#include <baton/clusterservice.h>
#include <QDir>
#include <QFileInfo>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QStringList>

namespace baton {

CheckCommand::CheckCommand(Options options, QObject *parent)
    : QObject(parent)
    , m_options(std::move(options))
{ }

CheckCommand::~CheckCommand()
{
    // The probes hold stores of the configuration's application.
    qDeleteAll(m_probes);
    m_probes.clear();
}

int CheckCommand::start()
{
    m_application = std::make_unique<Application>();
    // check starts no election: no signal of its own to stop one.
    m_application->setStopOnSignals(false);
    QString error;
    // The same line join gives, so that the fix is the same.
    if (!electionconfig::load(*m_application, m_options.configPath, &m_clusters, &error)
        || !initWithoutElecting(&error))
        return verdict::tell(verdict::Critical, error,
                             {QStringLiteral("baton join refuses this configuration: nothing was contacted")});
    probeNext();
    return -1;
}

bool CheckCommand::initWithoutElecting(QString *errorString)
{
    // Each service checks its parameters in init(), as under join; but the
    // application is never initialised, so no election begins (they wait
    // for its started()).
    const QString defaultFolder
        = QDir(m_application->dataFolder()).filePath(QStringLiteral("registry"));
    const bool defaultRegistryMissing
        = !m_application->service(QStringLiteral("Registry")) && !QFileInfo::exists(defaultFolder);
    // A cluster service's init says it "joins the election": not so here.
    QLoggingCategory::setFilterRules(QStringLiteral("baton.election.info=false"));
    for (Service *service : m_application->services()) {
        // A file store's init may create its folder: the probe looks at the
        // folder instead, and reads through a read-only copy.
        if (service->type() == QLatin1String("Webda/FileStore"))
            continue;
        // The default Registry would be created by the election's init.
        if (qobject_cast<ClusterService *>(service) && defaultRegistryMissing
            && !service->parameters().contains(QStringLiteral("store")))
            continue;
        QString error;
        if (!service->init(&error)) {
            *errorString = QStringLiteral("%1: %2").arg(m_options.configPath, error);
            return false;
        }
    }
    return true;
}

void CheckCommand::probeNext()
{
    if (m_probes.size() == m_clusters.size()) {
        report();
        return;
    }
    auto *probe = new ElectionProbe(*m_application, *m_clusters.at(m_probes.size()));
    m_probes.append(probe);
    connect(probe, &ElectionProbe::finished, this, &CheckCommand::probeNext, Qt::QueuedConnection);
    probe->start();
}

void CheckCommand::report()
{
    int worst = verdict::Ok;
    QStringList summaries;
    QStringList details;
    for (const ElectionProbe *probe : std::as_const(m_probes)) {
        const ProbeFinding finding = probe->finding();
        worst = std::max(worst, finding.severity);
        details += finding.details;
    }
    // The summary names what is worst first: a monitor shows only that line.
    for (const ElectionProbe *probe : std::as_const(m_probes))
        if (probe->finding().severity == worst)
            summaries.append(probe->finding().summary);
    Q_EMIT finished(verdict::tell(verdict::Severity(worst), summaries.join(QStringLiteral("; ")), details));
}

} // namespace baton
