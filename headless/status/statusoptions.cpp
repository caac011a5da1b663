#include "statusoptions.h"

#include "commandline.h"
#include "verdict.h"

namespace baton::statusoptions {

using namespace commandline;

const char *const usage = R"(  status [LEASE...] --config FILE [-w|--watch] [-o table|wide|jsonl|json|yaml|name]
         [--no-headers] [--json] [--check] [--history [FILE.csv|FILE.json]] [--runs]
  status [LEASE...] --store URL [--prefix P] [--cacert F] [--cert F --key F]
         [--user NAME --password-file F] [-w] [-o FORMAT] [--check] [--history [F]]
  status [LEASE...] --kube-context|--context CONTEXT [--kubeconfig FILE]
         [-n|--namespace N | -A|--all-namespaces] [-w] [-o FORMAT] [--check]
                 the leases of FILE's Registry, of the store at URL
                 (file:///folder, or etcd http://host:port[,...]; no
                 credentials in URLs), or the Kubernetes Leases of
                 a namespace (default: the context's) or of all namespaces
                 (named namespace/name), one line each: holder, held since,
                 last renewal against the lease duration, transitions;
                 only the LEASEs named (one not there: exit 1, naming
                 the leases there are); status never creates or writes
                 anything (a missing folder is an error naming it);
                 -o wide: also the renewal time, the lease duration, the
                 time since this observer saw the record change (by its
                 clock), and the source; -o jsonl (or --json): one JSON
                 record a line; -o json: one document (a List, as
                 kubectl's; numbers in milliseconds); -o yaml: the same
                 as YAML; -o name: the names only; --check: a verdict
                 instead, as a monitoring plugin gives it (first line
                 "OK - ...", then one line per problem): exit 0 OK, every
                 lease shown has a live holder; 1 WARNING, one renewed
                 late (over half its lease ago); 2 CRITICAL, one has no
                 holder, expired, is unreadable or not found; 3 UNKNOWN,
                 the store could not be read, or a bad command line;
                 --watch: the table, then the row of each lease whose
                 holder or state changed (as kubectl get -w), and on
                 exit (SIGINT/SIGTERM) the failovers seen; --history: the
                 holder changes instead (time, lease, from, to, why, gap,
                 transitions), those stored with each lease then those
                 seen, oldest first; --history FILE: write them on exit.
                 On Kubernetes it needs only
                 get, list and watch on leases (without watch, it polls)
)";

namespace {

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

} // namespace

Parsed parse(QStringList arguments)
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
                                   QStringLiteral("After the table, print the row of each lease "
                                                  "whose holder or state changes, until "
                                                  "SIGINT/SIGTERM; then the failovers seen."));
    const QCommandLineOption json(QStringLiteral("json"),
                                  QStringLiteral("One JSON record a line (as -o jsonl)."));
    const QCommandLineOption output({QStringLiteral("o"), QStringLiteral("output")},
                                    QStringLiteral("table (default), wide (the table with the "
                                                   "renewal time, lease duration, time since seen "
                                                   "changed, and source), jsonl (one JSON record a "
                                                   "line), json (one document), yaml (the same "
                                                   "document as YAML) or name."),
                                    QStringLiteral("FORMAT"));
    const QCommandLineOption noHeaders(QStringLiteral("no-headers"),
                                       QStringLiteral("The table without its header line."));
    const QCommandLineOption check(QStringLiteral("check"),
                                   QStringLiteral("A monitoring plugin's verdict instead of the "
                                                  "leases: exit 0 OK (every lease shown has a live "
                                                  "holder), 1 WARNING (one renewed late), 2 CRITICAL "
                                                  "(one without a live holder, or not found), 3 "
                                                  "UNKNOWN (the store could not be read, a bad "
                                                  "command line)."));
    const QCommandLineOption history(QStringLiteral("history"),
                                     QStringLiteral("Print each lease's holder changes, those "
                                                    "stored with it then those seen, instead of "
                                                    "the leases. --history FILE.csv|FILE.json: on "
                                                    "exit, write them to FILE."));
    const QCommandLineOption runs(QStringLiteral("runs"),
                                  QStringLiteral("Print the recorded runs of scheduled jobs (baton join "
                                                 "--schedule) of each lease instead of the leases."));
    // --context as kubectl spells it, --kube-context as baton join does.
    const QCommandLineOption kubeContext({QStringLiteral("kube-context"), QStringLiteral("context")},
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
                       output, noHeaders, json, check, history, runs, prefix, cacert, cert, key, user,
                       passwordFile});
    parser.addPositionalArgument(QStringLiteral("LEASE"),
                                 QStringLiteral("Only these leases (all when none is named)."),
                                 QStringLiteral("[LEASE...]"));
    // Under --check a bad command line is a monitoring plugin's UNKNOWN (3).
    const qsizetype end = arguments.indexOf(QStringLiteral("--"));
    const bool checking = arguments.first(end < 0 ? arguments.size() : end).contains(QStringLiteral("--check"));
    const QString historyPath = takeHistoryExport(&arguments);
    if (const int done = commandline::parse(parser, "status", arguments, true); done != Run)
        return {{},
                done == BadUsage && checking
                        ? verdict::tell(verdict::Unknown, QStringLiteral("baton status: bad command line (baton status --help)"))
                        : done};
    static_assert(StatusCommand::BadUsage == BadUsage);
    auto refuse = [checking](const QString &text) {
        return Parsed {{}, checking ? verdict::tell(verdict::Unknown, QStringLiteral("baton status: ") + text)
                                    : commandline::refuse("status", text)};
    };
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
                               QStringLiteral("json"), QStringLiteral("yaml"), QStringLiteral("name")};
    if (!formats.contains(format))
        return refuse(QStringLiteral("-o takes table, wide, jsonl, json, yaml or name, not \"%1\"").arg(format));
    if (parser.isSet(json) && parser.isSet(output) && format != QLatin1String("jsonl"))
        return refuse("--json is -o jsonl: it cannot go with another -o");
    if (parser.isSet(watch)
        && (format == QLatin1String("json") || format == QLatin1String("yaml") || format == QLatin1String("name")))
        return refuse("--watch prints rows or records as the leases change: use -o table, wide or jsonl");
    if (checking && (parser.isSet(output) || parser.isSet(json) || parser.isSet(noHeaders) || parser.isSet(history)
                     || !historyPath.isEmpty()))
        return refuse("--check prints a verdict, not the leases: -o, --json, --no-headers and --history do "
                      "not go with it");
    if (parser.isSet(history) && format == QLatin1String("name"))
        return refuse("-o name lists leases, --history their holder changes: use one of them");
    if (parser.isSet(runs) && (checking || parser.isSet(history) || parser.isSet(watch) || parser.isSet(json)
                               || (parser.isSet(output) && format != QLatin1String("table")
                                   && format != QLatin1String("json") && format != QLatin1String("yaml"))))
        return refuse("--runs prints a table, or with -o json or -o yaml one document: --check, --history, "
                      "--watch, --json and the other -o do not go with it");
    StatusCommand::Options options;
    options.runs = parser.isSet(runs);
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
    options.yamlDocument = format == QLatin1String("yaml");
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
    return {options};
}

} // namespace baton::statusoptions
