// The baton executable: reads the command line and hands over to the
// headless library, where the work and its tests live.

#include "democommand.h"
#include "eventdispatcher.h"
#include "headlesslogging.h"
#include "joincommand.h"
#include "statuscommand.h"
#ifdef BATON_WITH_GUI
#include "dashboard.h"
#include "dashboardlauncher.h"
#endif

#include <batoninternal/didyoumean.h>

#include <QCommandLineParser>
#include <QCoreApplication>

#include <cstdio>

namespace {

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
                  bool takesArguments = false, QStringList arguments = {})
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

/*!
 * Takes the export of `status --history FILE.csv|FILE.json` (or
 * `--history=FILE`) out of \a arguments and returns FILE; a `--history`
 * without such a FILE stays, as the flag that prints the history.
 * QCommandLineParser has no option whose value is optional, and the export
 * came first: its command lines keep working.
 */
QString takeHistoryExport(QStringList *arguments)
{
    const QString flag = QStringLiteral("--history");
    for (qsizetype i = 1; i < arguments->size(); ++i) {
        const QString &argument = arguments->at(i);
        if (argument == QLatin1String("--"))
            break;
        if (argument.startsWith(flag + QLatin1Char('='))) {
            const QString path = argument.mid(flag.size() + 1);
            arguments->removeAt(i);
            return path;
        }
        if (argument == flag && i + 1 < arguments->size()
            && (arguments->at(i + 1).endsWith(QLatin1String(".csv"))
                || arguments->at(i + 1).endsWith(QLatin1String(".json")))) {
            const QString path = arguments->at(i + 1);
            arguments->remove(i, 2);
            return path;
        }
    }
    return {};
}

/*! Says what is wrong with the command line, as `baton COMMAND: ...`; returns exit status 2. */
int refuse(const char *command, const QString &text)
{
    std::fprintf(stderr, "baton %s: %s\n", command, qPrintable(text));
    return 2;
}

/*! Starts \a command and runs until it finishes; its exit status. */
template<typename Command>
int run(QCoreApplication &app, Command &command)
{
    QObject::connect(&command, &Command::finished, &app, &QCoreApplication::exit);
    const int early = command.start();
    return early >= 0 ? early : app.exec();
}

int runJoin(QCoreApplication &app)
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
                                   QStringLiteral("Milliseconds between SIGTERM and SIGKILL of the "
                                                  "command (at most 3/4 of the safety margin)."),
                                   QStringLiteral("MS"));
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
    parser.addOptions({config, lease, exec, grace, onExit, once, tryFor, events, listen, explain});
    int exitCode = 0;
    if (!parseCommand(app, parser, "join", &exitCode))
        return exitCode;
    static_assert(baton::JoinCommand::BadUsage == 2);
    auto refuse = [](const QString &text) { return ::refuse("join", text); };
    const QString configPath = configPathOf(parser, config);
    if (configPath.isEmpty())
        return refuse(QStringLiteral("--config FILE (or BATON_CONFIG) is required"));
    if (parser.isSet(events) && parser.value(events) != QLatin1String("json"))
        return refuse(QStringLiteral("--events takes \"json\", not \"%1\"").arg(parser.value(events)));
    baton::JoinCommand::Options options;
    options.configPath = configPath;
    options.leases = parser.values(lease);
    options.eventsJson = parser.isSet(events);
    options.exec = parser.value(exec);
    if (parser.isSet(exec) && options.exec.trimmed().isEmpty())
        return refuse(QStringLiteral("--exec needs a command"));
    if (parser.isSet(grace)) {
        bool ok = false;
        options.graceMs = parser.value(grace).toLongLong(&ok);
        if (!ok || options.graceMs < 0)
            return refuse(QStringLiteral("--grace takes milliseconds (a whole number), not \"%1\"")
                                  .arg(parser.value(grace)));
        if (!parser.isSet(exec))
            return refuse(QStringLiteral("--grace only means something with --exec"));
    }
    if (parser.isSet(onExit)) {
        const QString action = parser.value(onExit);
        if (action == QLatin1String("step-down"))
            options.onExit = baton::JoinCommand::OnExit::StepDown;
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
        options.tryMs = baton::JoinCommand::parseDuration(parser.value(tryFor), &error);
        if (options.tryMs < 0)
            return refuse(error);
    }
    options.listen = parser.value(listen);
    options.explain = parser.isSet(explain);
    baton::JoinCommand join(options);
    return run(app, join);
}

int runStatus(QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
            QStringLiteral("Show the leases of a configuration's Registry, or the Leases of a "
                           "Kubernetes namespace."));
    const QCommandLineOption config = configOption();
    const QCommandLineOption store(QStringLiteral("store"),
                                   QStringLiteral("A Registry by URL instead of a configuration: "
                                                  "file:///folder, or etcd endpoints "
                                                  "http://host:port[,...]."),
                                   QStringLiteral("URL"));
    const QCommandLineOption watch({QStringLiteral("w"), QStringLiteral("watch")},
                                   QStringLiteral("Follow the leases until SIGINT/SIGTERM."));
    const QCommandLineOption json(QStringLiteral("json"),
                                  QStringLiteral("One JSON record a line (as -o jsonl)."));
    const QCommandLineOption output({QStringLiteral("o"), QStringLiteral("output")},
                                    QStringLiteral("table (default), wide (the table with the "
                                                   "renewal time, lease duration, time since seen "
                                                   "changed, and source), jsonl (one JSON record a "
                                                   "line), json (one document) or name."),
                                    QStringLiteral("FORMAT"));
    const QCommandLineOption noHeaders(QStringLiteral("no-headers"),
                                       QStringLiteral("The table without its header line."));
    const QCommandLineOption check(QStringLiteral("check"),
                                   QStringLiteral("Exit 0 when every lease shown has a live holder, "
                                                  "1 when one has none or has expired, 3 when the "
                                                  "store could not be read."));
    const QCommandLineOption history(QStringLiteral("history"),
                                     QStringLiteral("Print each lease's holder changes, those "
                                                    "stored with it then those seen, instead of "
                                                    "the leases. --history FILE.csv|FILE.json: on "
                                                    "exit, write them to FILE."));
    const QCommandLineOption kubeContext(QStringLiteral("kube-context"),
                                         QStringLiteral("Observe the Kubernetes Leases through this "
                                                        "kubeconfig context."),
                                         QStringLiteral("CONTEXT"));
    const QCommandLineOption kubeconfig(QStringLiteral("kubeconfig"),
                                        QStringLiteral("The kubeconfig file (default: KUBECONFIG, "
                                                       "then ~/.kube/config)."),
                                        QStringLiteral("FILE"));
    const QCommandLineOption namespaceName({QStringLiteral("n"), QStringLiteral("namespace")},
                                           QStringLiteral("The namespace of the Leases (default: "
                                                          "the context's)."),
                                           QStringLiteral("N"));
    const QCommandLineOption allNamespaces({QStringLiteral("A"), QStringLiteral("all-namespaces")},
                                           QStringLiteral("The Leases of every namespace."));
    // What a --store URL cannot carry, as etcdctl names it; BATON_* when not given.
    const QCommandLineOption cacert(QStringLiteral("cacert"),
                                    QStringLiteral("etcd: the CA(s) that signed the members' "
                                                   "certificates (PEM). BATON_CACERT."),
                                    QStringLiteral("FILE"));
    const QCommandLineOption cert(QStringLiteral("cert"),
                                  QStringLiteral("etcd: the client certificate (PEM). BATON_CERT."),
                                  QStringLiteral("FILE"));
    const QCommandLineOption key(QStringLiteral("key"),
                                 QStringLiteral("etcd: the client certificate's key (PEM). BATON_KEY."),
                                 QStringLiteral("FILE"));
    const QCommandLineOption user(QStringLiteral("user"),
                                  QStringLiteral("etcd: the user name. BATON_USER."),
                                  QStringLiteral("NAME"));
    const QCommandLineOption passwordFile(QStringLiteral("password-file"),
                                          QStringLiteral("etcd: a file holding the password. "
                                                         "BATON_PASSWORD_FILE."),
                                          QStringLiteral("FILE"));
    const QCommandLineOption prefix(QStringLiteral("prefix"),
                                    QStringLiteral("etcd: the key prefix of the store "
                                                   "(its \"prefix\" parameter). BATON_PREFIX."),
                                    QStringLiteral("PREFIX"));
    parser.addOptions({config, store, kubeContext, kubeconfig, namespaceName, allNamespaces, watch,
                       output, noHeaders, json, check, history, prefix, cacert, cert, key, user,
                       passwordFile});
    parser.addPositionalArgument(QStringLiteral("LEASE"),
                                 QStringLiteral("Only these leases (all when none is named)."),
                                 QStringLiteral("[LEASE...]"));
    int exitCode = 0;
    QStringList arguments = app.arguments();
    const QString historyPath = takeHistoryExport(&arguments);
    if (!parseCommand(app, parser, "status", &exitCode, true, arguments))
        return exitCode;
    static_assert(baton::StatusCommand::BadUsage == 2);
    auto refuse = [](const QString &text) { return ::refuse("status", text); };
    const bool kubernetes = parser.isSet(kubeContext) || parser.isSet(kubeconfig);
    const int sources = int(parser.isSet(config)) + int(parser.isSet(store)) + int(kubernetes);
    if (sources > 1)
        return refuse("--config, --store and --kube-context/--kubeconfig exclude each other");
    // BATON_CONFIG stands for --config when no other source is named.
    const QString configPath = sources > 0 ? parser.value(config) : configPathOf(parser, config);
    if (sources == 0 && configPath.isEmpty())
        return refuse("--config FILE (or BATON_CONFIG), --store URL or --kube-context CONTEXT is "
                      "required");
    if (!kubernetes && (parser.isSet(namespaceName) || parser.isSet(allNamespaces)))
        return refuse("--namespace and --all-namespaces are for Kubernetes (--kube-context)");
    if (parser.isSet(namespaceName) && parser.isSet(allNamespaces))
        return refuse("--namespace and --all-namespaces exclude each other");
    if (parser.isSet(check) && parser.isSet(watch))
        return refuse("--check looks once and --watch follows: use one of them");
    const QString format = parser.isSet(output) ? parser.value(output)
            : parser.isSet(json)                ? QStringLiteral("jsonl")
                                                : QStringLiteral("table");
    const QStringList formats {QStringLiteral("table"), QStringLiteral("wide"), QStringLiteral("jsonl"),
                               QStringLiteral("json"), QStringLiteral("name")};
    if (!formats.contains(format))
        return refuse(QStringLiteral("-o takes table, wide, jsonl, json or name, not \"%1\"").arg(format));
    if (parser.isSet(json) && parser.isSet(output) && format != QLatin1String("jsonl"))
        return refuse("--json is -o jsonl: it cannot go with another -o");
    if (parser.isSet(watch) && (format == QLatin1String("json") || format == QLatin1String("name")))
        return refuse("--watch prints events as they come: use -o table or -o jsonl");
    if (parser.isSet(history) && format == QLatin1String("name"))
        return refuse("-o name lists leases, --history their holder changes: use one of them");
    baton::StatusCommand::Options options;
    auto valueOrEnvironment = [&](const QCommandLineOption &option, const char *variable) {
        return parser.isSet(option) ? parser.value(option) : qEnvironmentVariable(variable);
    };
    const bool connectionFlags = parser.isSet(cacert) || parser.isSet(cert) || parser.isSet(key)
            || parser.isSet(user) || parser.isSet(passwordFile) || parser.isSet(prefix);
    if (connectionFlags && !parser.isSet(store))
        return refuse("--prefix, --cacert, --cert, --key, --user and --password-file go with "
                      "--store (a configuration file names them itself)");
    // The variables serve etcd; a file store simply does not read them.
    if (parser.isSet(store) && (connectionFlags || !parser.value(store).startsWith(QLatin1String("file:")))) {
        options.caFile = valueOrEnvironment(cacert, "BATON_CACERT");
        options.certFile = valueOrEnvironment(cert, "BATON_CERT");
        options.keyFile = valueOrEnvironment(key, "BATON_KEY");
        options.user = valueOrEnvironment(user, "BATON_USER");
        options.passwordFile = valueOrEnvironment(passwordFile, "BATON_PASSWORD_FILE");
        options.prefix = valueOrEnvironment(prefix, "BATON_PREFIX");
    }
    options.leases = parser.positionalArguments();
    options.check = parser.isSet(check);
    options.namesOnly = format == QLatin1String("name");
    options.jsonDocument = format == QLatin1String("json");
    options.wide = format == QLatin1String("wide");
    options.noHeaders = parser.isSet(noHeaders);
    options.configPath = configPath;
    options.storeUrl = parser.value(store);
    options.kubeContext = parser.value(kubeContext);
    options.kubeconfigPath = parser.value(kubeconfig);
    options.namespaceName = parser.value(namespaceName);
    options.allNamespaces = parser.isSet(allNamespaces);
    options.watch = parser.isSet(watch);
    options.json = format == QLatin1String("jsonl");
    options.historyPath = historyPath;
    options.history = parser.isSet(history);
    baton::StatusCommand status(options);
    return run(app, status);
}

int runDemo(QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
            QStringLiteral("Three participants on a file Registry: a crash failover and a clean "
                           "handover, shown live, then the history."));
    int exitCode = 0;
    if (!parseCommand(app, parser, "demo", &exitCode))
        return exitCode; // --help shows the usage and runs nothing
    baton::DemoCommand demo(QCoreApplication::applicationFilePath());
    return run(app, demo);
}

} // namespace

int main(int argc, char *argv[])
{
#ifdef BATON_WITH_GUI
    // No arguments on a desktop, or --lang: the dashboard.
    if (baton::dashboard::wanted(argc, argv))
        return baton::runDashboardModule(argc, argv);
#endif
    baton::eventdispatcher::preferUnix();
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("baton"));
    QCoreApplication::setApplicationVersion(QStringLiteral(BATON_VERSION));
    baton::headlesslogging::install();

    const QString command = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QStringLiteral("help");
    if (command == QLatin1String("join")) {
        const int status = runJoin(app);
        // The last lines (the release) for a log that keeps up; a stalled one
        // does not hold the exit up past this.
        baton::headlesslogging::drain(std::chrono::seconds(1));
        return status;
    }
    if (command == QLatin1String("status"))
        return runStatus(app);
    if (command == QLatin1String("demo"))
        return runDemo(app);
    if (command == QLatin1String("--version") || command == QLatin1String("version")) {
        std::printf("baton %s\n", BATON_VERSION);
        return 0;
    }
    if (command == QLatin1String("help") || command == QLatin1String("--help")
        || command == QLatin1String("-h")) {
        std::fputs(usage, stdout);
        return 0;
    }
    // One line, with the command a typo most likely meant, not the whole usage.
    const QString meant = baton::parameters::closest(
            command, {QStringLiteral("join"), QStringLiteral("status"), QStringLiteral("demo"),
                      QStringLiteral("help"), QStringLiteral("version")});
    std::fprintf(stderr, "baton: unknown command \"%s\"%s (baton help lists the commands)\n",
                 qPrintable(command),
                 meant.isEmpty() ? ""
                                 : qPrintable(QStringLiteral(", did you mean \"%1\"?").arg(meant)));
    return 2;
}
