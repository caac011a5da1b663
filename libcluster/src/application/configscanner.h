#pragma once

#include <QByteArray>
#include <QHash>
#include <QJsonValue>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

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
    /*!
     * Where each parameter's key is, by its dotted name (`tls.ca` for the
     * key `ca` of the block `tls`): a refusal points at the parameter
     * itself. The first of a repeated key. A map, not a hash: the
     * locations stay for as long as the application (a later refusal is
     * located too), and a QHash's least storage is over a kilobyte per
     * service, a tenth of what an election needs at 10,000 of them.
     */
    struct Position
    {
        int line = 0;
        int column = 0;
    };
    QMap<QString, Position> parameters;
    /*!
     * A key given twice in one object of the entry: QJsonDocument keeps the
     * last silently, so the configuration is refused instead.
     */
    struct Repeat
    {
        QString key;
        Position at;
        Position earlier;
    };
    QList<Repeat> repeatedParameters;
};

QList<ConfiguredService> servicesInFileOrder(const QByteArray &validJson);

/*!
 * Each line of \a error (a refusal by \a service, one line a mistake) with
 * \a sourceName and the line and column of the parameter it refuses in
 * front, or those of the service when it refuses none (or one the file
 * does not spell, such as a missing one); in file order.
 */
QString locateRefusal(const QString &sourceName, const ConfiguredService &service,
                      const QString &error);

/*!
 * Why the entry of service \a name is no service (not an object, no
 * `type`, a `type` that is no string), after \a where; empty when it is one.
 */
QString entryProblem(const QString &where, const QString &name, const QJsonValue &entry,
                     const QStringList &knownTypes);

} // namespace baton
