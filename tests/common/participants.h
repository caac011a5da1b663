#pragma once

#include "artifacts.h"
#include "participantprocess.h"
#include "testsupport.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>

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

/*! The Registry service of a FileStore in \a folder, which the processes of one host share. */
inline QJsonObject fileRegistry(const QString &folder)
{
    return QJsonObject {{QStringLiteral("type"), QStringLiteral("Webda/FileStore")},
                        {QStringLiteral("folder"), folder}};
}

/*!
 * The configuration of one `baton join` participant: the Registry service
 * (fileRegistry(), or an etcd store) and a StoreClusterService "cluster"
 * electing \a leaseName as \a instanceId with the given lease and renewal.
 */
struct ParticipantConfig
{
    QJsonObject registry;
    QString leaseName;
    QString instanceId;
    qint64 leaseMs = 0;
    qint64 renewMs = 0;

    QJsonObject toJson() const
    {
        const QJsonObject cluster {{QStringLiteral("type"), QStringLiteral("StoreClusterService")},
                                   {QStringLiteral("leaseName"), leaseName},
                                   {QStringLiteral("instanceId"), instanceId},
                                   {QStringLiteral("leaseDuration"), leaseMs},
                                   {QStringLiteral("renewInterval"), renewMs}};
        return QJsonObject {{QStringLiteral("services"),
                             QJsonObject {{QStringLiteral("Registry"), registry},
                                          {QStringLiteral("cluster"), cluster}}}};
    }

    /*! Writes it to \a path; returns \a path, or an empty string when the file cannot be written. */
    QString writeTo(const QString &path) const
    {
        return writeJsonFile(path, toJson()) ? path : QString();
    }
};

/*!
 * Keeps what \a participant wrote (its log, its events) for the secrets
 * scan (R2) when it finishes, including when it is killed by its
 * destructor, which still emits finished().
 */
inline void keepOutput(ParticipantProcess *participant)
{
    QObject::connect(participant, &ParticipantProcess::finished, participant, [participant] {
        keepArtifact(ArtifactKind::ParticipantLog, participant->label() + QStringLiteral(".log"),
                     participant->standardError());
        keepArtifact(ArtifactKind::Events, participant->label() + QStringLiteral(".events"),
                     participant->standardOutput());
    });
}

/*!
 * Keeps what \a process (a `baton` run by the test) wrote on both channels,
 * as \a kind and ParticipantLog, when it finishes. finished() comes before
 * waitForFinished() returns, so the test has not read the output yet;
 * peek() leaves it for the test.
 */
inline void keepOutput(QProcess *process, const QString &label, ArtifactKind kind)
{
    QObject::connect(process, &QProcess::finished, process, [process, label, kind] {
        const QProcess::ProcessChannel channel = process->readChannel();
        process->setReadChannel(QProcess::StandardOutput);
        keepArtifact(kind, label + QStringLiteral(".out"), process->peek(process->bytesAvailable()));
        process->setReadChannel(QProcess::StandardError);
        keepArtifact(ArtifactKind::ParticipantLog, label + QStringLiteral(".log"),
                     process->peek(process->bytesAvailable()));
        process->setReadChannel(channel);
    });
}

/*!
 * Fetches the /metrics of \a participant (started with `--listen
 * 127.0.0.1:0`; the port comes from its log) and keeps the body for the
 * secrets scan (R2: no secret in /metrics). False when it serves none yet
 * or does not answer within two seconds.
 */
inline bool keepMetrics(const ParticipantProcess &participant)
{
    static const QRegularExpression served(
            QStringLiteral("serving /metrics[^\\n]* on http://127\\.0\\.0\\.1:(\\d+)"));
    const QRegularExpressionMatch port = served.match(QString::fromUtf8(participant.standardError()));
    if (!port.hasMatch())
        return false;
    QNetworkAccessManager network;
    QNetworkReply *reply = network.get(QNetworkRequest(
            QUrl(QStringLiteral("http://127.0.0.1:%1/metrics").arg(port.captured(1)))));
    QSignalSpy finished(reply, &QNetworkReply::finished);
    const bool answered = reply->isFinished() || finished.wait(2000);
    const bool ok = answered && reply->error() == QNetworkReply::NoError;
    if (ok)
        keepArtifact(ArtifactKind::Metrics, participant.label() + QStringLiteral(".metrics"), reply->readAll());
    delete reply;
    return ok;
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
    keepOutput(participant.get());
    participant->start();
    return participant;
}

} // namespace baton::test
