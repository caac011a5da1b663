// baton-screenshots [--lang LANG] DIR: the pictures of docs/screenshots,
// rendered offscreen from a scripted election (ScreenshotDemo). A tool of
// the repository: the dashboard that ships has no demo in it.

#include "dashboard.h"
#include "screenshotdemo.h"
#include "translations.h"

#include <cstdio>
#include <QApplication>
#include <QCommandLineParser>

int main(int argc, char *argv[])
{
    // Offscreen, display or not: the same pictures on every machine.
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    baton::dashboard::setUpApplication();

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Renders the Baton dashboard on a scripted demo election into PNGs in DIR."));
    const QCommandLineOption lang(QStringLiteral("lang"),
                                  QStringLiteral("Language of the dashboard (fr, de, en)."),
                                  QStringLiteral("LANG"));
    parser.addOption(lang);
    parser.addPositionalArgument(QStringLiteral("DIR"),
                                 QStringLiteral("Where the PNGs are written."));
    parser.addHelpOption();
    if (!parser.parse(QCoreApplication::arguments())) {
        std::fprintf(stderr, "baton-screenshots: %s\n", qPrintable(parser.errorText()));
        return 2;
    }
    if (parser.isSet(QStringLiteral("help")))
        parser.showHelp();
    if (parser.positionalArguments().size() != 1) {
        std::fprintf(stderr, "baton-screenshots: give one DIR (--help says more)\n");
        return 2;
    }
    const QLocale locale = parser.isSet(lang) ? QLocale(parser.value(lang)) : QLocale::system();
    if (parser.isSet(lang))
        QLocale::setDefault(locale);
    baton::installTranslations(&app, locale);

    baton::ScreenshotDemo demo(parser.positionalArguments().constFirst());
    QObject::connect(&demo, &baton::ScreenshotDemo::finished, &app, &QCoreApplication::exit);
    demo.start();
    return app.exec();
}
