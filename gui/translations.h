#pragma once

#include <QLocale>
#include <QString>

class QCoreApplication;

namespace baton {

/*!
 * Installs the dashboard's translation (embedded at build time from
 * translations/baton_*.ts) and Qt's own for \a locale: the system language
 * at start, or the one `--lang` forces. Returns the language loaded (e.g.
 * "fr"), or an empty string when the strings stay in English.
 */
QString installTranslations(QCoreApplication *app, const QLocale &locale);

} // namespace baton
