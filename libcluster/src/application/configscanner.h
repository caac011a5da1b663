#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

namespace baton {

/*!
 * QJsonObject sorts its keys, but services start in the order the
 * configuration file lists them (C2). This reads that order, and where
 * each service is, from the text of a document that QJsonDocument has
 * already accepted as valid.
 */
struct ConfiguredService
{
    QString name;
    int line = 0;
    int column = 0;
    /*!
     * Where the name was given before, when the file gives it twice (0 when
     * not): QJsonDocument keeps the last one silently, and a configuration
     * with two entries for one service is refused instead.
     */
    int earlierLine = 0;
    int earlierColumn = 0;
};

QList<ConfiguredService> servicesInFileOrder(const QByteArray &validJson);

} // namespace baton
