// `baton status` as a kubectl user reads it (O3): a lease named that is not
// there is an error naming the leases there are; -o json is a List and
// -o yaml the same document, read back by a YAML parser; --context is
// --kube-context; durations are written one way. Real `baton status`
// processes on a FileStore folder the test writes as a FileStore does.

#include "leasefolder.h"
#include "testsupport.h"

#include <batoninternal/durationtext.h>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <yaml-cpp/yaml.h>

#include <tuple>

using namespace baton;

namespace {

using Run = baton::test::BatonRun;
using baton::test::runBaton;

/*! Whether \a node holds the JSON \a value: same structure, same text, a string never left plain when YAML would read it as something else. */
bool sameAs(const YAML::Node &node, const QJsonValue &value, const QString &where, QString *why)
{
    const auto fail = [&](const QString &what) {
        *why = where + QStringLiteral(": ") + what;
        return false;
    };
    if (value.isObject()) {
        const QJsonObject object = value.toObject();
        if (!node.IsMap() || node.size() != size_t(object.size()))
            return fail(QStringLiteral("not a map of %1 keys").arg(object.size()));
        for (auto it = object.begin(); it != object.end(); ++it)
            if (!sameAs(node[it.key().toStdString()], it.value(), where + QLatin1Char('.') + it.key(), why))
                return false;
        return true;
    }
    if (value.isArray()) {
        const QJsonArray array = value.toArray();
        if (!node.IsSequence() || node.size() != size_t(array.size()))
            return fail(QStringLiteral("not a sequence of %1").arg(array.size()));
        for (qsizetype i = 0; i < array.size(); ++i)
            if (!sameAs(node[size_t(i)], array.at(i), where + QStringLiteral("[%1]").arg(i), why))
                return false;
        return true;
    }
    if (!node.IsScalar())
        return fail(QStringLiteral("not a scalar"));
    const QString text = QString::fromStdString(node.Scalar());
    if (value.isString()) {
        if (text != value.toString())
            return fail(QStringLiteral("\"%1\", not \"%2\"").arg(text, value.toString()));
        // A plain scalar is resolved by what it looks like: one that looks
        // like a number, a boolean, null or a time must be quoted ("!").
        static const QRegularExpression looksTyped(
                QStringLiteral("^([-+.0-9].*|true|false|yes|no|on|off|y|n|null|~|)$"),
                QRegularExpression::CaseInsensitiveOption);
        if (looksTyped.match(text).hasMatch() && node.Tag() != "!")
            return fail(QStringLiteral("\"%1\" left plain").arg(text));
        return true;
    }
    if (value.isBool())
        return node.as<bool>() == value.toBool() || fail(QStringLiteral("not %1").arg(value.toBool()));
    if (value.isDouble())
        return node.as<double>() == value.toDouble() || fail(QStringLiteral("%1, not %2").arg(text).arg(value.toDouble()));
    return fail(QStringLiteral("an unexpected JSON value"));
}

} // namespace

class TestStatusOutput : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void aLeaseNamedThatIsNotThereIsExitOneNamingTheLeasesThere();
    void noLeaseAtAllAndNoneNamedIsNoError();
    void jsonIsOneListAsKubectlPrintsIt();
    void yamlIsTheSameDocumentAndReadsBackAsIt();
    void contextIsTheKubeContext();
    void durationsAreWrittenOneWay();

private:
    /*! A FileStore folder with these leases: name, holder, renewed that long ago. */
    QString writeRegistry(const QString &name, const QList<std::tuple<QString, QString, qint64>> &leases);

    QTemporaryDir m_folder;
};

void TestStatusOutput::initTestCase()
{
    QVERIFY2(!test::batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
    QVERIFY(m_folder.isValid());
}

QString TestStatusOutput::writeRegistry(const QString &name,
                                        const QList<std::tuple<QString, QString, qint64>> &leases)
{
    QList<baton::test::LeaseEntry> entries;
    for (const auto &[lease, holder, renewedAgoMs] : leases)
        entries.append({lease, holder, renewedAgoMs, 90000});
    return baton::test::writeLeaseFolder(m_folder.filePath(name), entries);
}

void TestStatusOutput::aLeaseNamedThatIsNotThereIsExitOneNamingTheLeasesThere()
{
    // O3: as kubectl's NotFound: exit 1, on stderr, with the leases there
    // are, so that a typo shows; what was found is still printed.
    const QString folder = writeRegistry(QStringLiteral("notfound"),
                                         {{QStringLiteral("alpha"), QStringLiteral("web-1"), 1000},
                                          {QStringLiteral("beta"), QStringLiteral("web-2"), 1000}});
    const QString url = QStringLiteral("file://") + folder;
    const Run missing = runBaton({QStringLiteral("status"), QStringLiteral("nosuch"), QStringLiteral("--store"), url});
    QCOMPARE(missing.exitCode, 1);
    QCOMPARE(missing.err, QStringLiteral("baton status: lease \"nosuch\" not found (leases: alpha, beta)\n"));
    QCOMPARE(missing.out, QString());
    const Run some = runBaton({QStringLiteral("status"), QStringLiteral("alpha"), QStringLiteral("nosuch"),
                               QStringLiteral("--no-headers"), QStringLiteral("--store"), url});
    QCOMPARE(some.exitCode, 1);
    QVERIFY2(some.out.startsWith(QStringLiteral("alpha ")), qPrintable(some.out));
    QCOMPARE(some.err, missing.err);
    // The history of a lease that is not there is not an empty history.
    const Run history = runBaton({QStringLiteral("status"), QStringLiteral("nosuch"), QStringLiteral("--history"),
                                  QStringLiteral("--store"), url});
    QCOMPARE(history.exitCode, 1);
    QCOMPARE(history.err, missing.err);
}

void TestStatusOutput::noLeaseAtAllAndNoneNamedIsNoError()
{
    // O3: an empty Registry, nothing asked for by name: said, exit 0.
    const QString folder = writeRegistry(QStringLiteral("empty"), {});
    const Run run = runBaton({QStringLiteral("status"), QStringLiteral("--store"), QStringLiteral("file://") + folder});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.out.startsWith(QStringLiteral("no leases")), qPrintable(run.out));
    const Run named = runBaton({QStringLiteral("status"), QStringLiteral("nosuch"), QStringLiteral("--store"),
                                QStringLiteral("file://") + folder});
    QCOMPARE(named.exitCode, 1);
    QCOMPARE(named.err, QStringLiteral("baton status: lease \"nosuch\" not found (no leases)\n"));
}

void TestStatusOutput::jsonIsOneListAsKubectlPrintsIt()
{
    // O3: `jq '.items[]'` reads it as it reads kubectl's.
    const QString folder = writeRegistry(QStringLiteral("json"),
                                         {{QStringLiteral("alpha"), QStringLiteral("web-1"), 1000},
                                          {QStringLiteral("beta"), QStringLiteral("web-2"), 1000}});
    const Run run = runBaton({QStringLiteral("status"), QStringLiteral("-o"), QStringLiteral("json"),
                              QStringLiteral("--store"), QStringLiteral("file://") + folder});
    QCOMPARE(run.exitCode, 0);
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(run.out.toUtf8(), &error);
    QVERIFY2(document.isObject(), qPrintable(error.errorString() + QLatin1Char('\n') + run.out));
    const QJsonObject list = document.object();
    QCOMPARE(list.value(QStringLiteral("apiVersion")).toString(), QStringLiteral("v1"));
    QCOMPARE(list.value(QStringLiteral("kind")).toString(), QStringLiteral("List"));
    const QJsonArray items = list.value(QStringLiteral("items")).toArray();
    QCOMPARE(items.size(), 2);
    QCOMPARE(items.at(1).toObject().value(QStringLiteral("holder")).toString(), QStringLiteral("web-2"));
    // Numbers stay milliseconds, and say so in their names.
    QCOMPARE(items.at(0).toObject().value(QStringLiteral("leaseDurationMs")).toDouble(), 90000.0);
}

void TestStatusOutput::yamlIsTheSameDocumentAndReadsBackAsIt()
{
    // O3: -o yaml is -o json's document; holders and names that YAML would
    // read as a number, a boolean or a map are quoted.
    const QString folder = writeRegistry(QStringLiteral("yaml"),
                                         {{QStringLiteral("007"), QStringLiteral("yes"), 1000},
                                          {QStringLiteral("plain"), QStringLiteral("web: \"1\" # x"), 1000},
                                          {QStringLiteral("free"), QString(), 1000}});
    const QStringList store {QStringLiteral("--store"), QStringLiteral("file://") + folder};
    const Run json = runBaton(QStringList {QStringLiteral("status"), QStringLiteral("-o"), QStringLiteral("json")} + store);
    const Run yaml = runBaton(QStringList {QStringLiteral("status"), QStringLiteral("-o"), QStringLiteral("yaml")} + store);
    QCOMPARE(json.exitCode, 0);
    QCOMPARE(yaml.exitCode, 0);
    QJsonObject expected = QJsonDocument::fromJson(json.out.toUtf8()).object();
    QCOMPARE(expected.value(QStringLiteral("items")).toArray().size(), 3);
    YAML::Node node;
    try {
        node = YAML::Load(yaml.out.toStdString());
    } catch (const YAML::Exception &e) {
        QFAIL(qPrintable(QStringLiteral("not YAML: %1\n%2").arg(QString::fromUtf8(e.what()), yaml.out)));
    }
    // Two looks, two times: the snapshot's own ts, mono and sinceChangeMs differ.
    QJsonArray items = expected.value(QStringLiteral("items")).toArray();
    for (qsizetype i = 0; i < items.size(); ++i) {
        QJsonObject item = items.at(i).toObject();
        for (const char *key : {"ts", "mono", "sinceChangeMs", "instance"}) {
            QVERIFY2(node["items"][size_t(i)][key].IsScalar(), key);
            item.remove(QLatin1String(key));
            node["items"][size_t(i)].remove(key);
        }
        items[i] = item;
    }
    expected.insert(QStringLiteral("items"), items);
    QString why;
    QVERIFY2(sameAs(node, expected, QStringLiteral("document"), &why), qPrintable(why + QLatin1Char('\n') + yaml.out));
    // The history's document too: the same as -o json's.
    const Run history = runBaton(QStringList {QStringLiteral("status"), QStringLiteral("--history"), QStringLiteral("-o"),
                                              QStringLiteral("yaml")}
                                 + store);
    QCOMPARE(history.exitCode, 0);
    const YAML::Node historyNode = YAML::Load(history.out.toStdString());
    QCOMPARE(historyNode["v"].as<int>(), 1);
    QVERIFY2(historyNode["history"].IsSequence(), qPrintable(history.out));
}

void TestStatusOutput::contextIsTheKubeContext()
{
    // O3: kubectl's --context means what --kube-context does.
    const QString kubeconfig = m_folder.filePath(QStringLiteral("kubeconfig"));
    QFile file(kubeconfig);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("apiVersion: v1\nkind: Config\ncurrent-context: here\nclusters:\n- name: c\n  cluster:\n"
               "    server: https://127.0.0.1:1\ncontexts:\n- name: here\n  context:\n    cluster: c\n"
               "    user: u\nusers:\n- name: u\n  user:\n    token: t\n");
    file.close();
    const Run kube = runBaton({QStringLiteral("status"), QStringLiteral("--kube-context"), QStringLiteral("elsewhere"),
                               QStringLiteral("--kubeconfig"), kubeconfig});
    const Run context = runBaton({QStringLiteral("status"), QStringLiteral("--context"), QStringLiteral("elsewhere"),
                                  QStringLiteral("--kubeconfig"), kubeconfig});
    QCOMPARE(kube.exitCode, 2);
    QVERIFY2(kube.err.contains(QStringLiteral("elsewhere")), qPrintable(kube.err));
    QCOMPARE(context.exitCode, kube.exitCode);
    QCOMPARE(context.err, kube.err);
    // Alone, it names Kubernetes as the source, as --kube-context does.
    const Run alone = runBaton({QStringLiteral("status"), QStringLiteral("--context"), QStringLiteral("elsewhere")});
    const Run aloneKube = runBaton({QStringLiteral("status"), QStringLiteral("--kube-context"), QStringLiteral("elsewhere")});
    QCOMPARE(alone.exitCode, aloneKube.exitCode);
    QCOMPARE(alone.err, aloneKube.err);
}

void TestStatusOutput::durationsAreWrittenOneWay()
{
    // O3: every duration status prints for people is the one syntax the
    // options read ("1m30s", "2.3s"), never "90000 ms" or "90.0s".
    const QString folder = writeRegistry(QStringLiteral("durations"),
                                         {{QStringLiteral("held"), QStringLiteral("web-1"), 2300}});
    const QString url = QStringLiteral("file://") + folder;
    const Run table = runBaton({QStringLiteral("status"), QStringLiteral("-o"), QStringLiteral("wide"),
                                QStringLiteral("--no-headers"), QStringLiteral("--store"), url});
    QCOMPARE(table.exitCode, 0);
    static const QRegularExpression held(
            QStringLiteral("^held +web-1 +\\S+ +(\\S+)/1m30s +1  \\S+ +1m30s +(\\S+) +cluster:\\* +held$"));
    const QRegularExpressionMatch match = held.match(table.out.trimmed());
    QVERIFY2(match.hasMatch(), qPrintable(table.out));
    for (int i : {1, 2}) {
        QString problem;
        QVERIFY2(durationtext::parse(match.captured(i), &problem).has_value(),
                 qPrintable(match.captured(i) + QLatin1Char(' ') + problem));
    }
    const QString stale = writeRegistry(QStringLiteral("stale"), {{QStringLiteral("old"), QStringLiteral("web-2"), 120000}});
    const Run checked = runBaton({QStringLiteral("status"), QStringLiteral("--check"), QStringLiteral("--store"),
                                  QStringLiteral("file://") + stale});
    QCOMPARE(checked.exitCode, 2);
    static const QRegularExpression notRenewed(QStringLiteral("not renewed for (2m[0-9.]*s?), by its clock"));
    QVERIFY2(notRenewed.match(checked.firstLine()).hasMatch(), qPrintable(checked.out));
}

QTEST_GUILESS_MAIN(TestStatusOutput)
#include "tst_statusoutput.moc"
