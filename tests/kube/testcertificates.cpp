#include "testcertificates.h"

#include <QFile>
#include <QProcess>

namespace baton::test {

bool TestCertificates::openssl(const QStringList &arguments, QString *errorString)
{
    QProcess process;
    process.setWorkingDirectory(m_folder);
    process.start(QStringLiteral("openssl"), arguments);
    if (!process.waitForFinished(30000) || process.exitStatus() != QProcess::NormalExit
        || process.exitCode() != 0) {
        *errorString = QStringLiteral("openssl %1 failed (is the openssl package installed?): %2 %3")
                               .arg(arguments.value(0), process.errorString(),
                                    QString::fromLocal8Bit(process.readAllStandardError()));
        return false;
    }
    return true;
}

bool TestCertificates::sign(const QString &name, const QString &subject,
                            const QString &extensions, QString *errorString)
{
    const QString extFile = m_folder + QLatin1Char('/') + name + QStringLiteral(".ext");
    QFile ext(extFile);
    if (!ext.open(QIODevice::WriteOnly)) {
        *errorString = extFile + QStringLiteral(": ") + ext.errorString();
        return false;
    }
    ext.write(extensions.toUtf8());
    ext.close();
    const QString ec = QStringLiteral("ec");
    return openssl({QStringLiteral("req"), QStringLiteral("-newkey"), ec, QStringLiteral("-pkeyopt"),
                    QStringLiteral("ec_paramgen_curve:prime256v1"), QStringLiteral("-nodes"),
                    QStringLiteral("-keyout"), name + QStringLiteral(".key"), QStringLiteral("-out"),
                    name + QStringLiteral(".csr"), QStringLiteral("-subj"), subject},
                   errorString)
            && openssl({QStringLiteral("x509"), QStringLiteral("-req"), QStringLiteral("-in"),
                        name + QStringLiteral(".csr"), QStringLiteral("-CA"), QStringLiteral("ca.crt"),
                        QStringLiteral("-CAkey"), QStringLiteral("ca.key"),
                        QStringLiteral("-CAcreateserial"), QStringLiteral("-days"), QStringLiteral("2"),
                        QStringLiteral("-out"), name + QStringLiteral(".crt"),
                        QStringLiteral("-extfile"), extFile},
                       errorString);
}

bool TestCertificates::generate(const QString &folder, QString *errorString)
{
    m_folder = folder;
    return openssl({QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-newkey"),
                    QStringLiteral("ec"), QStringLiteral("-pkeyopt"),
                    QStringLiteral("ec_paramgen_curve:prime256v1"), QStringLiteral("-nodes"),
                    QStringLiteral("-keyout"), QStringLiteral("ca.key"), QStringLiteral("-out"),
                    QStringLiteral("ca.crt"), QStringLiteral("-days"), QStringLiteral("2"),
                    QStringLiteral("-subj"), QStringLiteral("/CN=baton-test-ca"),
                    QStringLiteral("-addext"), QStringLiteral("basicConstraints=critical,CA:TRUE"),
                    QStringLiteral("-addext"), QStringLiteral("keyUsage=critical,keyCertSign,cRLSign")},
                   errorString)
            && sign(QStringLiteral("server"), QStringLiteral("/CN=kube-apiserver"),
                    QStringLiteral("basicConstraints=CA:FALSE\n"
                                   "extendedKeyUsage=serverAuth\n"
                                   "subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes.test\n"),
                    errorString);
}

bool TestCertificates::generateClient(const QString &user, QString *certFile, QString *keyFile,
                                      QString *errorString)
{
    const QString name = QStringLiteral("client-") + user;
    if (!sign(name, QStringLiteral("/CN=") + user + QStringLiteral("/O=baton-testers"),
              QStringLiteral("basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n"), errorString))
        return false;
    *certFile = m_folder + QLatin1Char('/') + name + QStringLiteral(".crt");
    *keyFile = m_folder + QLatin1Char('/') + name + QStringLiteral(".key");
    return true;
}

bool TestCertificates::generateOtherCa(QString *caFile, QString *errorString)
{
    if (!openssl({QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-newkey"),
                  QStringLiteral("ec"), QStringLiteral("-pkeyopt"),
                  QStringLiteral("ec_paramgen_curve:prime256v1"), QStringLiteral("-nodes"),
                  QStringLiteral("-keyout"), QStringLiteral("other-ca.key"), QStringLiteral("-out"),
                  QStringLiteral("other-ca.crt"), QStringLiteral("-days"), QStringLiteral("2"),
                  QStringLiteral("-subj"), QStringLiteral("/CN=some-other-ca")},
                 errorString))
        return false;
    *caFile = m_folder + QStringLiteral("/other-ca.crt");
    return true;
}

} // namespace baton::test
