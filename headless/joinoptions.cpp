#include "joinoptions.h"

#include "commandline.h"

#include <batoninternal/labelselector.h>
#include <batoninternal/tickschedule.h>

namespace baton::joinoptions {

using namespace commandline;

const char *const usage = R"(  join --config FILE [--lease NAME ...] [--exec CMD] [--grace DURATION]
       [--on-exit restart|step-down] [--once] [--try DURATION]
       [--schedule SPEC [--on-interrupted skip|rerun] [--catch-up DURATION]
        [--overlap skip|queue]] [--priority N] [--prefer-after DURATION]
       [--standby] [--label KEY=VALUE ...] [--events json] [--listen ADDR]
       [--explain]
                 take part in the elections of FILE (or of the leases named)
                 until SIGTERM or SIGINT, then deregister, stop the command,
                 release and exit 0;
                 --priority N (-1000 to 1000, default 0): the leader hands
                 the lease over to a candidate of a higher priority once
                 that one has run unchanged for --prefer-after DURATION
                 (default 30s); equal priorities never move the lease;
                 --standby: start drained: take no lease while another
                 candidate that is not drained runs (baton undrain ends it);
                 --label KEY=VALUE announces a label of this candidate
                 (zone=b), so that baton handover --to zone=b can pick it;
                 --exec CMD runs /bin/sh -c CMD while leading the first lease:
                 SIGTERM to its process group when leadership ends, SIGKILL
                 after --grace DURATION (at most 3/4 of the safety margin,
                 default half), by baton or, if baton is frozen or dies, by
                 the guard;
                 --on-exit: a command that exits by itself while leading is
                 restarted with back-off, or (step-down) the lease is released
                 and baton exits 3;
                 --once: run the command one time while leading, hold the
                 lease for at least its duration, release it and exit with
                 the command's status (5 if leadership ended under it);
                 --schedule SPEC runs the command on the leader once per tick
                 instead ("0 3 * * * Europe/Paris", or "every 10m"), with
                 BATON_TICK set; a run cut short by the end of leadership is
                 run again by the next leader with --on-interrupted rerun; a
                 tick missed while nobody led runs once if at most
                 --catch-up DURATION late (default: never); a tick that comes
                 during a run is skipped, or with --overlap queue waits;
                 --try DURATION: exit 4 unless leading the first lease
                 within DURATION (0: only if it is free now);
                 a DURATION is 500ms, 1.5s, 2m or 1m30s (--grace: a bare
                 number is milliseconds);
                 --events json writes one JSON event a line to stdout;
                 --listen [HOST:]PORT serves /metrics, /livez (or /healthz),
                 /readyz and /leader (loopback
                 unless a non-loopback address is given as numbers);
                 --explain prints what the timings guarantee, and exits
)";

Parsed parse(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Take part in the elections of a configuration."));
    const QCommandLineOption config = configOption();
    const QCommandLineOption lease(QStringLiteral("lease"),
                                   QStringLiteral("Only this lease name (repeat for several)."),
                                   QStringLiteral("NAME"));
    const QCommandLineOption exec(QStringLiteral("exec"),
                                  QStringLiteral("Run CMD with /bin/sh -c while leading the first lease."),
                                  QStringLiteral("CMD"));
    const QCommandLineOption grace(QStringLiteral("grace"),
                                   QStringLiteral("Time between SIGTERM and SIGKILL of the command "
                                                  "(at most 3/4 of the safety margin): 300ms, 2.5s, or "
                                                  "milliseconds."),
                                   QStringLiteral("DURATION"));
    const QCommandLineOption onExit(QStringLiteral("on-exit"),
                                    QStringLiteral("When the command exits while leading: restart "
                                                   "(default) or step-down."),
                                    QStringLiteral("ACTION"));
    const QCommandLineOption events(QStringLiteral("events"),
                                    QStringLiteral("Write the event stream to stdout: json."),
                                    QStringLiteral("FORMAT"));
    const QCommandLineOption listen(QStringLiteral("listen"),
                                    QStringLiteral("Serve /metrics, /livez, /readyz and /leader on ADDR "
                                                   "(PORT or HOST:PORT; loopback by default)."),
                                    QStringLiteral("ADDR"));
    const QCommandLineOption explain(QStringLiteral("explain"),
                                     QStringLiteral("Print what the timings guarantee and exit."));
    const QCommandLineOption once(QStringLiteral("once"),
                                  QStringLiteral("Run the command one time while leading, then release "
                                                 "and exit with its status."));
    const QCommandLineOption tryFor(QStringLiteral("try"),
                                    QStringLiteral("Exit 4 unless leading within DURATION (0: only if "
                                                   "the lease is free now)."),
                                    QStringLiteral("DURATION"));
    const QCommandLineOption schedule(QStringLiteral("schedule"),
                                      QStringLiteral("Run the command once per tick of SPEC on the leader: "
                                                     "five cron fields and a time zone, or \"every DURATION\"."),
                                      QStringLiteral("SPEC"));
    const QCommandLineOption onInterrupted(QStringLiteral("on-interrupted"),
                                           QStringLiteral("A run cut short when leadership ended: skip "
                                                          "(default) or rerun."),
                                           QStringLiteral("ACTION"));
    const QCommandLineOption catchUp(QStringLiteral("catch-up"),
                                     QStringLiteral("Run the latest tick nobody started once, if at most "
                                                    "DURATION late (default 0: never)."),
                                     QStringLiteral("DURATION"));
    const QCommandLineOption overlap(QStringLiteral("overlap"),
                                     QStringLiteral("A tick that comes while a run is going: skip "
                                                    "(default) or queue."),
                                     QStringLiteral("ACTION"));
    const QCommandLineOption priority(QStringLiteral("priority"),
                                      QStringLiteral("This instance's preference, -1000 to 1000 (default 0): "
                                                     "the lease moves to a higher one."),
                                      QStringLiteral("N"));
    const QCommandLineOption preferAfter(QStringLiteral("prefer-after"),
                                         QStringLiteral("How long a higher priority must run unchanged "
                                                        "before the lease moves to it (default 30s)."),
                                         QStringLiteral("DURATION"));
    const QCommandLineOption label(QStringLiteral("label"),
                                   QStringLiteral("A label of this candidate, KEY=VALUE (repeat for several), "
                                                  "for baton handover --to KEY=VALUE."),
                                   QStringLiteral("KEY=VALUE"));
    const QCommandLineOption standby(QStringLiteral("standby"),
                                     QStringLiteral("Start drained: take no lease while another candidate "
                                                    "that is not drained runs."));
    parser.addOptions({config, lease, exec, grace, onExit, once, tryFor, schedule, onInterrupted, catchUp,
                       overlap, priority, preferAfter, standby, label, events, listen, explain});
    if (const int done = commandline::parse(parser, "join", arguments); done != Run)
        return {{}, done};
    static_assert(JoinCommand::BadUsage == BadUsage);
    auto refuse = [](const QString &text) { return Parsed {{}, commandline::refuse("join", text)}; };
    const QString configPath = configPathOf(parser, config);
    if (configPath.isEmpty())
        return refuse(QStringLiteral("--config FILE (or BATON_CONFIG) is required"));
    if (parser.isSet(events) && parser.value(events) != QLatin1String("json"))
        return refuse(QStringLiteral("--events takes \"json\", not \"%1\"").arg(parser.value(events)));
    JoinCommand::Options options;
    options.configPath = configPath;
    options.leases = parser.values(lease);
    options.eventsJson = parser.isSet(events);
    options.exec = parser.value(exec);
    if (parser.isSet(exec) && options.exec.trimmed().isEmpty())
        return refuse(QStringLiteral("--exec needs a command"));
    if (parser.isSet(grace)) {
        QString error;
        options.graceMs = durationOf(QStringLiteral("--grace"), parser.value(grace), BareNumber::Milliseconds, &error);
        if (options.graceMs < 0)
            return refuse(error);
        if (!parser.isSet(exec))
            return refuse(QStringLiteral("--grace only means something with --exec"));
    }
    if (parser.isSet(onExit)) {
        const QString action = parser.value(onExit);
        if (action == QLatin1String("step-down"))
            options.onExit = JoinCommand::OnExit::StepDown;
        else if (action != QLatin1String("restart"))
            return refuse(QStringLiteral("--on-exit takes \"restart\" or \"step-down\", not \"%1\"").arg(action));
        if (!parser.isSet(exec))
            return refuse(QStringLiteral("--on-exit only means something with --exec"));
    }
    if (parser.isSet(once)) {
        if (!parser.isSet(exec))
            return refuse(QStringLiteral("--once only means something with --exec"));
        if (parser.isSet(onExit))
            return refuse(QStringLiteral("--once and --on-exit exclude each other: with --once the "
                                         "command's exit ends baton with its status"));
        options.once = true;
    }
    if (parser.isSet(tryFor)) {
        QString error;
        options.tryMs = durationOf(QStringLiteral("--try"), parser.value(tryFor), BareNumber::OnlyZero, &error);
        if (options.tryMs < 0)
            return refuse(error);
    }
    if (parser.isSet(schedule)) {
        options.schedule = parser.value(schedule);
        QString problem;
        if (!TickSchedule::parse(options.schedule, &problem))
            return refuse(QStringLiteral("--schedule %1").arg(problem));
        if (!parser.isSet(exec))
            return refuse(QStringLiteral("--schedule needs --exec: the command to run at each tick"));
        if (parser.isSet(once) || parser.isSet(onExit))
            return refuse(QStringLiteral("--schedule excludes --once and --on-exit: the command runs "
                                         "once per tick and its exit ends the run"));
    }
    for (const QCommandLineOption *option : {&onInterrupted, &catchUp, &overlap})
        if (parser.isSet(*option) && !parser.isSet(schedule))
            return refuse(QStringLiteral("--%1 only means something with --schedule").arg(option->names().first()));
    if (parser.isSet(onInterrupted)) {
        const QString action = parser.value(onInterrupted);
        if (action != QLatin1String("skip") && action != QLatin1String("rerun"))
            return refuse(QStringLiteral("--on-interrupted takes \"skip\" or \"rerun\", not \"%1\"").arg(action));
        options.rerunInterrupted = action == QLatin1String("rerun");
    }
    if (parser.isSet(overlap)) {
        const QString action = parser.value(overlap);
        if (action != QLatin1String("skip") && action != QLatin1String("queue"))
            return refuse(QStringLiteral("--overlap takes \"skip\" or \"queue\", not \"%1\"").arg(action));
        options.queueOverlap = action == QLatin1String("queue");
    }
    if (parser.isSet(catchUp)) {
        QString error;
        options.catchUpMs = durationOf(QStringLiteral("--catch-up"), parser.value(catchUp), BareNumber::OnlyZero, &error);
        if (options.catchUpMs < 0)
            return refuse(error);
    }
    if (parser.isSet(priority)) {
        bool ok = false;
        const int value = parser.value(priority).toInt(&ok);
        if (!ok || value < -1000 || value > 1000)
            return refuse(QStringLiteral("--priority takes a whole number from -1000 to 1000, not \"%1\"")
                                  .arg(parser.value(priority)));
        options.steering.priority = value;
    }
    if (parser.isSet(preferAfter)) {
        QString error;
        options.steering.preferAfterMs = durationOf(QStringLiteral("--prefer-after"), parser.value(preferAfter),
                                           BareNumber::OnlyZero, &error);
        if (*options.steering.preferAfterMs < 0)
            return refuse(error);
    }
    options.steering.standby = parser.isSet(standby);
    for (const QString &text : parser.values(label)) {
        QString error;
        if (!candidatelabels::parseAssignment(text, &options.steering.labels, &error))
            return refuse(QStringLiteral("--label %1").arg(error));
    }
    options.listen = parser.value(listen);
    options.explain = parser.isSet(explain);
    return {options};
}

} // namespace baton::joinoptions
