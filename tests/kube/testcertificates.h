#pragma once

#include <QString>
#include <QStringList>

namespace baton::test {

/*!
 * A throw-away PKI for the Kubernetes tests, made with the `openssl` command
 * line tool (Debian package `openssl`, listed in setup.sh) in a folder the
 * caller owns: a CA, a server certificate for 127.0.0.1 and localhost signed
 * by it, and client certificates (CN = user name) for client-certificate
 * authentication. Keys are P-256 EC keys, quick to make.
 *
 * Test code only: generate() runs openssl synchronously.
 */
class TestCertificates
{
public:
    /*! Makes the CA and the server certificate in \a folder. */
    bool generate(const QString &folder, QString *errorString);
    /*! Makes a client certificate for \a user signed by the CA; paths into \a certFile and \a keyFile. */
    bool generateClient(const QString &user, QString *certFile, QString *keyFile,
                        QString *errorString);
    /*! A second CA that signed nothing the server trusts, for verification failures. */
    bool generateOtherCa(QString *caFile, QString *errorString);

    QString folder() const { return m_folder; }
    QString caFile() const { return m_folder + QStringLiteral("/ca.crt"); }
    QString serverCertFile() const { return m_folder + QStringLiteral("/server.crt"); }
    QString serverKeyFile() const { return m_folder + QStringLiteral("/server.key"); }

private:
    bool openssl(const QStringList &arguments, QString *errorString);
    bool sign(const QString &name, const QString &subject, const QString &extensions,
              QString *errorString);

    QString m_folder;
};

} // namespace baton::test
