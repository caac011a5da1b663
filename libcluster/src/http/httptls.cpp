#include "httpclient.h"

#include <QDateTime>
#include <QFile>
#include <QSslCertificate>
#include <QSslKey>

// The TLS settings of a client, read and checked from their files: a job of
// its own, apart from sending requests.

namespace baton {

bool HttpClient::setTls(const HttpTlsOptions &options, QString *errorString)
{
    if (options.caFile.isEmpty() && options.certFile.isEmpty() && options.keyFile.isEmpty()
        && !options.insecureSkipVerify) {
        // The default, made when an https URL first needs it (sslConfiguration()).
        m_ssl.reset();
        return true;
    }
    QSslConfiguration ssl = QSslConfiguration::defaultConfiguration();
    auto fail = [&](const QString &why) {
        if (errorString)
            *errorString = why;
        return false;
    };
    if (!options.caFile.isEmpty()) {
        const QList<QSslCertificate> cas = QSslCertificate::fromPath(options.caFile);
        if (cas.isEmpty()) {
            return fail(QStringLiteral("CA file %1 cannot be read or holds no PEM certificate")
                                .arg(options.caFile));
        }
        // Only the given CAs: a private cluster's CA should not be one of many.
        ssl.setCaCertificates(cas);
    }
    if (options.certFile.isEmpty() != options.keyFile.isEmpty())
        return fail(QStringLiteral("a client certificate needs both a cert and a key file"));
    if (!options.certFile.isEmpty()) {
        const QList<QSslCertificate> certs = QSslCertificate::fromPath(options.certFile);
        if (certs.isEmpty()) {
            return fail(QStringLiteral("certificate file %1 cannot be read or holds no PEM "
                                       "certificate")
                                .arg(options.certFile));
        }
        // A server that checks client certificates refuses an expired one
        // with nothing the client can read (TLS 1.3 tells after the
        // handshake): said here, with the file, before any connection.
        const QSslCertificate &certificate = certs.first();
        const QDateTime now = QDateTime::currentDateTimeUtc();
        if (certificate.expiryDate().isValid() && certificate.expiryDate() < now) {
            return fail(QStringLiteral("certificate file %1 expired on %2")
                                .arg(options.certFile,
                                     certificate.expiryDate().toUTC().toString(Qt::ISODate)));
        }
        if (certificate.effectiveDate().isValid() && certificate.effectiveDate() > now) {
            return fail(QStringLiteral("certificate file %1 is not valid before %2 (is this "
                                       "host's clock right?)")
                                .arg(options.certFile,
                                     certificate.effectiveDate().toUTC().toString(Qt::ISODate)));
        }
        QFile keyFile(options.keyFile);
        if (!keyFile.open(QIODevice::ReadOnly)) {
            return fail(QStringLiteral("key file %1 cannot be read: %2")
                                .arg(options.keyFile, keyFile.errorString()));
        }
        const QByteArray pem = keyFile.read(1024 * 1024);
        QSslKey key(pem, QSsl::Rsa);
        if (key.isNull())
            key = QSslKey(pem, QSsl::Ec);
        if (key.isNull()) {
            // Never the key's content: R2.
            return fail(QStringLiteral("key file %1 holds no unencrypted PEM RSA or EC key")
                                .arg(options.keyFile));
        }
        ssl.setLocalCertificate(certs.first());
        ssl.setPrivateKey(key);
    }
    if (options.insecureSkipVerify)
        ssl.setPeerVerifyMode(QSslSocket::VerifyNone);
    m_ssl = ssl;
    return true;
}

} // namespace baton
