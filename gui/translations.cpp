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
    const auto load = [own](const QLocale &wanted) {
        return own->load(wanted, QStringLiteral("baton"), QStringLiteral("_"), QStringLiteral(":/i18n"));
    };
    // A language with no translation shows the English source text; it
    // still needs English's plural forms ("1 lease", "14 leases").
    if (!load(locale) && !load(QLocale(QLocale::English))) {
        delete own;
        qCDebug(lcGui) << "no translation for" << locale.uiLanguages();
        return {};
    }
    QCoreApplication::installTranslator(own);
    return own->language();
}

} // namespace baton
