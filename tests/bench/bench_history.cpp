// What the stored history (O2) costs a Registry election: the store requests
// and document bytes it writes per acquisition and per renewal, with
// historyLength 0 (no history, as before) and 20 (the default), on a
// MemoryStore behind a store that counts what passes through it. A request is
// one call of the Store interface, as a network store would send it: a
// createWith or updateWith is one request (one etcd txn) carrying two
// documents.
//
//   bench_history [renewals]
//
// Prints a Markdown table for docs/benchmarks.md.

#include "memorystore.h"

#include <baton/clusterservice.h>
#include <baton/store.h>

#include <batoninternal/leasehistory.h>
#include <batoninternal/storelease.h>

#include <QCoreApplication>
#include <QJsonDocument>
#include <QTest>
#include <QTextStream>

#include <cstdio>
#include <memory>

using namespace baton;

namespace {

/*! What passed through a CountingStore. */
struct Counts
{
    int reads = 0;
    int writes = 0;
    qint64 bytesWritten = 0;
};

qint64 bytesOf(const QJsonObject &document)
{
    return QJsonDocument(document).toJson(QJsonDocument::Compact).size();
}

/*! A MemoryStore whose every request is counted, with the bytes of every document written. */
class CountingStore final : public Store
{
public:
    CountingStore()
        : Store(QStringLiteral("Registry"), {}, nullptr)
        , m_inner(QStringLiteral("Inner"), {}, nullptr)
    {
    }
    bool init(QString *errorString) override { return m_inner.init(errorString); }

    void get(const QString &key, Callback done) override
    {
        ++counts.reads;
        m_inner.get(key, std::move(done));
    }
    void create(const QString &key, const QJsonObject &document, Callback done) override
    {
        countWrite(document);
        m_inner.create(key, document, std::move(done));
    }
    void update(const QString &key, const QJsonObject &document, const QString &version,
                Callback done) override
    {
        countWrite(document);
        m_inner.update(key, document, version, std::move(done));
    }
    void createWith(const QString &key, const QJsonObject &document, const StoreSideWrite &side,
                    Callback done) override
    {
        countWrite(document, side.document);
        m_inner.createWith(key, document, side, std::move(done));
    }
    void updateWith(const QString &key, const QJsonObject &document, const QString &version,
                    const StoreSideWrite &side, Callback done) override
    {
        countWrite(document, side.document);
        m_inner.updateWith(key, document, version, side, std::move(done));
    }
    void remove(const QString &key, const QString &version, Callback done) override
    {
        ++counts.writes;
        m_inner.remove(key, version, std::move(done));
    }
    void list(const QString &prefix, Callback done) override
    {
        ++counts.reads;
        m_inner.list(prefix, std::move(done));
    }
    StoreWatch *watch(const QString &prefix, QObject *parent) override
    {
        return m_inner.watch(prefix, parent);
    }

    Counts counts;

private:
    void countWrite(const QJsonObject &document, const QJsonObject &side = {})
    {
        ++counts.writes;
        counts.bytesWritten += bytesOf(document) + (side.isEmpty() ? 0 : bytesOf(side));
    }

    MemoryStore m_inner;
};

struct Row
{
    QString what;
    Counts acquisition;
    Counts renewals;
    int renewalCount = 0;
};

/*! One leader's first acquisition, then \a renewals renewals, with \a historyLength; \a stored changes already kept. */
Row measure(const QString &what, int historyLength, int stored, int renewals)
{
    CountingStore store;
    QString error;
    if (!store.init(&error))
        qFatal("%s", qPrintable(error));
    if (stored > 0) {
        QList<HistoryEntry> changes;
        for (int i = 0; i < stored; ++i) {
            changes.append(HistoryEntry {QStringLiteral("host-%1-4711-0a1b2c3d").arg(i),
                                         QStringLiteral("host-%1-4711-0a1b2c3d").arg(i + 1),
                                         QStringLiteral("expired"),
                                         QDateTime::currentDateTimeUtc(), 1234, i + 1});
        }
        bool written = false;
        store.create(leasehistory::registryKey(QStringLiteral("leader")), leasehistory::encode(changes),
                     [&written](const StoreResult &) { written = true; });
        if (!QTest::qWaitFor([&written] { return written; }))
            qFatal("the history was not stored");
        store.counts = {};
    }
    std::unique_ptr<ClusterService> leader(createStoreElection(
            &store, QStringLiteral("cluster"),
            {{QStringLiteral("instanceId"), QStringLiteral("host-a-4711-0a1b2c3d")},
             {QStringLiteral("leaseDuration"), 600},
             {QStringLiteral("renewInterval"), 100},
             {QStringLiteral("historyLength"), historyLength}}));
    if (!leader->init(&error))
        qFatal("%s", qPrintable(error));
    if (!QTest::qWaitFor([&leader] { return leader->isLeader(); }, 10000))
        qFatal("no leader");
    Row row;
    row.what = what;
    row.acquisition = store.counts;
    store.counts = {};
    if (!QTest::qWaitFor([&store, renewals] { return store.counts.writes >= renewals; }, 60000))
        qFatal("too few renewals");
    row.renewals = store.counts;
    row.renewalCount = store.counts.writes;
    leader.reset(); // no release: it would count as a write
    return row;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const int renewals = argc > 1 ? QString::fromLocal8Bit(argv[1]).toInt() : 50;
    const QList<Row> rows {
        measure(QStringLiteral("historyLength 0 (before)"), 0, 0, renewals),
        measure(QStringLiteral("historyLength 20, no history yet"), 20, 0, renewals),
        measure(QStringLiteral("historyLength 20, 20 changes kept"), 20, 20, renewals),
    };
    QTextStream out(stdout);
    out << "| configuration | acquisition: requests (reads + writes) | acquisition: bytes written"
           " | per renewal: requests | per renewal: bytes written |\n";
    out << "|---|---|---|---|---|\n";
    for (const Row &row : rows) {
        const double perRenewalRequests
                = double(row.renewals.reads + row.renewals.writes) / row.renewalCount;
        const double perRenewalBytes = double(row.renewals.bytesWritten) / row.renewalCount;
        out << "| " << row.what << " | " << row.acquisition.reads + row.acquisition.writes << " ("
            << row.acquisition.reads << " + " << row.acquisition.writes << ") | "
            << row.acquisition.bytesWritten << " | " << QString::number(perRenewalRequests, 'f', 2)
            << " | " << QString::number(perRenewalBytes, 'f', 1) << " |\n";
    }
    return 0;
}
