#pragma once

#include <QObject>
#include <QString>

#include <functional>

namespace baton {

/*!
 * Secrets in the system keychain (the Secret Service on Linux) through
 * QtKeychain, and nowhere else (O4, R2). QtKeychain's "insecure
 * fallback", which would write secrets into a settings file when no
 * keychain answers, is left off: a missing keychain is an error the
 * operator sees.
 *
 * Each call starts one asynchronous job; its callback runs exactly once,
 * on a later turn of the event loop.
 */
class SecretStore : public QObject
{
    Q_OBJECT
public:
    explicit SecretStore(const QString &service = QStringLiteral("baton"), QObject *parent = nullptr);

    using Done = std::function<void(bool ok, const QString &errorString)>;
    using ReadDone = std::function<void(bool ok, const QString &value, const QString &errorString)>;

    QString service() const { return m_service; }
    void write(const QString &key, const QString &value, Done done);
    /*! Reads \a key; a key that is not there is ok with an empty value. */
    void read(const QString &key, ReadDone done);
    /*! Removes \a key; a key that is not there is ok. */
    void remove(const QString &key, Done done);

private:
    QString m_service;
};

} // namespace baton
