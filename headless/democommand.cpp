#include "democommand.h"

#include "commandline.h"

#include <baton/clock.h>
#include "participantprocess.h"
#include <batoninternal/privatefiles.h>
#include "signalwatcher.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QUrl>

#include <algorithm>
#include <utility>
#include <csignal>
#include <cstdio>

namespace baton {

using commandline::say;

DemoCommand::DemoCommand(QString batonProgram, QObject *parent)
    : QObject(parent)
    , m_program(std::move(batonProgram))
{
    m_stepTimer.setSingleShot(true);
    connect(&m_stepTimer, &QTimer::timeout, this, &DemoCommand::advance);
    m_giveUp.setSingleShot(true);
    connect(&m_giveUp, &QTimer::timeout, this,
            [this] { fail(QStringLiteral("the demo did not finish within 60 s")); });
}

DemoCommand::~DemoCommand()
{
    // The participants go first (QProcess kills and reaps them): the folder
    // they write in is removed with m_folder right after.
    qDeleteAll(std::exchange(m_participants, {}));
}

qint64 DemoCommand::monotonicNow() const
{
    return Clock::system().monotonicMs();
}

int DemoCommand::start()
{
    if (!m_folder.isValid()) {
        std::fprintf(stderr, "baton demo: cannot create a temporary folder: %s\n",
                     qPrintable(m_folder.errorString()));
        return 1;
    }
    // SIGINT or SIGTERM ends the demo through the event loop, so that the
    // folder is removed as after a normal end.
    auto *watcher = new SignalWatcher(this);
    connect(watcher, &SignalWatcher::terminationRequested, this, &DemoCommand::interrupt);
    say(QStringLiteral("Three participants elect a leader on a file Registry in %1\n"
                       "lease %2 ms, renewal every %3 ms\n")
                .arg(m_folder.path())
                .arg(leaseDurationMs)
                .arg(renewIntervalMs));
    const QStringList names {QStringLiteral("alpha"), QStringLiteral("bravo"),
                             QStringLiteral("charlie")};
    for (const QString &name : names) {
        const QJsonObject config {
                {QStringLiteral("services"),
                 QJsonObject {
                         {QStringLiteral("Registry"),
                          QJsonObject {{QStringLiteral("type"), QStringLiteral("Webda/FileStore")},
                                       {QStringLiteral("folder"), m_folder.filePath(QStringLiteral("registry"))}}},
                         {QStringLiteral("cluster"),
                          QJsonObject {{QStringLiteral("type"), QStringLiteral("Webda/StoreClusterService")},
                                       {QStringLiteral("leaseName"), QStringLiteral("demo")},
                                       {QStringLiteral("instanceId"), name},
                                       {QStringLiteral("leaseDuration"), leaseDurationMs},
                                       {QStringLiteral("renewInterval"), renewIntervalMs}}}}}};
        const QString path = m_folder.filePath(name + QStringLiteral(".json"));
        QFile file(path);
        if (!privatefiles::prepareFile(path) || !file.open(QIODevice::WriteOnly)
            || file.write(QJsonDocument(config).toJson()) < 0) {
            std::fprintf(stderr, "baton demo: cannot write %s\n", qPrintable(path));
            return 1;
        }
        auto *participant = new ParticipantProcess(
                name, m_program,
                {QStringLiteral("join"), QStringLiteral("--config"), path,
                 QStringLiteral("--events"), QStringLiteral("json")},
                this);
        connect(participant, &ParticipantProcess::leadingChanged, this,
                [this, participant](bool leading) { onLeadingChanged(participant, leading); });
        connect(participant, &ParticipantProcess::finished, this, [this] {
            if (m_stage == Stage::Stopping
                && std::none_of(m_participants.begin(), m_participants.end(),
                                [](ParticipantProcess *p) { return p->isRunning(); })) {
                printHistory();
                showStatus();
            }
        });
        m_participants.append(participant);
    }
    m_startMono = monotonicNow();
    for (ParticipantProcess *participant : m_participants)
        participant->start();
    m_giveUp.start(60000);
    printTable(QStringLiteral("started"));
    return -1;
}

ParticipantProcess *DemoCommand::leader() const
{
    for (ParticipantProcess *participant : m_participants)
        if (participant->isLeading())
            return participant;
    return nullptr;
}

void DemoCommand::onLeadingChanged(ParticipantProcess *participant, bool leading)
{
    // A killed process says nothing more: its leadership ends in the eyes of
    // this demo, while the lease itself stays until it expires.
    const QString what = leading ? QStringLiteral("leads")
            : participant->isRunning() ? QStringLiteral("stopped leading")
                                       : QStringLiteral("is gone; its lease stays until it expires");
    printTable(QStringLiteral("%1 %2").arg(participant->label(), what));
    if (!leading)
        return;
    switch (m_stage) {
    case Stage::WaitingForLeader:
        m_stage = Stage::LeaderRunning;
        m_stepTimer.start(3000);
        break;
    case Stage::AfterCrash:
        if (participant != m_faulted) {
            m_crashFailoverMs = monotonicNow() - m_faultMono;
            say(QStringLiteral("\n  crash failover: %1 took over %2 ms after the kill "
                               "(bound: lease + renewal = %3 ms)\n")
                        .arg(participant->label())
                        .arg(m_crashFailoverMs)
                        .arg(leaseDurationMs + renewIntervalMs));
            m_stepTimer.start(2000);
        }
        break;
    case Stage::AfterHandover:
        if (participant != m_faulted) {
            m_handoverMs = monotonicNow() - m_faultMono;
            say(QStringLiteral("\n  clean handover: %1 took over %2 ms after SIGTERM\n")
                        .arg(participant->label())
                        .arg(m_handoverMs));
            m_stepTimer.start(1000);
        }
        break;
    case Stage::LeaderRunning:
    case Stage::Stopping:
        break;
    }
}

void DemoCommand::advance()
{
    ParticipantProcess *current = leader();
    switch (m_stage) {
    case Stage::LeaderRunning:
        if (!current)
            return fail(QStringLiteral("the leader went away by itself"));
        say(QStringLiteral("\n  SIGKILL to the leader, %1: it cannot release its lease\n")
                    .arg(current->label()));
        m_stage = Stage::AfterCrash;
        m_faulted = current;
        m_faultMono = monotonicNow();
        current->sendSignal(SIGKILL);
        break;
    case Stage::AfterCrash:
        if (!current)
            return fail(QStringLiteral("no leader after the failover"));
        say(QStringLiteral("  SIGTERM to the new leader, %1: it deregisters, then releases\n")
                    .arg(current->label()));
        m_stage = Stage::AfterHandover;
        m_faulted = current;
        m_faultMono = monotonicNow();
        current->sendSignal(SIGTERM);
        break;
    case Stage::AfterHandover:
        say(QStringLiteral("  stopping the last participant\n"));
        m_stage = Stage::Stopping;
        for (ParticipantProcess *participant : m_participants)
            participant->sendSignal(SIGTERM);
        break;
    case Stage::WaitingForLeader:
    case Stage::Stopping:
        break;
    }
}

void DemoCommand::printTable(const QString &note)
{
    QString line = QStringLiteral("%1s ").arg(double(monotonicNow() - m_startMono) / 1000.0, 6, 'f', 1);
    for (ParticipantProcess *participant : m_participants) {
        const QString state = !participant->isRunning() && participant->exitStatus() == QProcess::CrashExit
                ? QStringLiteral("killed")
                : !participant->isRunning() ? QStringLiteral("-")
                : participant->isLeading() ? QStringLiteral("LEADER")
                                           : QStringLiteral("follower");
        line += QStringLiteral("  %1 %2").arg(participant->label(), -8).arg(state, -9);
    }
    if (!note.isEmpty())
        line += QStringLiteral("  | ") + note;
    say(line);
}

void DemoCommand::printHistory()
{
    struct Row
    {
        qint64 mono;
        QString text;
    };
    QList<Row> rows;
    for (ParticipantProcess *participant : m_participants) {
        for (const QJsonObject &e : participant->events()) {
            const QString name = e.value(QStringLiteral("event")).toString();
            QString text;
            if (name == QLatin1String("started-leading"))
                text = QStringLiteral("%1 started leading (token %2)")
                               .arg(participant->label())
                               .arg(e.value(QStringLiteral("token")).toInteger());
            else if (name == QLatin1String("stopped-leading"))
                text = QStringLiteral("%1 stopped leading (%2)")
                               .arg(participant->label(), e.value(QStringLiteral("reason")).toString());
            else if (name == QLatin1String("released"))
                text = QStringLiteral("%1 released the lease").arg(participant->label());
            else
                continue;
            rows.append({qint64(e.value(QStringLiteral("mono")).toDouble()),
                         e.value(QStringLiteral("ts")).toString() + QStringLiteral("  ") + text});
        }
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const Row &a, const Row &b) { return a.mono < b.mono; });
    say(QStringLiteral("\nHistory (from the participants' event streams):"));
    for (const Row &row : rows)
        say(QStringLiteral("  ") + row.text);
    say(QStringLiteral("\ncrash failover %1 ms, clean handover %2 ms")
                .arg(m_crashFailoverMs)
                .arg(m_handoverMs));
}

void DemoCommand::showStatus()
{
    // The same lease as an operator sees it: `baton status`, a real process
    // on the same store, now that every participant is gone. Not shown as a
    // command to type: the folder is removed when the demo ends.
    const QString url = QUrl::fromLocalFile(m_folder.filePath(QStringLiteral("registry"))).toString();
    say(QStringLiteral("\nWhat `baton status` shows of this Registry (removed when the demo ends):"));
    auto *status = new QProcess(this);
    status->setProcessChannelMode(QProcess::ForwardedChannels);
    connect(status, &QProcess::finished, this, [this](int exitCode) {
        Q_EMIT finished(exitCode == 0 ? 0 : 1);
    });
    status->start(m_program, {QStringLiteral("status"), QStringLiteral("--store"), url});
}

void DemoCommand::interrupt(int signalNumber)
{
    m_stepTimer.stop();
    m_giveUp.stop();
    say(QStringLiteral("\ninterrupted: stopping the participants and removing %1").arg(m_folder.path()));
    for (ParticipantProcess *participant : std::as_const(m_participants))
        participant->sendSignal(SIGKILL);
    Q_EMIT finished(128 + signalNumber);
}

void DemoCommand::fail(const QString &why)
{
    std::fprintf(stderr, "baton demo: %s\n", qPrintable(why));
    for (ParticipantProcess *participant : m_participants) {
        participant->sendSignal(SIGKILL);
        const QByteArray log = participant->standardError();
        if (!log.isEmpty())
            std::fprintf(stderr, "--- %s ---\n%s\n", qPrintable(participant->label()), log.constData());
    }
    m_stage = Stage::Stopping;
    Q_EMIT finished(1);
}

} // namespace baton
