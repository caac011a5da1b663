// The lease record as a Registry keeps it, and a Kubernetes Lease: a
// handover's fields (H1) are read and written, and records without them
// read exactly as before.

#include "kubelease.h"
#include <batoninternal/leasecodec.h>

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace baton;

class TestLeaseCodec : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void aRecordWithoutHandoverFieldsReadsAsBeforeAndIsWrittenWithoutThem();
    void aHandoverRequestAndAReservationRoundTrip();
    void aHandoverFieldOfTheWrongTypeIsAnErrorNamingIt();
    void aLeaseCarriesTheSuccessorInPreferredHolder();
    void aPreferredHolderIsWrittenWithAStrategyAndOnlyOursIsRemoved();
    void theCompactFormIsWhatQtWritesOfTheDocument_data();
    void theCompactFormIsWhatQtWritesOfTheDocument();
};

void TestLeaseCodec::aRecordWithoutHandoverFieldsReadsAsBeforeAndIsWrittenWithoutThem()
{
    const QJsonObject earlier {{QStringLiteral("holderIdentity"), QStringLiteral("a")},
                               {QStringLiteral("leaseDurationMs"), 15000},
                               {QStringLiteral("acquireTime"), QString()},
                               {QStringLiteral("renewTime"), QString()},
                               {QStringLiteral("leaseTransitions"), 3}};
    LeaseRecord record;
    QString error;
    QVERIFY2(leasecodec::decode(earlier, &record, &error), qPrintable(error));
    QVERIFY(record.successor.isEmpty());
    QVERIFY(record.handoverRequestedBy.isEmpty());
    QCOMPARE(leasecodec::encode(record), earlier);
}

void TestLeaseCodec::aHandoverRequestAndAReservationRoundTrip()
{
    LeaseRecord asked;
    asked.holder = QStringLiteral("a");
    asked.holderIncarnation = QStringLiteral("i1");
    asked.leaseDurationMs = 15000;
    asked.transitions = 2;
    asked.successor = QStringLiteral("c");
    asked.handoverRequestedBy = QStringLiteral("ops@host");
    const QJsonObject encoded = leasecodec::encode(asked);
    QCOMPARE(encoded.value(QStringLiteral("successor")).toString(), QStringLiteral("c"));
    QCOMPARE(encoded.value(QStringLiteral("handoverRequestedBy")).toString(), QStringLiteral("ops@host"));
    LeaseRecord decoded;
    QString error;
    QVERIFY2(leasecodec::decode(encoded, &decoded, &error), qPrintable(error));
    QCOMPARE(decoded, asked);
}

void TestLeaseCodec::aHandoverFieldOfTheWrongTypeIsAnErrorNamingIt()
{
    QJsonObject bad = leasecodec::encode(LeaseRecord {QStringLiteral("a"), 15000, {}, {}, 0, {}});
    bad.insert(QStringLiteral("successor"), 7);
    LeaseRecord record;
    QString error;
    QVERIFY(!leasecodec::decode(bad, &record, &error));
    QVERIFY2(error.contains(QStringLiteral("\"successor\"")), qPrintable(error));
}

void TestLeaseCodec::aLeaseCarriesTheSuccessorInPreferredHolder()
{
    // KEP-4355's field carries the successor; who asked is an annotation,
    // beside the ones other writers put there (R7).
    const QJsonObject lease {
            {QStringLiteral("metadata"),
             QJsonObject {{QStringLiteral("resourceVersion"), QStringLiteral("7")},
                          {QStringLiteral("annotations"),
                           QJsonObject {{kubelease::requestedByAnnotation, QStringLiteral("ops@host")},
                                        {QStringLiteral("example.com/other"), QStringLiteral("kept")}}}}},
            {QStringLiteral("spec"),
             QJsonObject {{QStringLiteral("holderIdentity"), QString()},
                          {QStringLiteral("leaseDurationSeconds"), 15},
                          {QStringLiteral("preferredHolder"), QStringLiteral("c")}}}};
    LeaseState state;
    QString error;
    QVERIFY2(kubelease::decode(lease, &state, &error), qPrintable(error));
    QCOMPARE(state.record.successor, QStringLiteral("c"));
    QCOMPARE(state.record.handoverRequestedBy, QStringLiteral("ops@host"));
    LeaseRecord taken = state.record;
    taken.successor.clear();
    taken.handoverRequestedBy.clear();
    const QJsonObject annotations = kubelease::withIncarnation(lease.value(QStringLiteral("metadata")).toObject(), taken)
                                            .value(QStringLiteral("annotations")).toObject();
    QVERIFY(!annotations.contains(kubelease::requestedByAnnotation));
    QCOMPARE(annotations.value(QStringLiteral("example.com/other")).toString(), QStringLiteral("kept"));
}

void TestLeaseCodec::aPreferredHolderIsWrittenWithAStrategyAndOnlyOursIsRemoved()
{
    // H1, H2: the API server takes spec.preferredHolder only beside spec.strategy.
    LeaseRecord kept;
    kept.successor = QStringLiteral("c");
    const QJsonObject asked = kubelease::withSuccessor({{QStringLiteral("holderIdentity"), QString()}}, kept);
    QCOMPARE(asked.value(QStringLiteral("preferredHolder")).toString(), QStringLiteral("c"));
    QCOMPARE(asked.value(QStringLiteral("strategy")).toString(), QStringLiteral("baton.dev/steering"));
    LeaseRecord taken;
    const QJsonObject cleared = kubelease::withSuccessor(asked, taken);
    QVERIFY(!cleared.contains(QStringLiteral("preferredHolder")));
    QVERIFY(!cleared.contains(QStringLiteral("strategy")));

    // R7: a strategy another writer put there stays, with a successor and after it.
    const QJsonObject theirs {{QStringLiteral("strategy"), QStringLiteral("OldestEmulationVersion")}};
    QCOMPARE(kubelease::withSuccessor(theirs, kept).value(QStringLiteral("strategy")).toString(),
             QStringLiteral("OldestEmulationVersion"));
    const QJsonObject after = kubelease::withSuccessor(kubelease::withSuccessor(theirs, kept), taken);
    QCOMPARE(after.value(QStringLiteral("strategy")).toString(), QStringLiteral("OldestEmulationVersion"));
    QVERIFY(!after.contains(QStringLiteral("preferredHolder")));
    // An empty strategy is none: ours is written in its place.
    QCOMPARE(kubelease::withSuccessor({{QStringLiteral("strategy"), QString()}}, kept)
                     .value(QStringLiteral("strategy")).toString(),
             QStringLiteral("baton.dev/steering"));
}

void TestLeaseCodec::theCompactFormIsWhatQtWritesOfTheDocument_data()
{
    QTest::addColumn<LeaseRecord>("record");
    const QDateTime at(QDate(2026, 12, 6), QTime(6, 1, 2, 345), Qt::UTC);
    LeaseRecord plain;
    plain.holder = QStringLiteral("host-a");
    plain.holderIncarnation = QStringLiteral("7f3c2a");
    plain.leaseDurationMs = 15000;
    plain.acquireTime = at.addSecs(-3600);
    plain.renewTime = at;
    plain.transitions = 3;
    QTest::newRow("a holder renewing") << plain;
    LeaseRecord free;
    free.leaseDurationMs = 15000;
    QTest::newRow("free") << free;
    LeaseRecord handing = plain;
    handing.successor = QStringLiteral("host-b");
    handing.handoverRequestedBy = QStringLiteral("drain");
    handing.transitions = 123456789012;
    handing.leaseDurationMs = 1;
    QTest::newRow("handing over") << handing;
    LeaseRecord odd = plain;
    odd.holder = QStringLiteral("q\"uote\\back/slash\b\f\n\r\t\x01\x1f\x7f é 名 ") + QString::fromUcs4(U"\U0001F600");
    odd.successor = QStringLiteral("</script>");
    QTest::newRow("every character JSON escapes") << odd;
    LeaseRecord lone = plain;
    lone.holder = QStringLiteral("a") + QChar(0xd800) + QStringLiteral("b");
    lone.successor = QString(QChar(0xdc00));
    QTest::newRow("lone surrogates") << lone;
}

// What goes to etcd at every renewal is written straight; it must be the
// very bytes Qt writes of encode()'s document, so that nothing reading it
// (another version, etcdctl get, the watch) sees a difference.
void TestLeaseCodec::theCompactFormIsWhatQtWritesOfTheDocument()
{
    QFETCH(LeaseRecord, record);
    const QByteArray written = leasecodec::encodeCompact(record);
    QCOMPARE(written, QJsonDocument(leasecodec::encode(record)).toJson(QJsonDocument::Compact));
    LeaseRecord read;
    QString error;
    QVERIFY2(leasecodec::decode(QJsonDocument::fromJson(written).object(), &read, &error), qPrintable(error));
    QCOMPARE(read.holder, record.holder);
    QCOMPARE(read.renewTime, record.renewTime);
    QCOMPARE(read.transitions, record.transitions);
}

QTEST_GUILESS_MAIN(TestLeaseCodec)
#include "tst_leasecodec.moc"
