#include "dashboard.h"

#include "connectionrepository.h"
#include "dashboardparticipant.h"
#include "dashboardsession.h"
#include "mainwindow.h"
#include "screenshotdemo.h"
#include "secretstore.h"
#include "translations.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QSettings>
#include <QTimer>

#include <cstdio>
#include <cstring>

// At global scope: Q_INIT_RESOURCE names a function of the global namespace.
static void initResources()
{
    // The icon lives in a static library: its resources need a nudge.
    Q_INIT_RESOURCE(gui);
}

namespace baton::dashboard {

int run(int argc, char **argv)
{
    bool screenshots = false;
    for (int i = 1; i < argc; ++i)
        screenshots = screenshots || std::strcmp(argv[i], "--screenshot") == 0;
    // Screenshots render offscreen, display or not.
    if (screenshots)
        qputenv("QT_QPA_PLATFORM", "offscreen");

    QApplication app(argc, argv);
    initResources();
    QCoreApplication::setOrganizationName(QStringLiteral("baton"));
    QCoreApplication::setApplicationName(QStringLiteral("baton"));
    QGuiApplication::setApplicationDisplayName(QStringLiteral("Baton"));
    QGuiApplication::setDesktopFileName(QStringLiteral("baton"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/baton.svg")));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Baton dashboard"));
    const QCommandLineOption lang(QStringLiteral("lang"), QStringLiteral("Language of the dashboard (fr, de, en)."),
                                  QStringLiteral("LANG"));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                        QStringLiteral("Render the dashboard on a scripted demo into PNGs in DIR."),
                                        QStringLiteral("DIR"));
    parser.addOptions({lang, screenshot});
    parser.addHelpOption();
    if (!parser.parse(QCoreApplication::arguments())) {
        std::fprintf(stderr, "baton: %s\n", qPrintable(parser.errorText()));
        return 2;
    }
    const QLocale locale = parser.isSet(lang) ? QLocale(parser.value(lang)) : QLocale::system();
    if (parser.isSet(lang))
        QLocale::setDefault(locale);
    installTranslations(&app, locale);

    if (parser.isSet(screenshot)) {
        ScreenshotDemo demo(parser.value(screenshot));
        QObject::connect(&demo, &ScreenshotDemo::finished, &app, &QCoreApplication::exit);
        demo.start();
        return app.exec();
    }

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
