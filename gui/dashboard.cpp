#include "dashboard.h"

#include "connectionrepository.h"
#include "dashboardparticipant.h"
#include "dashboardsession.h"
#include "mainwindow.h"
#include "secretstore.h"
#include "translations.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QSettings>
#include <QTimer>

#include <cstdio>

// At global scope: Q_INIT_RESOURCE names a function of the global namespace.
static void initResources()
{
    // The icon lives in a static library: its resources need a nudge.
    Q_INIT_RESOURCE(gui);
}

namespace baton::dashboard {

void setUpApplication()
{
    initResources();
    QCoreApplication::setOrganizationName(QStringLiteral("baton"));
    QCoreApplication::setApplicationName(QStringLiteral("baton"));
    QGuiApplication::setApplicationDisplayName(QStringLiteral("Baton"));
    QGuiApplication::setDesktopFileName(QStringLiteral("baton"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/baton.svg")));
}

int run(int argc, char **argv)
{
    QApplication app(argc, argv);
    setUpApplication();

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Baton dashboard"));
    const QCommandLineOption lang(QStringLiteral("lang"), QStringLiteral("Language of the dashboard (fr, de, en)."),
                                  QStringLiteral("LANG"));
    parser.addOption(lang);
    parser.addHelpOption();
    if (!parser.parse(QCoreApplication::arguments())) {
        std::fprintf(stderr, "baton: %s\n", qPrintable(parser.errorText()));
        return 2;
    }
    const QLocale locale = parser.isSet(lang) ? QLocale(parser.value(lang)) : QLocale::system();
    if (parser.isSet(lang))
        QLocale::setDefault(locale);
    installTranslations(&app, locale);

    QSettings settings;
    SecretStore secrets;
    ConnectionRepository repository(&settings, &secrets);
    DashboardSession session;
    MainWindow window(&session, &repository, &settings);
    window.show();
    window.openLastConnection();
    const int code = app.exec();
    // Joined when the window closed: step down cleanly (F5), so a follower
    // takes over at once, but never wait past the F4 deadline.
    if (DashboardParticipant *participant = session.participant(); participant && participant->isJoined()) {
        QObject::connect(participant, &DashboardParticipant::stateChanged, &app, [participant] {
            if (!participant->isJoined())
                QCoreApplication::quit();
        });
        QTimer::singleShot(participant->timings().stepDownDeadline, &app, &QCoreApplication::quit);
        participant->stepDown();
        app.exec();
    }
    session.close();
    return code;
}

} // namespace baton::dashboard
