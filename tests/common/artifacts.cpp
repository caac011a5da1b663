#include "artifacts.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace baton::test {

QString artifactKindName(ArtifactKind kind)
{
    switch (kind) {
    case ArtifactKind::ParticipantLog:
        return QStringLiteral("participant-log");
    case ArtifactKind::Events:
        return QStringLiteral("events");
    case ArtifactKind::Metrics:
        return QStringLiteral("metrics");
    case ArtifactKind::Status:
        return QStringLiteral("status");
    case ArtifactKind::Export:
        return QStringLiteral("export");
    case ArtifactKind::Settings:
        return QStringLiteral("settings");
    case ArtifactKind::CapturedLog:
        return QStringLiteral("captured-log");
    }
    return QStringLiteral("other");
}

void keepArtifact(ArtifactKind kind, const QString &name, const QByteArray &content)
{
    const QString root = qEnvironmentVariable("BATON_TEST_ARTIFACTS");
    const QString test = qEnvironmentVariable("BATON_TEST_NAME");
    if (root.isEmpty() || test.isEmpty())
        return;
    const QString folder = QStringLiteral("%1/%2/%3").arg(root, artifactKindName(kind), test);
    if (!QDir().mkpath(folder)) {
        qWarning("cannot create the artifacts folder %s", qPrintable(folder));
        return;
    }
    // Tests keep several outputs under one name (a participant per round,
    // /metrics scraped before and after): none may overwrite another.
    QString safeName = name;
    safeName.replace(QLatin1Char('/'), QLatin1Char('_'));
    for (int n = 1; n < 10000; ++n) {
        QFile file(QStringLiteral("%1/%2").arg(
                folder, n == 1 ? safeName : QStringLiteral("%1.%2").arg(safeName).arg(n)));
        if (!file.open(QIODevice::WriteOnly | QIODevice::NewOnly))
            continue;
        if (file.write(content) != content.size())
            qWarning("cannot write the artifact %s", qPrintable(file.fileName()));
        return;
    }
    qWarning("too many artifacts named %s in %s", qPrintable(name), qPrintable(folder));
}

void keepArtifactFile(ArtifactKind kind, const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        // A test keeps what it has just written: a missing file is a bug in the test.
        qWarning("cannot keep %s: %s", qPrintable(path), qPrintable(file.errorString()));
        return;
    }
    keepArtifact(kind, QFileInfo(path).fileName(), file.readAll());
}

} // namespace baton::test
