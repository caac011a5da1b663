#include "leasefolder.h"

#include "testsupport.h"

#include <QDateTime>
#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSaveFile>

namespace baton::test {

BatonRun runBaton(const QStringList &arguments, const QStringList &environment)
{
    QProcess baton;
    baton.setEnvironment(QProcess::systemEnvironment() + environment);
    baton.start(batonBinary(), arguments);
    BatonRun run;
    if (!baton.waitForFinished(30000)) {
        baton.kill();
        baton.waitForFinished();
        return run;
    }
    run.exitCode = baton.exitStatus() == QProcess::NormalExit ? baton.exitCode() : -1;
    run.out = QString::fromUtf8(baton.readAllStandardOutput());
    run.err = QString::fromUtf8(baton.readAllStandardError());
    return run;
}

QString writeLeaseFolder(const QString &path, const QList<LeaseEntry> &leases)
{
    static int version = 0;
    QDir folder(path);
    if (!folder.mkpath(QStringLiteral(".")))
        return {};
    const QDateTime now = QDateTime::currentDateTimeUtc();
    for (const LeaseEntry &entry : leases) {
        const QJsonObject document {
                {QStringLiteral("holderIdentity"), entry.holder},
                {QStringLiteral("leaseDurationMs"), entry.leaseDurationMs},
                {QStringLiteral("acquireTime"), now.addSecs(-3600).toString(Qt::ISODateWithMs)},
                {QStringLiteral("renewTime"), now.addMSecs(-entry.renewedAgoMs).toString(Qt::ISODateWithMs)},
                {QStringLiteral("leaseTransitions"), 1}};
        QSaveFile file(folder.filePath(QStringLiteral("cluster:%1.json").arg(entry.lease)));
        if (!file.open(QIODevice::WriteOnly))
            return {};
        file.write(QJsonDocument(QJsonObject {{QStringLiteral("key"), QStringLiteral("cluster:") + entry.lease},
                                              {QStringLiteral("version"), QString::number(++version)},
                                              {QStringLiteral("document"), document}})
                           .toJson(QJsonDocument::Compact));
        if (!file.commit())
            return {};
    }
    return folder.path();
}

} // namespace baton::test
