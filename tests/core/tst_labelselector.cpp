// Labels and label selectors (H1's `baton handover --to SELECTOR`), and the
// choice of a successor among candidate records: Kubernetes' label syntax,
// its selector semantics (`!=` and `notin` match a candidate without the
// label), and an order that names one successor however often it is asked.

#include <batoninternal/candidatebook.h>
#include <batoninternal/labelselector.h>
#include <batoninternal/successorchoice.h>

#include <QJsonObject>
#include <QTest>

using namespace baton;

namespace {

const QDateTime now = QDateTime::fromString(QStringLiteral("2026-12-03T10:00:00.000Z"), Qt::ISODateWithMs);

CandidateRecord candidate(const QString &instance, const CandidateLabels &labels, int priority = 0,
                          bool drained = false, qint64 heartbeatAgoMs = 1000)
{
    CandidateRecord record;
    record.instance = instance;
    record.incarnation = QStringLiteral("i-") + instance;
    record.labels = labels;
    record.priority = priority;
    record.drained = drained;
    record.heartbeat = now.addMSecs(-heartbeatAgoMs);
    record.heartbeatIntervalMs = 1000;
    return record;
}

LabelSelector selector(const QString &text)
{
    QString error;
    const std::optional<LabelSelector> parsed = LabelSelector::parse(text, &error);
    if (!parsed)
        qFatal("%s", qPrintable(error));
    return *parsed;
}

} // namespace

class TestLabelSelector : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void keysAndValuesFollowKubernetesSyntax_data();
    void keysAndValuesFollowKubernetesSyntax();
    void selectorsMatchAsKubernetesDoes_data();
    void selectorsMatchAsKubernetesDoes();
    void badSelectorsSayWhichPartIsWrong_data();
    void badSelectorsSayWhichPartIsWrong();
    void onlyTextWithSelectorMarksIsTakenForASelector();
    void labelsRoundTripThroughTheRecordAndBadOnesAreDropped();
    void theSuccessorIsRunningUndrainedMatchingAndOfTheHighestPriority();
    void noSuccessorSaysWhatEachCandidateLacked();
    void aMatchingHolderMovesNothing();
};

void TestLabelSelector::keysAndValuesFollowKubernetesSyntax_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("value");
    QTest::addColumn<bool>("valid");
    QTest::newRow("plain") << "zone" << "eu-west-1" << true;
    QTest::newRow("prefixed key") << "topology.kubernetes.io/zone" << "b" << true;
    QTest::newRow("empty value") << "canary" << "" << true;
    QTest::newRow("63 characters") << QString(63, QLatin1Char('k')) << QString(63, QLatin1Char('v')) << true;
    QTest::newRow("64-character key") << QString(64, QLatin1Char('k')) << "v" << false;
    QTest::newRow("64-character value") << "k" << QString(64, QLatin1Char('v')) << false;
    QTest::newRow("key begins with a dash") << "-zone" << "b" << false;
    QTest::newRow("value ends with a dot") << "zone" << "b." << false;
    QTest::newRow("space in a value") << "zone" << "b c" << false;
    QTest::newRow("upper-case prefix") << "Example.com/zone" << "b" << false;
    QTest::newRow("empty name after the prefix") << "example.com/" << "b" << false;
    QTest::newRow("non-ASCII letter") << "zöne" << "b" << false;
    QTest::newRow("control character") << "zone" << "b\n" << false;
}

void TestLabelSelector::keysAndValuesFollowKubernetesSyntax()
{
    QFETCH(QString, key);
    QFETCH(QString, value);
    QFETCH(bool, valid);
    const QString why = candidatelabels::checkKey(key) + candidatelabels::checkValue(value);
    QVERIFY2(why.isEmpty() == valid, qPrintable(why));
    CandidateLabels labels;
    QString error;
    QCOMPARE(candidatelabels::parseAssignment(key + QLatin1Char('=') + value, &labels, &error), valid);
    QCOMPARE(labels.value(key, QStringLiteral("<unset>")), valid ? value : QStringLiteral("<unset>"));
    if (!valid)
        QVERIFY2(error.contains(key + QLatin1Char('=') + value), qPrintable(error));
}

void TestLabelSelector::selectorsMatchAsKubernetesDoes_data()
{
    QTest::addColumn<QString>("selector");
    QTest::addColumn<bool>("matchesZoneB");    // {zone: b, tier: 1}
    QTest::addColumn<bool>("matchesUnlabelled"); // {}
    QTest::newRow("equals") << "zone=b" << true << false;
    QTest::newRow("double equals") << "zone==b" << true << false;
    QTest::newRow("equals another") << "zone=a" << false << false;
    QTest::newRow("not equals: absent matches") << "zone!=a" << true << true;
    QTest::newRow("not equals the value") << "zone!=b" << false << true;
    QTest::newRow("in") << "zone in (a,b)" << true << false;
    QTest::newRow("in, spaced") << "zone in ( a , b )" << true << false;
    QTest::newRow("notin: absent matches") << "zone notin (a,b)" << false << true;
    QTest::newRow("exists") << "tier" << true << false;
    QTest::newRow("does not exist") << "!tier" << false << true;
    QTest::newRow("all must hold") << "zone=b,tier=1" << true << false;
    QTest::newRow("one fails") << "zone=b,tier=2" << false << false;
    QTest::newRow("set then more") << "zone in (b,c),!canary,tier" << true << false;
}

void TestLabelSelector::selectorsMatchAsKubernetesDoes()
{
    QFETCH(QString, selector);
    QFETCH(bool, matchesZoneB);
    QFETCH(bool, matchesUnlabelled);
    const LabelSelector parsed = ::selector(selector);
    QCOMPARE(parsed.matches({{QStringLiteral("zone"), QStringLiteral("b")}, {QStringLiteral("tier"), QStringLiteral("1")}}),
             matchesZoneB);
    QCOMPARE(parsed.matches({}), matchesUnlabelled);
}

void TestLabelSelector::badSelectorsSayWhichPartIsWrong_data()
{
    QTest::addColumn<QString>("selector");
    QTest::addColumn<QString>("message");
    QTest::newRow("empty") << "  " << "the label selector is empty";
    QTest::newRow("trailing comma") << "zone=b," << "a requirement is empty";
    QTest::newRow("unclosed set") << "zone in (b" << "is not \"KEY in (A,B)\"";
    QTest::newRow("empty set member") << "zone in (a,,b)" << "a value in the parentheses is empty";
    QTest::newRow("bad value") << "zone=b%" << "the label value \"b%\" holds \"%\"";
    QTest::newRow("bad key") << "-zone=b" << "must begin and end with a letter or a digit";
    QTest::newRow("bad key of a set") << "zo ne in (a)" << "is not";
}

void TestLabelSelector::badSelectorsSayWhichPartIsWrong()
{
    QFETCH(QString, selector);
    QFETCH(QString, message);
    QString error;
    QVERIFY(!LabelSelector::parse(selector, &error));
    QVERIFY2(error.contains(message), qPrintable(error));
}

void TestLabelSelector::onlyTextWithSelectorMarksIsTakenForASelector()
{
    for (const char *id : {"web-1", "vm-990-517fc0c0", "api.example.com", "any"})
        QVERIFY2(!LabelSelector::looksLikeSelector(QString::fromLatin1(id)), id);
    for (const char *text : {"zone=b", "zone!=b", "!canary", "zone in (a,b)", "a,b"})
        QVERIFY2(LabelSelector::looksLikeSelector(QString::fromLatin1(text)), text);
}

void TestLabelSelector::labelsRoundTripThroughTheRecordAndBadOnesAreDropped()
{
    const CandidateRecord written = candidate(QStringLiteral("b"), {{QStringLiteral("zone"), QStringLiteral("b")},
                                                                   {QStringLiteral("canary"), QString()}});
    const std::optional<CandidateRecord> read = CandidateRecord::fromJson(written.toJson());
    QVERIFY(read);
    QCOMPARE(read->labels, written.labels);
    QVERIFY(!CandidateRecord::fromJson(candidate(QStringLiteral("a"), {}).toJson())->toJson().contains(
            QStringLiteral("labels")));

    // Edited by hand: what is not a label is never shown or matched.
    QJsonObject json = written.toJson();
    json.insert(QStringLiteral("labels"), QJsonObject {{QStringLiteral("zone"), QStringLiteral("b")},
                                                       {QStringLiteral("bad key"), QStringLiteral("x")},
                                                       {QStringLiteral("tier"), 1},
                                                       {QStringLiteral("log"), QStringLiteral("a\nforged line")}});
    QCOMPARE(CandidateRecord::fromJson(json)->labels, (CandidateLabels {{QStringLiteral("zone"), QStringLiteral("b")}}));
    json.insert(QStringLiteral("labels"), QStringLiteral("zone=b"));
    QVERIFY(CandidateRecord::fromJson(json)->labels.isEmpty());
}

void TestLabelSelector::theSuccessorIsRunningUndrainedMatchingAndOfTheHighestPriority()
{
    const CandidateLabels b {{QStringLiteral("zone"), QStringLiteral("b")}};
    const QList<CandidateRecord> records {
            candidate(QStringLiteral("holder"), {{QStringLiteral("zone"), QStringLiteral("a")}}, 100),
            candidate(QStringLiteral("b-drained"), b, 50, /*drained=*/true),
            candidate(QStringLiteral("b-gone"), b, 50, false, /*heartbeatAgoMs=*/4000),
            candidate(QStringLiteral("b-low"), b, 1),
            candidate(QStringLiteral("b-two"), b, 7),
            candidate(QStringLiteral("b-one"), b, 7),
    };
    const SuccessorChoice choice = chooseSuccessor(records, selector(QStringLiteral("zone=b")),
                                                   QStringLiteral("holder"), now);
    QCOMPARE(choice.instance, QStringLiteral("b-one")); // priority 7, then the first id
    QVERIFY(!choice.holderMatches);
    QVERIFY2(choice.explanation.contains(QStringLiteral("of 3 running, undrained candidates")),
             qPrintable(choice.explanation));
    // The same records in another order name the same successor.
    QList<CandidateRecord> reversed(records.crbegin(), records.crend());
    QCOMPARE(chooseSuccessor(reversed, selector(QStringLiteral("zone=b")), QStringLiteral("holder"), now).instance,
             QStringLiteral("b-one"));
    // A candidate that left is not running, whatever its heartbeat.
    QList<CandidateRecord> left = records;
    for (CandidateRecord &record : left)
        record.left = record.instance != QLatin1String("b-low") && record.instance != QLatin1String("holder");
    QCOMPARE(chooseSuccessor(left, selector(QStringLiteral("zone=b")), QStringLiteral("holder"), now).instance,
             QStringLiteral("b-low"));
}

void TestLabelSelector::noSuccessorSaysWhatEachCandidateLacked()
{
    const QList<CandidateRecord> records {
            candidate(QStringLiteral("holder"), {{QStringLiteral("zone"), QStringLiteral("a")}}),
            candidate(QStringLiteral("drained"), {{QStringLiteral("zone"), QStringLiteral("b")}}, 0, true),
            candidate(QStringLiteral("gone"), {{QStringLiteral("zone"), QStringLiteral("b")}}, 0, false, 60000),
            candidate(QStringLiteral("elsewhere"), {{QStringLiteral("zone"), QStringLiteral("c")}}),
            candidate(QStringLiteral("bare"), {}),
    };
    const SuccessorChoice choice = chooseSuccessor(records, selector(QStringLiteral("zone=b")),
                                                   QStringLiteral("holder"), now);
    QVERIFY(choice.instance.isEmpty());
    QVERIFY(!choice.holderMatches);
    for (const char *part : {"drained (drained)", "gone (not running)", "elsewhere (labels: zone=c)",
                             "bare (labels: none)", "no running, undrained candidate matches \"zone=b\""})
        QVERIFY2(choice.explanation.contains(QString::fromLatin1(part)), qPrintable(choice.explanation));
    QVERIFY(!choice.explanation.contains(QStringLiteral("holder")));

    const SuccessorChoice alone = chooseSuccessor({records.first()}, selector(QStringLiteral("zone=b")),
                                                  QStringLiteral("holder"), now);
    QVERIFY(alone.instance.isEmpty());
    QVERIFY2(alone.explanation.contains(QStringLiteral("besides its holder")), qPrintable(alone.explanation));
}

void TestLabelSelector::aMatchingHolderMovesNothing()
{
    const QList<CandidateRecord> records {
            candidate(QStringLiteral("holder"), {{QStringLiteral("zone"), QStringLiteral("b")}}),
            candidate(QStringLiteral("other"), {{QStringLiteral("zone"), QStringLiteral("b")}}, 10),
    };
    const SuccessorChoice choice = chooseSuccessor(records, selector(QStringLiteral("zone=b")),
                                                   QStringLiteral("holder"), now);
    QVERIFY(choice.holderMatches);
    QVERIFY(choice.instance.isEmpty());
    QVERIFY2(choice.explanation.contains(QStringLiteral("holder holds the lease and matches \"zone=b\" already")),
             qPrintable(choice.explanation));
}

QTEST_GUILESS_MAIN(TestLabelSelector)
#include "tst_labelselector.moc"
