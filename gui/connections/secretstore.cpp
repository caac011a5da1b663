#include "secretstore.h"

#include "guilogging.h"

#include <qt6keychain/keychain.h>

namespace baton {

SecretStore::SecretStore(const QString &service, QObject *parent)
    : QObject(parent)
    , m_service(service)
{
}

void SecretStore::write(const QString &key, const QString &value, Done done)
{
    auto *job = new QKeychain::WritePasswordJob(m_service, this);
    job->setAutoDelete(true);
    job->setInsecureFallback(false);
    job->setKey(key);
    job->setTextData(value);
    connect(job, &QKeychain::Job::finished, this, [key, done](QKeychain::Job *finished) {
        const bool ok = finished->error() == QKeychain::NoError;
        if (!ok)
            qCWarning(lcGui).noquote() << QStringLiteral("keychain: cannot store %1: %2")
                                                  .arg(key, finished->errorString());
        if (done)
            done(ok, finished->errorString());
    });
    job->start();
}

void SecretStore::read(const QString &key, ReadDone done)
{
    auto *job = new QKeychain::ReadPasswordJob(m_service, this);
    job->setAutoDelete(true);
    job->setInsecureFallback(false);
    job->setKey(key);
    connect(job, &QKeychain::Job::finished, this, [key, done, job](QKeychain::Job *finished) {
        if (finished->error() == QKeychain::EntryNotFound) {
            if (done)
                done(true, QString(), QString());
            return;
        }
        const bool ok = finished->error() == QKeychain::NoError;
        if (!ok)
            qCWarning(lcGui).noquote() << QStringLiteral("keychain: cannot read %1: %2")
                                                  .arg(key, finished->errorString());
        if (done)
            done(ok, ok ? job->textData() : QString(), finished->errorString());
    });
    job->start();
}

void SecretStore::remove(const QString &key, Done done)
{
    auto *job = new QKeychain::DeletePasswordJob(m_service, this);
    job->setAutoDelete(true);
    job->setInsecureFallback(false);
    job->setKey(key);
    connect(job, &QKeychain::Job::finished, this, [done](QKeychain::Job *finished) {
        const bool ok = finished->error() == QKeychain::NoError
                || finished->error() == QKeychain::EntryNotFound;
        if (done)
            done(ok, finished->errorString());
    });
    job->start();
}

} // namespace baton
