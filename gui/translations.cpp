#include "translations.h"

#include "guilogging.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QTranslator>

namespace baton {

QString installTranslations(QCoreApplication *app, const QLocale &locale)
{
    auto *qt = new QTranslator(app);
    if (qt->load(locale, QStringLiteral("qtbase"), QStringLiteral("_"),
                 QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        QCoreApplication::installTranslator(qt);
    else
        delete qt;
    auto *own = new QTranslator(app);
    if (!own->load(locale, QStringLiteral("baton"), QStringLiteral("_"), QStringLiteral(":/i18n"))) {
        delete own;
        qCDebug(lcGui) << "no translation for" << locale.uiLanguages();
        return {};
    }
    QCoreApplication::installTranslator(own);
    return own->language();
}

} // namespace baton
