#include "checkcommand.h"

#include "electionconfig.h"
#include "electionprobe.h"

#include <baton/application.h>
#include <baton/clusterservice.h>
#include <cstdio>
#include <QStringList>

namespace baton {

namespace {

const char *const severityWord[] = { "OK", "WARNING", "CRITICAL", "UNKNOWN" };

/*! The plugins' output: the first line is the verdict, on stdout. */
void say(const QString &text)
{
    std::fprintf(stdout, "%s\n", qPrintable(text));
    std::fflush(stdout);
}

} // namespace

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
    if (!electionconfig::load(*m_application, m_options.configPath, &m_clusters, &error)) {
        // The same line join gives, so that the fix is the same.
        say(QStringLiteral("CRITICAL - %1").arg(error));
        say(QStringLiteral("baton join refuses this configuration: nothing was contacted"));
        return Critical;
    }
    probeNext();
    return -1;
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
    int worst = Ok;
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
    say(QStringLiteral("%1 - %2").arg(QLatin1String(severityWord[worst]),
                                      summaries.join(QStringLiteral("; "))));
    for (const QString &line : std::as_const(details))
        say(line);
    Q_EMIT finished(worst);
}

} // namespace baton
