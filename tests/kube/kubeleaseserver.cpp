// kube-lease-server: the test Lease API server as a process, for end-to-end
// tests and for trying `baton` by hand without a cluster. Prints one JSON
// line {"url": ..., "ca": ..., "folder": ...} when it listens; runs until
// SIGTERM or SIGINT. The counters are at GET /_baton/counters.
//
//   kube-lease-server [--folder DIR] [--plain] [--port N]
//                     [--token TOKEN:USER:VERB,VERB|*]... [--history N] [--bookmark-ms N]

#include "leaseapiserver.h"
#include "signalwatcher.h"
#include "testcertificates.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QJsonDocument>
#include <QTemporaryDir>

#include <cstdio>

using namespace baton;

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("A test stand-in for the Kubernetes Lease API"));
    parser.addHelpOption();
    const QCommandLineOption folderOption(QStringLiteral("folder"),
                                          QStringLiteral("Where to write the test CA and certificates"),
                                          QStringLiteral("dir"));
    const QCommandLineOption plainOption(QStringLiteral("plain"), QStringLiteral("Plain HTTP, no TLS"));
    const QCommandLineOption portOption(QStringLiteral("port"), QStringLiteral("Port (default: a free one)"),
                                        QStringLiteral("n"), QStringLiteral("0"));
    const QCommandLineOption tokenOption(QStringLiteral("token"),
                                         QStringLiteral("TOKEN:USER:VERBS (comma-separated, or *)"),
                                         QStringLiteral("spec"));
    const QCommandLineOption historyOption(QStringLiteral("history"), QStringLiteral("Watch history length"),
                                           QStringLiteral("n"), QStringLiteral("200"));
    const QCommandLineOption bookmarkOption(QStringLiteral("bookmark-ms"), QStringLiteral("Bookmark interval"),
                                            QStringLiteral("ms"), QStringLiteral("1000"));
    parser.addOptions({folderOption, plainOption, portOption, tokenOption, historyOption, bookmarkOption});
    parser.process(app);

    test::LeaseApiServer server;
    for (const QString &spec : parser.values(tokenOption)) {
        const QStringList parts = spec.split(QLatin1Char(':'));
        if (parts.size() != 3) {
            std::fprintf(stderr, "kube-lease-server: --token wants TOKEN:USER:VERBS\n");
            return 2;
        }
        QStringList verbs = parts[2].split(QLatin1Char(','), Qt::SkipEmptyParts);
        if (parts[2] == QStringLiteral("*"))
            verbs = {QStringLiteral("get"), QStringLiteral("list"), QStringLiteral("watch"),
                     QStringLiteral("create"), QStringLiteral("update"), QStringLiteral("delete"),
                     QStringLiteral("configmaps/get"), QStringLiteral("configmaps/list"),
                     QStringLiteral("configmaps/create"), QStringLiteral("configmaps/update"),
                     QStringLiteral("configmaps/delete")};
        server.addToken(parts[0], parts[1], verbs);
    }
    server.setHistoryLimit(parser.value(historyOption).toInt());
    server.setBookmarkInterval(parser.value(bookmarkOption).toInt());

    QTemporaryDir temporary;
    QString folder = parser.value(folderOption);
    if (folder.isEmpty())
        folder = temporary.path();
    test::TestCertificates certificates;
    QString error;
    if (!parser.isSet(plainOption)) {
        if (!certificates.generate(folder, &error)
            || !server.setTls(certificates.serverCertFile(), certificates.serverKeyFile(),
                              certificates.caFile(), &error)) {
            std::fprintf(stderr, "kube-lease-server: %s\n", qPrintable(error));
            return 1;
        }
    }
    if (!server.listen(&error, quint16(parser.value(portOption).toUInt()))) {
        std::fprintf(stderr, "kube-lease-server: %s\n", qPrintable(error));
        return 1;
    }
    const QJsonObject ready {{QStringLiteral("url"), server.url().toString()},
                             {QStringLiteral("ca"), parser.isSet(plainOption) ? QString() : certificates.caFile()},
                             {QStringLiteral("folder"), folder}};
    std::printf("%s\n", QJsonDocument(ready).toJson(QJsonDocument::Compact).constData());
    std::fflush(stdout);

    SignalWatcher signals;
    QObject::connect(&signals, &SignalWatcher::terminationRequested, &app, &QCoreApplication::quit);
    return app.exec();
}
