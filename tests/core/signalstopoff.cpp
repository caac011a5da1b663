// A program that turns the stop on signals off: SIGTERM keeps its default
// action (for tst_signalstop). Usage: signalstopoff CONFIG
#include <baton/application.h>
#include <cstdio>
#include <QCoreApplication>

int main(int argc, char *argv[])
{
    QCoreApplication qtApp(argc, argv);
    baton::Application app;
    app.setStopOnSignals(false);
    QString error;
    if (argc != 2 || !app.loadConfigFile(QString::fromLocal8Bit(argv[1]), &error)
        || !app.init(&error)) {
        std::fprintf(stderr, "%s\n", qPrintable(error));
        return 2;
    }
    return qtApp.exec();
}
