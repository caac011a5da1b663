// The Kubernetes manifests of resources/kubernetes, rendered as an operator
// applies them (`kubectl kustomize`, what `kubectl apply -k` sends): every
// object parses, RBAC grants only verbs Baton uses (B5), the participant is
// namespaced only and runs with the probes, limits and security settings
// docs/howto/kubernetes.md promises, and its configuration loads (P1).

#include "testsupport.h"

#include <QFile>
#include <QProcess>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <yaml-cpp/yaml.h>

#include <vector>

using namespace baton;

namespace {

QString manifests(const char *base)
{
    return QStringLiteral(BATON_KUBERNETES_MANIFESTS "/") + QLatin1String(base);
}

QSet<QString> strings(const YAML::Node &sequence)
{
    QSet<QString> out;
    for (const YAML::Node &item : sequence)
        out.insert(QString::fromStdString(item.as<std::string>()));
    return out;
}

QString text(const YAML::Node &node)
{
    return node && node.IsScalar() ? QString::fromStdString(node.as<std::string>()) : QString();
}

} // namespace

class TestKubernetesManifests : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void participantIsNamespacedAndGrantsOnlyWhatAParticipantUses();
    void participantRunsWithProbesLimitsAndARestrictedSecurityContext();
    void participantConfigurationLoads();
    void observerReadsLeasesOfEveryNamespaceAndNothingMore();

private:
    /*! `kubectl kustomize` of \a base, parsed; fails the test when either fails. */
    bool render(const char *base, std::vector<YAML::Node> *objects);
    static YAML::Node only(const std::vector<YAML::Node> &objects, const QString &kind);

    QString m_kubectl;
};

void TestKubernetesManifests::initTestCase()
{
    m_kubectl = QStandardPaths::findExecutable(QStringLiteral("kubectl"));
    if (m_kubectl.isEmpty())
        QSKIP("kubectl not found (Debian: kubernetes-client; ./setup.sh installs it)");
}

bool TestKubernetesManifests::render(const char *base, std::vector<YAML::Node> *objects)
{
    QProcess kubectl;
    kubectl.start(m_kubectl, {QStringLiteral("kustomize"), manifests(base)});
    if (!kubectl.waitForFinished(60000) || kubectl.exitCode() != 0) {
        qWarning("kubectl kustomize %s: %s", base, kubectl.readAllStandardError().constData());
        return false;
    }
    try {
        for (const YAML::Node &object : YAML::LoadAll(kubectl.readAllStandardOutput().toStdString())) {
            if (!object.IsMap() || !object["apiVersion"] || !object["kind"] || !object["metadata"]["name"]) {
                qWarning("%s: an object without apiVersion, kind or metadata.name", base);
                return false;
            }
            objects->push_back(object);
        }
    } catch (const YAML::Exception &e) {
        qWarning("%s: does not parse: %s", base, e.what());
        return false;
    }
    return !objects->empty();
}

YAML::Node TestKubernetesManifests::only(const std::vector<YAML::Node> &objects, const QString &kind)
{
    YAML::Node found;
    int count = 0;
    for (const YAML::Node &object : objects)
        if (text(object["kind"]) == kind) {
            found = object;
            ++count;
        }
    return count == 1 ? found : YAML::Node();
}

void TestKubernetesManifests::participantIsNamespacedAndGrantsOnlyWhatAParticipantUses()
{
    // B5: get, create, update; list and watch to follow the Lease (F8);
    // create on events and nothing more there (B4); on configmaps exactly
    // the verbs scheduled runs (S1: tst_kubernetes_schedule) and candidate
    // records (H2, H3: tst_candidatebook, get to read one's own) use.
    std::vector<YAML::Node> objects;
    QVERIFY(render("participant", &objects));
    QSet<QString> kinds;
    for (const YAML::Node &object : objects) {
        kinds.insert(text(object["kind"]));
        // Applied into the namespace a namespace admin chooses (-n).
        QVERIFY2(!object["metadata"]["namespace"], qPrintable(text(object["metadata"]["name"])));
    }
    QCOMPARE(kinds, (QSet<QString> {QStringLiteral("ServiceAccount"), QStringLiteral("Role"),
                                    QStringLiteral("RoleBinding"), QStringLiteral("Deployment"),
                                    QStringLiteral("ConfigMap")}));

    const YAML::Node role = only(objects, QStringLiteral("Role"));
    QVERIFY(role);
    QSet<QString> verbs;
    QSet<QString> eventVerbs;
    QSet<QString> configMapVerbs;
    for (const YAML::Node &rule : role["rules"]) {
        if (strings(rule["resources"]) == QSet<QString> {QStringLiteral("configmaps")}) {
            QCOMPARE(strings(rule["apiGroups"]), QSet<QString> {QString()});
            configMapVerbs.unite(strings(rule["verbs"]));
            continue;
        }
        // B4: the Event of each leader change, in the core group.
        if (strings(rule["resources"]) == QSet<QString> {QStringLiteral("events")}) {
            QCOMPARE(strings(rule["apiGroups"]), QSet<QString> {QString()});
            eventVerbs.unite(strings(rule["verbs"]));
            continue;
        }
        QCOMPARE(strings(rule["apiGroups"]), QSet<QString> {QStringLiteral("coordination.k8s.io")});
        QCOMPARE(strings(rule["resources"]), QSet<QString> {QStringLiteral("leases")});
        verbs.unite(strings(rule["verbs"]));
    }
    QCOMPARE(eventVerbs, QSet<QString> {QStringLiteral("create")});
    QCOMPARE(configMapVerbs, (QSet<QString> {QStringLiteral("get"), QStringLiteral("list"), QStringLiteral("create"),
                                             QStringLiteral("update"), QStringLiteral("delete")}));
    const QSet<QString> needed {QStringLiteral("get"), QStringLiteral("create"), QStringLiteral("update")};
    const QSet<QString> used = QSet<QString>(needed).unite({QStringLiteral("list"), QStringLiteral("watch")});
    QVERIFY(verbs.contains(needed));
    QVERIFY2(used.contains(verbs), qPrintable(QStringList(verbs.values()).join(QLatin1Char(' '))));

    const YAML::Node binding = only(objects, QStringLiteral("RoleBinding"));
    QCOMPARE(text(binding["roleRef"]["kind"]), QStringLiteral("Role"));
    QCOMPARE(text(binding["roleRef"]["name"]), text(role["metadata"]["name"]));
    QCOMPARE(text(binding["subjects"][0]["kind"]), QStringLiteral("ServiceAccount"));
    const YAML::Node deployment = only(objects, QStringLiteral("Deployment"));
    QCOMPARE(text(binding["subjects"][0]["name"]), text(deployment["spec"]["template"]["spec"]["serviceAccountName"]));
    QCOMPARE(text(only(objects, QStringLiteral("ServiceAccount"))["metadata"]["name"]),
             text(binding["subjects"][0]["name"]));
}

void TestKubernetesManifests::participantRunsWithProbesLimitsAndARestrictedSecurityContext()
{
    // O3: /livez for liveness (never the store), /readyz for readiness.
    std::vector<YAML::Node> objects;
    QVERIFY(render("participant", &objects));
    const YAML::Node pod = only(objects, QStringLiteral("Deployment"))["spec"]["template"]["spec"];
    QVERIFY(pod);
    QCOMPARE(pod["containers"].size(), std::size_t(1));
    const YAML::Node container = pod["containers"][0];

    QStringList ordered;
    for (const YAML::Node &arg : container["args"])
        ordered.append(text(arg));
    const qsizetype listen = ordered.indexOf(QStringLiteral("--listen"));
    QVERIFY2(listen >= 0 && listen + 1 < ordered.size(), qPrintable(ordered.join(QLatin1Char(' '))));
    QVERIFY(ordered.at(listen + 1).startsWith(QLatin1String("0.0.0.0:"))); // the kubelet is not loopback
    QCOMPARE(text(container["livenessProbe"]["httpGet"]["path"]), QStringLiteral("/livez"));
    QCOMPARE(text(container["readinessProbe"]["httpGet"]["path"]), QStringLiteral("/readyz"));

    QVERIFY(container["resources"]["requests"]["cpu"]);
    QVERIFY(container["resources"]["requests"]["memory"]);
    QVERIFY(container["securityContext"]["readOnlyRootFilesystem"].as<bool>());
    QVERIFY(!container["securityContext"]["allowPrivilegeEscalation"].as<bool>());
    QVERIFY(pod["securityContext"]["runAsNonRoot"].as<bool>());

    // B4: the Lease's namespace from the downward API.
    bool podNamespace = false;
    for (const YAML::Node &variable : container["env"])
        if (text(variable["name"]) == QLatin1String("POD_NAMESPACE"))
            podNamespace = text(variable["valueFrom"]["fieldRef"]["fieldPath"]) == QLatin1String("metadata.namespace");
    QVERIFY(podNamespace);
}

void TestKubernetesManifests::participantConfigurationLoads()
{
    // P1: the configuration the ConfigMap carries is one baton accepts.
    QVERIFY2(!test::batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
    std::vector<YAML::Node> objects;
    QVERIFY(render("participant", &objects));
    const YAML::Node data = only(objects, QStringLiteral("ConfigMap"))["data"];
    QVERIFY(data && data["baton.json"]);
    QTemporaryDir folder;
    QVERIFY(folder.isValid());
    const QString path = folder.filePath(QStringLiteral("baton.json"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QByteArray::fromStdString(data["baton.json"].as<std::string>()));
    file.close();
    QProcess baton;
    baton.start(test::batonBinary(), {QStringLiteral("join"), QStringLiteral("--config"), path,
                                      QStringLiteral("--explain")});
    QVERIFY(baton.waitForFinished(20000));
    QVERIFY2(baton.exitCode() == 0, baton.readAllStandardError().constData());
}

void TestKubernetesManifests::observerReadsLeasesOfEveryNamespaceAndNothingMore()
{
    // B5 and O2: get, list and watch on leases, cluster-wide, and nothing else.
    std::vector<YAML::Node> objects;
    QVERIFY(render("observer", &objects));
    QSet<QString> kinds;
    for (const YAML::Node &object : objects)
        kinds.insert(text(object["kind"]));
    QCOMPARE(kinds, (QSet<QString> {QStringLiteral("Namespace"), QStringLiteral("ServiceAccount"),
                                    QStringLiteral("ClusterRole"), QStringLiteral("ClusterRoleBinding")}));
    const YAML::Node role = only(objects, QStringLiteral("ClusterRole"));
    QCOMPARE(role["rules"].size(), std::size_t(1));
    const YAML::Node rule = role["rules"][0];
    QCOMPARE(strings(rule["apiGroups"]), QSet<QString> {QStringLiteral("coordination.k8s.io")});
    QCOMPARE(strings(rule["resources"]), QSet<QString> {QStringLiteral("leases")});
    QCOMPARE(strings(rule["verbs"]), (QSet<QString> {QStringLiteral("get"), QStringLiteral("list"), QStringLiteral("watch")}));
    QVERIFY(!rule["resourceNames"]);

    const YAML::Node binding = only(objects, QStringLiteral("ClusterRoleBinding"));
    const YAML::Node account = only(objects, QStringLiteral("ServiceAccount"));
    QCOMPARE(text(binding["roleRef"]["name"]), text(role["metadata"]["name"]));
    QCOMPARE(text(binding["subjects"][0]["name"]), text(account["metadata"]["name"]));
    QCOMPARE(text(binding["subjects"][0]["namespace"]), text(account["metadata"]["namespace"]));
    QCOMPARE(text(only(objects, QStringLiteral("Namespace"))["metadata"]["name"]),
             text(account["metadata"]["namespace"]));
}

QTEST_GUILESS_MAIN(TestKubernetesManifests)
#include "tst_kubernetesmanifests.moc"
