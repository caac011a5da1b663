#pragma once

#include <QStringList>

namespace baton::test {

/*!
 * The etcd clusters that CTest's fixtures started (tests/etcd): where they
 * listen, their credentials, and the fixture script to stop and start
 * members. \a variable is BATON_ETCD_DIR, BATON_ETCD_AUTH_DIR,
 * BATON_ETCD_TLS_DIR (its certificates in pki/) or BATON_ETCD_CLUSTER_DIR.
 */
class EtcdFixture
{
public:
    explicit EtcdFixture(const char *variable);

    /*! False outside ctest (the variable unset): etcd tests then skip. */
    bool configured() const { return !m_dir.isEmpty(); }
    /*! The client URLs; empty, with errorString(), when the fixture did not start. */
    QStringList endpoints() const;
    QString username() const;
    QString password() const;
    QString errorString() const { return m_error; }
    /*! Runs `etcd-fixture.sh COMMAND DIR ARGS...` and waits for it; false with errorString() on failure. */
    bool run(const QString &command, const QStringList &arguments = {});
    /*! Runs `etcdctl --endpoints=... ARGS...` and returns its standard output, or a null array. */
    QByteArray etcdctl(const QStringList &arguments, const QStringList &environment = {});

private:
    QString m_dir;
    QString m_script;
    mutable QString m_error;
};

} // namespace baton::test
