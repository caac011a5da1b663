#include "electionprobe.h"

#include <baton/application.h>
#include <baton/clusterservice.h>
#include <baton/leaseobserver.h>
#include <baton/store.h>
#include <batoninternal/registrykey.h>
#include <batoninternal/secrets.h>
#include <limits>
#include <pwd.h>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonObject>
#include <QTemporaryFile>
#include <unistd.h>

namespace baton {

namespace {

const QString registryName = QStringLiteral("Registry");

/*! A step of the way to a store, and how an operator mends it. */
struct StoreStep
{
    QString step;
    QString fix;
};

/*!
 * Which step failed: refused credentials by the store's typed answer (an
 * etcd that cannot be reached while authenticating is a connection
 * problem, though its message names the authentication); the others by
 * the message, which the library words for each (EtcdClient, HttpClient).
 * Only the way to mend it is added here.
 */
StoreStep stepOf(const StoreResult &result)
{
    const QString &message = result.errorString;
    if (result.status == StoreResult::Status::CredentialsRefused)
        return { QStringLiteral("authentication"),
                 QStringLiteral(
                     "check the store's \"username\" and the password in \"passwordFile\" "
                     "(etcdctl --user NAME endpoint health tells whether etcd takes them)") };
    if (message.contains(QLatin1String("certificate is not trusted")))
        return { QStringLiteral("TLS"),
                 QStringLiteral(
                     "name the CA that signed etcd's certificate in \"tls\": {\"ca\": FILE} "
                     "(etcdctl's --cacert)") };
    if (message.contains(QLatin1String("permission denied")))
        return { QStringLiteral("permission"),
                 QStringLiteral("grant the user's role readwrite on the lease key (etcdctl role "
                                "grant-permission ROLE readwrite KEY)") };
    if (message.contains(QLatin1String("TLS")) || message.contains(QLatin1String("tls.")))
        return { QStringLiteral("TLS"),
                 QStringLiteral("check the files of \"tls\" (ca, cert, key) against etcd's "
                                "--trusted-ca-file and --client-cert-auth") };
    if (message.contains(QLatin1String("host not found")))
        return { QStringLiteral("DNS"),
                 QStringLiteral(
                     "correct the host names of \"endpoints\", or the resolver of this host") };
    if (message.contains(QLatin1String("connection refused")))
        return { QStringLiteral("connection"),
                 QStringLiteral("start etcd, or correct the ports of \"endpoints\" (etcd's "
                                "--listen-client-urls)") };
    return { QStringLiteral("connection"),
             QStringLiteral(
                 "check that etcd runs and answers at \"endpoints\" within \"timeout\"") };
}

// The API server's answer, as the Kubernetes source words it: "403 Forbidden".
QString kubeStep(const QString &message)
{
    if (message.contains(QLatin1String("401 Unauthorized")))
        return QStringLiteral("authentication");
    if (message.contains(QLatin1String("403 Forbidden")))
        return QStringLiteral("permission");
    return QStringLiteral("connection");
}

QString kubeFix(const QString &message)
{
    if (message.contains(QLatin1String("401 Unauthorized")))
        return QStringLiteral(
            "the API server refuses the kubeconfig's credentials: renew the token "
            "(\"tokenFile\") or the client certificate of the context");
    if (message.contains(QLatin1String("403 Forbidden")))
        return QStringLiteral("bind the participant's Role (get, create, update, list and watch of "
                              "leases) to the account baton runs as");
    return QStringLiteral(
        "check the API server address, its CA and the credentials of the kubeconfig");
}

QString userName()
{
    const passwd *entry = ::getpwuid(::getuid());
    return entry ? QStringLiteral("user %1").arg(QString::fromLocal8Bit(entry->pw_name))
                 : QStringLiteral("uid %1").arg(::getuid());
}

} // namespace

ElectionProbe::ElectionProbe(Application &application, ClusterService &cluster, QObject *parent)
    : QObject(parent)
    , m_application(application)
    , m_cluster(cluster)
{ }

ElectionProbe::~ElectionProbe() = default;

QString ElectionProbe::leaseText() const
{
    return QStringLiteral("lease \"%1\"").arg(m_cluster.leaseName());
}

void ElectionProbe::start()
{
    const QString type = m_cluster.type();
    if (type == QLatin1String("Webda/KubernetesClusterService")) {
        probeKubernetes();
        return;
    }
    if (type == QLatin1String("Webda/LocalClusterService")) {
        pass(QStringLiteral("this process only (Webda/LocalClusterService): nothing to contact"));
        QMetaObject::invokeMethod(
            this, [this] { finish(QStringLiteral("in this process")); }, Qt::QueuedConnection);
        return;
    }
    const QJsonValue store = m_cluster.parameters().value(QStringLiteral("store"));
    probeStore(store.isString() ? store.toString() : registryName);
}

void ElectionProbe::probeStore(const QString &storeName)
{
    const Service *store = m_application.service(storeName);
    if (!store) {
        // As Application::registry(): a file Registry in the data folder.
        probeFolder(QDir(m_application.dataFolder()).filePath(QStringLiteral("registry")), true);
        return;
    }
    const QString type = store->type();
    if (type == QLatin1String("Webda/MemoryStore")) {
        pass(QStringLiteral("memory store \"%1\": this process only, nothing to contact")
                 .arg(storeName));
        QMetaObject::invokeMethod(
            this, [this] { finish(QStringLiteral("in memory")); }, Qt::QueuedConnection);
        return;
    }
    if (type == QLatin1String("Webda/FileStore")) {
        QString folder = store->parameters().value(QStringLiteral("folder")).toString();
        if (folder.isEmpty())
            folder = QDir(m_application.dataFolder()).filePath(QStringLiteral("registry"));
        probeFolder(folder, false);
        return;
    }
    m_what = QStringLiteral("%1 \"%2\"").arg(type, storeName);
    // Started by CheckCommand as join's start would: its parameters passed.
    readLease(qobject_cast<Store *>(m_application.service(storeName)), true);
}

void ElectionProbe::probeFolder(const QString &folder, bool defaultRegistry)
{
    const QString what = defaultRegistry
        ? QStringLiteral("the default file Registry %1 (no Registry in the configuration)")
              .arg(folder)
        : QStringLiteral("file Registry %1").arg(folder);
    m_what = what;
    const QFileInfo info(folder);
    const auto later = [this](const QString &summary) {
        QMetaObject::invokeMethod(
            this, [this, summary] { finish(summary); }, Qt::QueuedConnection);
    };
    if (!info.exists()) {
        // join creates the folder when it can: its parent must take it.
        QFileInfo parent(info.absolutePath());
        while (!parent.exists() && parent.absoluteFilePath() != parent.absolutePath())
            parent = QFileInfo(parent.absolutePath());
        if (parent.isDir() && parent.isWritable()) {
            fail(1, QStringLiteral("folder"),
                 QStringLiteral("%1 does not exist yet; join will create it").arg(what),
                 QStringLiteral("create it beforehand (owned by %1) if it should already hold the "
                                "leases")
                     .arg(userName()));
        } else {
            fail(2, QStringLiteral("folder"),
                 QStringLiteral("%1 does not exist and %2 cannot create it (%3 is not writable)")
                     .arg(what, userName(), parent.absoluteFilePath()),
                 QStringLiteral("create the folder, owned by the user that runs baton, or set "
                                "\"folder\" (or BATON_DATA_DIR) to one it may write"));
        }
        later(what);
        return;
    }
    if (!info.isDir()) {
        fail(2, QStringLiteral("folder"), QStringLiteral("%1 is not a folder").arg(what),
             QStringLiteral("set \"folder\" to a folder"));
        later(what);
        return;
    }
    // A file made and removed, as join's writes will be: the mode bits alone
    // miss ACLs, read-only mounts and full disks.
    QTemporaryFile probe(QDir(folder).filePath(QStringLiteral(".baton-check-XXXXXX")));
    probe.setAutoRemove(false);
    if (!probe.open() || probe.write("check\n") != 6 || !probe.flush()) {
        fail(2, QStringLiteral("write"),
             QStringLiteral("%1: %2 cannot write a file there: %3")
                 .arg(what, userName(), probe.errorString()),
             QStringLiteral("make the folder writable by %1 (chown or chmod), or run baton as its "
                            "owner")
                 .arg(userName()));
        if (!probe.fileName().isEmpty())
            QFile::remove(probe.fileName());
        later(what);
        return;
    }
    probe.close();
    if (!QFile::remove(probe.fileName())) {
        fail(2, QStringLiteral("write"),
             QStringLiteral("%1: %2 can create files there but not remove them")
                 .arg(what, userName()),
             QStringLiteral("clear the sticky bit or change the folder's owner to %1")
                 .arg(userName()));
        later(what);
        return;
    }
    pass(QStringLiteral("%1: %2 may create and remove files there").arg(what, userName()));
    Store *opened
        = openStore(QJsonObject { { QStringLiteral("type"), QStringLiteral("Webda/FileStore") },
                                  { QStringLiteral("folder"), folder } });
    if (opened)
        readLease(opened, false);
}

Store *ElectionProbe::openStore(const QJsonObject &service)
{
    LeaseSourceOptions source;
    source.kind = LeaseSourceOptions::Kind::StoreService;
    source.storeService = service;
    source.readOnly = true;
    QString error;
    m_observer = LeaseObserver::open(source, this, &error);
    if (!m_observer || !m_observer->store()) {
        fail(2, QStringLiteral("open"), error,
             QStringLiteral("correct the store's parameters named in the message"));
        QMetaObject::invokeMethod(
            this, [this] { finish(QStringLiteral("store not opened")); }, Qt::QueuedConnection);
        return nullptr;
    }
    return m_observer->store();
}

void ElectionProbe::readLease(Store *store, bool thenWrite)
{
    const QString key = registryLeaseKey(m_cluster.leaseName());
    store->get(key, [this, store, key, thenWrite](const StoreResult &result) {
        if (!result.ok() && result.status != StoreResult::Status::NotFound) {
            const StoreStep step = stepOf(result);
            fail(2, step.step, result.errorString, step.fix);
            finish(QStringLiteral("%1 failed").arg(step.step));
            return;
        }
        pass(
            QStringLiteral("read %1: %2")
                .arg(
                    key,
                    result.ok()
                        ? QStringLiteral("held by %1")
                              .arg(result.entry.document.value(QStringLiteral("holder")).toString())
                        : QStringLiteral("free (no such key)")));
        if (thenWrite)
            tryWrite(store);
        else
            finish(QStringLiteral("%1: lease readable, folder writable").arg(m_what));
    });
}

void ElectionProbe::tryWrite(Store *store)
{
    // A conditional write on a version no key ever has: the store checks
    // the permission to write the key, and then writes nothing.
    const QString key = registryLeaseKey(m_cluster.leaseName());
    const QString never = QString::number(std::numeric_limits<qint64>::max());
    store->update(key, QJsonObject {}, never, [this, key](const StoreResult &result) {
        using Status = StoreResult::Status;
        if (result.status == Status::Conflict || result.status == Status::NotFound) {
            pass(QStringLiteral("may write %1 (a conditional write that could not apply, so "
                                "nothing was written)")
                     .arg(key));
            finish(QStringLiteral("%1: reachable, lease key readable and writable").arg(m_what));
            return;
        }
        const StoreStep step = stepOf(result);
        // The read passed: what fails now is most likely the right to write.
        fail(2,
             step.step == QLatin1String("permission") ? QStringLiteral("write permission")
                                                      : step.step,
             result.errorString, step.fix);
        finish(QStringLiteral("%1 failed").arg(step.step));
    });
}

void ElectionProbe::probeKubernetes()
{
    const QJsonObject parameters = m_cluster.parameters();
    LeaseSourceOptions source;
    source.kind = LeaseSourceOptions::Kind::Kubernetes;
    source.kubeconfigPath = parameters.value(QStringLiteral("config")).toString();
    source.kubeContext = parameters.value(QStringLiteral("context")).toString();
    source.namespaceName = parameters.value(QStringLiteral("namespace")).toString();
    QString error;
    // The identity the election would use, or the check would vouch for another one.
    if (const QString tokenFile = parameters.value(QStringLiteral("tokenFile")).toString();
        !tokenFile.isEmpty() && !secrets::readConfiguredFile(tokenFile, &source.token, &error)) {
        fail(2, QStringLiteral("tokenFile"), error,
             QStringLiteral("correct \"tokenFile\", or the credentials that systemd passes (LoadCredential=)"));
        QMetaObject::invokeMethod(
            this, [this] { finish(QStringLiteral("token file not readable")); }, Qt::QueuedConnection);
        return;
    }
    m_observer = LeaseObserver::open(source, this, &error);
    if (!m_observer) {
        fail(2, QStringLiteral("kubeconfig"), error,
             QStringLiteral(
                 "correct \"config\", \"context\" or \"namespace\", or the kubeconfig file"));
        QMetaObject::invokeMethod(
            this, [this] { finish(QStringLiteral("kubeconfig refused")); }, Qt::QueuedConnection);
        return;
    }
    auto storeError = std::make_shared<QString>();
    connect(m_observer, &LeaseObserver::storeError, this,
            [storeError](const QString &message) { *storeError = message; });
    connect(m_observer, &LeaseObserver::ready, this, [this, storeError] {
        m_observer->stop();
        if (!storeError->isEmpty()) {
            fail(2, kubeStep(*storeError), *storeError, kubeFix(*storeError));
            finish(QStringLiteral("Lease objects not readable"));
            return;
        }
        pass(
            QStringLiteral("%1: listed; not checked: the permission to create and update the Lease "
                           "(only a real election shows it)")
                .arg(m_observer->describeSource()));
        finish(QStringLiteral("Lease objects readable"));
    });
    m_observer->start();
}

void ElectionProbe::pass(const QString &step)
{
    m_finding.details.append(QStringLiteral("%1: ok: %2").arg(leaseText(), step));
}

void ElectionProbe::fail(int severity, const QString &step, const QString &message,
                         const QString &fix)
{
    // A warning is no failure: join runs, but something is worth knowing.
    const QString line
        = QStringLiteral("%1%2: %3")
              .arg(step, severity > 1 ? QStringLiteral(" failed") : QString(), message);
    if (m_firstFailure.isEmpty() || severity > m_finding.severity)
        m_firstFailure = line;
    m_finding.severity = std::max(m_finding.severity, severity);
    m_finding.details.append(QStringLiteral("%1: %2").arg(leaseText(), line));
    m_finding.details.append(QStringLiteral("  fix: %1").arg(fix));
}

void ElectionProbe::finish(const QString &summary)
{
    if (m_done)
        return;
    m_done = true;
    m_finding.summary = QStringLiteral("%1: %2").arg(
        leaseText(), m_firstFailure.isEmpty() ? summary : m_firstFailure);
    Q_EMIT finished();
}

} // namespace baton
