#pragma once

#include "participantprocess.h"
#include "testsupport.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>

#include <memory>

namespace baton::test {

/*! Writes \a object to \a path as JSON; false when the file cannot be written. */
inline bool writeJsonFile(const QString &path, const QJsonObject &object)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    return file.write(QJsonDocument(object).toJson()) >= 0;
}

/*!
 * Starts `baton join --config CONFIG --events json` (plus \a extra) as the
 * participant \a id; for tests that link the headless library.
 */
inline std::unique_ptr<ParticipantProcess> startParticipant(const QString &id,
                                                            const QString &configPath,
                                                            const QStringList &extra = {})
{
    auto participant = std::make_unique<ParticipantProcess>(
            id, batonBinary(),
            QStringList {QStringLiteral("join"), QStringLiteral("--config"), configPath,
                         QStringLiteral("--events"), QStringLiteral("json")}
                    + extra);
    participant->start();
    return participant;
}

} // namespace baton::test
