#include "commandline.h"

#include <cstdio>

namespace baton::commandline {

const char *const usage = R"(Usage: baton COMMAND [OPTIONS]

Leader election for Qt applications.

Commands:
  join --config FILE [--lease NAME ...] [--exec CMD] [--grace MS]
       [--on-exit restart|step-down] [--once] [--try DURATION]
       [--events json] [--listen ADDR] [--explain]
                 take part in the elections of FILE (or of the leases named)
                 until SIGTERM or SIGINT, then deregister, stop the command,
                 release and exit 0;
                 --exec CMD runs /bin/sh -c CMD while leading the first lease:
                 SIGTERM to its process group when leadership ends, SIGKILL
                 after --grace MS (at most 3/4 of the safety margin, default
                 half), by baton or, if baton is frozen or dies, by the guard;
                 --on-exit: a command that exits by itself while leading is
                 restarted with back-off, or (step-down) the lease is released
                 and baton exits 3;
                 --once: run the command one time while leading, hold the
                 lease for at least its duration, release it and exit with
                 the command's status (5 if leadership ended under it);
                 --try DURATION: exit 4 unless leading the first lease
                 within DURATION (0: only if it is free now; 500ms, 30s, 5m);
                 --events json writes one JSON event a line to stdout;
                 --listen [HOST:]PORT serves /metrics, /livez (or /healthz),
                 /readyz and /leader (loopback
                 unless a non-loopback address is given as numbers);
                 --explain prints what the timings guarantee, and exits
  status [LEASE...] --config FILE [-w|--watch] [-o table|wide|jsonl|json|name]
         [--no-headers] [--json] [--check] [--history [FILE.csv|FILE.json]]
  status [LEASE...] --store URL [--prefix P] [--cacert F] [--cert F --key F]
         [--user NAME --password-file F] [-w] [-o FORMAT] [--check] [--history [F]]
  status [LEASE...] --kube-context CONTEXT [--kubeconfig FILE]
         [-n|--namespace N | -A|--all-namespaces] [-w] [-o FORMAT] [--check]
                 the leases of FILE's Registry, of the store at URL
                 (file:///folder, or etcd http://host:port[,...]; no
                 credentials in URLs), or the Kubernetes Leases of
                 a namespace (default: the context's) or of all namespaces
                 (named namespace/name), one line each: holder, held since,
                 last renewal against the lease duration, transitions;
                 only the LEASEs named; status never creates or writes
                 anything (a missing folder is an error naming it);
                 -o wide: also the renewal time, the lease duration, the
                 time since this observer saw the record change (by its
                 clock), and the source; -o jsonl (or --json): one JSON
                 record a line; -o json: one document; -o name: the names
                 only; --check: exit 0 when
                 every lease shown has a live holder, 1 when one has none
                 or has expired, 3 when the store could not be read;
                 --watch: follow them and
                 print each failover until SIGINT/SIGTERM; --history: the
                 holder changes instead (time, lease, from, to, why, gap,
                 transitions), those stored with each lease then those
                 seen, oldest first; --history FILE: write them on exit.
                 On Kubernetes it needs only
                 get, list and watch on leases (without watch, it polls)
  demo           three participants on a file Registry: a crash failover and
                 a clean handover, shown live, then the history
  help           this text

Exit status:
  0    done (a stop by SIGTERM/SIGINT is a success)
  1    failed while running (store unreachable for status, listen failed);
       status --check: a lease without a live holder
  2    bad command line or configuration (nothing was started)
  3    join --exec --on-exit step-down: the command exited while leading;
       the lease was released; status --check: the store could not be read
  4    join --try: this instance did not lead within DURATION
  5    join --once: leadership ended before the command finished; it was
       stopped (otherwise --once exits with the command's own status)
  130, 143
       a second SIGINT/SIGTERM during a clean stop: exited at once

Environment:
  BATON_CONFIG   the configuration of join and status when --config is not
                 given
  BATON_DATA_DIR the data folder (default Registry: BATON_DATA_DIR/registry)
  BATON_PREFIX, BATON_CACERT, BATON_CERT, BATON_KEY, BATON_USER,
  BATON_PASSWORD_FILE
                 status --store: the flags of the same names, when not given
  BATON_OUTPUT_QUEUE_BYTES
                 join: how many bytes of event records, and of log lines,
                 may wait for a slow reader before they are dropped
                 (default 262144, at least 4096)
)";

/*! Parses the options of one command; returns false (and an exit code) when done. */
bool parseCommand(QCoreApplication &app, QCommandLineParser &parser, const char *command, int *exitCode,
                  bool takesArguments, QStringList arguments)
{
    parser.addHelpOption();
    if (arguments.isEmpty())
        arguments = app.arguments();
    arguments.removeAt(1); // the command name
    if (!parser.parse(arguments)) {
        std::fprintf(stderr, "baton %s: %s\n", command, qPrintable(parser.errorText()));
        *exitCode = 2;
        return false;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        // Qt names the program by its path; operators know it as `baton join`.
        QString help = parser.helpText();
        help.replace(0, help.indexOf(QLatin1Char('\n')),
                     QStringLiteral("Usage: baton %1 [options]").arg(QLatin1String(command)));
        std::fputs(qPrintable(help), stdout);
        *exitCode = 0;
        return false;
    }
    if (!takesArguments && !parser.positionalArguments().isEmpty()) {
        std::fprintf(stderr, "baton %s: unexpected argument \"%s\"\n", command,
                     qPrintable(parser.positionalArguments().constFirst()));
        *exitCode = 2;
        return false;
    }
    return true;
}

/*! `--config FILE`, which join and status both take. */
QCommandLineOption configOption()
{
    return QCommandLineOption(QStringLiteral("config"), QStringLiteral("The application configuration (JSON)."),
                              QStringLiteral("FILE"));
}

/*! The configuration named by --config, else by BATON_CONFIG. */
QString configPathOf(const QCommandLineParser &parser, const QCommandLineOption &config)
{
    return parser.isSet(config) ? parser.value(config) : qEnvironmentVariable("BATON_CONFIG");
}

/*! Says what is wrong with the command line, as `baton COMMAND: ...`; returns exit status 2. */
int refuse(const char *command, const QString &text)
{
    std::fprintf(stderr, "baton %s: %s\n", command, qPrintable(text));
    return 2;
}

} // namespace baton::commandline
