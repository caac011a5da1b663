#include "storecontract.h"

#include <QCoreApplication>
#include <QSignalSpy>

#include <optional>

namespace baton::test {

void StoreContract::init()
{
    if (!skipReason().isEmpty())
        QSKIP(qPrintable(skipReason()));
    QString error;
    m_owned = newStore(&error);
    QVERIFY2(m_owned, qPrintable(error));
    m_store = m_owned.get();
}

void StoreContract::cleanup()
{
    checkEachCallbackRanOnce();
    m_owned.reset();
    m_store = nullptr;
}

// B1: get of a key that was never written.
void StoreContract::getMissingKeyIsNotFound()
{
    const CallPtr got = getCall(QStringLiteral("cluster:nothing"));
    WAIT_DONE(got);
    COMPARE_STATUS(got, "NotFound");
    QVERIFY(!got->result.entryKnown);
    QVERIFY(!got->result.errorString.isEmpty());
}

// B1: create-if-absent, then get sees the same document and version.
void StoreContract::createThenGetReturnsDocumentAndVersion()
{
    const QJsonObject document { { QStringLiteral("holder"), QStringLiteral("a") },
                                 { QStringLiteral("leaseDurationMs"), 15000 } };
    CREATE_OK(created, QStringLiteral("cluster:leader"), document);
    QCOMPARE(created.key, QStringLiteral("cluster:leader"));
    QCOMPARE(created.document, document);
    QVERIFY(!created.version.isEmpty());

    const CallPtr got = getCall(QStringLiteral("cluster:leader"));
    WAIT_DONE(got);
    COMPARE_STATUS(got, "Ok");
    QCOMPARE(got->result.entry.key, created.key);
    QCOMPARE(got->result.entry.document, document);
    QCOMPARE(got->result.entry.version, created.version);
}

// B1, B2: create never overwrites; the Conflict shows the entry that won.
void StoreContract::createOnExistingKeyConflictsWithCurrentEntry()
{
    CREATE_OK(first, QStringLiteral("cluster:leader"), doc(1));
    const CallPtr second = createCall(QStringLiteral("cluster:leader"), doc(2));
    WAIT_DONE(second);
    COMPARE_STATUS(second, "Conflict");
    QVERIFY(second->result.entryKnown);
    QCOMPARE(second->result.entry.document, doc(1));
    QCOMPARE(second->result.entry.version, first.version);

    const CallPtr got = getCall(QStringLiteral("cluster:leader"));
    WAIT_DONE(got);
    QCOMPARE(got->result.entry.document, doc(1));
}

void StoreContract::update_data()
{
    QTest::addColumn<bool>("exists");
    QTest::addColumn<QString>("versionToSend");
    QTest::addColumn<QString>("expected");
    QTest::newRow("update with the current version replaces the document") << true << "current"
                                                                           << "Ok";
    QTest::newRow("update with a stale version conflicts and shows the current entry")
        << true << "stale"
        << "Conflict";
    QTest::newRow("update with a version never issued conflicts") << true << "bogus"
                                                                  << "Conflict";
    QTest::newRow("update with an empty version conflicts") << true << "empty"
                                                            << "Conflict";
    QTest::newRow("update of a missing key is NotFound") << false << "bogus"
                                                         << "NotFound";
}

void StoreContract::writeTwice(const QString &key, QString *current, QString *version)
{
    QFETCH(bool, exists);
    QFETCH(QString, versionToSend);
    QString stale;
    if (exists) {
        CREATE_OK(created, key, doc(1));
        const CallPtr updated = updateCall(key, doc(2), created.version);
        WAIT_DONE(updated);
        COMPARE_STATUS(updated, "Ok");
        stale = created.version;
        *current = updated->result.entry.version;
        QVERIFY(*current != stale);
    }
    *version = versionToSend == QLatin1String("current") ? *current
        : versionToSend == QLatin1String("stale")        ? stale
        : versionToSend == QLatin1String("bogus")        ? QStringLiteral("no-such-version")
                                                         : QString();
}

// B1, B2: patch-if-version-matches.
void StoreContract::update()
{
    QFETCH(QString, expected);
    const QString key = QStringLiteral("cluster:leader");
    QString current;
    QString version;
    writeTwice(key, &current, &version);
    if (QTest::currentTestFailed())
        return;

    const CallPtr call = updateCall(key, doc(3), version);
    WAIT_DONE(call);
    QCOMPARE(statusName(call->status()), expected);
    const CallPtr got = getCall(key);
    WAIT_DONE(got);
    if (expected == QLatin1String("Ok")) {
        QCOMPARE(call->result.entry.document, doc(3));
        QVERIFY(call->result.entry.version != current);
        QCOMPARE(got->result.entry.document, doc(3));
        QCOMPARE(got->result.entry.version, call->result.entry.version);
    } else if (expected == QLatin1String("Conflict")) {
        QVERIFY(call->result.entryKnown);
        QCOMPARE(call->result.entry.version, current);
        QCOMPARE(call->result.entry.document, doc(2));
        QCOMPARE(got->result.entry.document, doc(2));
        QCOMPARE(got->result.entry.version, current);
    } else {
        COMPARE_STATUS(got, "NotFound"); // the update did not create it
    }
}

void StoreContract::remove_data()
{
    QTest::addColumn<bool>("exists");
    QTest::addColumn<QString>("versionToSend");
    QTest::addColumn<QString>("expected");
    QTest::newRow("remove with no version deletes whatever is there") << true << "empty"
                                                                      << "Ok";
    QTest::newRow("remove with the current version deletes") << true << "current"
                                                             << "Ok";
    QTest::newRow("remove with a stale version conflicts and keeps the entry")
        << true << "stale"
        << "Conflict";
    QTest::newRow("remove of a missing key is NotFound") << false << "empty"
                                                         << "NotFound";
}

// B1: delete, optionally conditional.
void StoreContract::remove()
{
    QFETCH(QString, expected);
    const QString key = QStringLiteral("cluster:leader");
    QString current;
    QString version;
    writeTwice(key, &current, &version);
    if (QTest::currentTestFailed())
        return;
    const CallPtr call = removeCall(key, version);
    WAIT_DONE(call);
    QCOMPARE(statusName(call->status()), expected);

    const CallPtr got = getCall(key);
    WAIT_DONE(got);
    if (expected == QLatin1String("Ok")) {
        QCOMPARE(call->result.entry.version, current);
        QCOMPARE(call->result.entry.document, doc(2));
        COMPARE_STATUS(got, "NotFound");
    } else if (expected == QLatin1String("Conflict")) {
        QVERIFY(call->result.entryKnown);
        QCOMPARE(call->result.entry.version, current);
        COMPARE_STATUS(got, "Ok");
        QCOMPARE(got->result.entry.version, current);
    } else {
        COMPARE_STATUS(got, "NotFound");
    }
}

// B2: a key removed and created again never gets back a version an old
// writer may hold, so that writer's conditional update cannot win.
void StoreContract::recreatedKeyGetsAFreshVersion()
{
    const QString key = QStringLiteral("cluster:leader");
    CREATE_OK(first, key, doc(1));
    const CallPtr removed = removeCall(key, QString());
    WAIT_DONE(removed);
    COMPARE_STATUS(removed, "Ok");
    CREATE_OK(second, key, doc(2));
    QVERIFY2(second.version != first.version, qPrintable(second.version));

    const CallPtr stale = updateCall(key, doc(3), first.version);
    WAIT_DONE(stale);
    COMPARE_STATUS(stale, "Conflict");
}

// B1: list by prefix, sorted by key.
void StoreContract::listByPrefix_data()
{
    QTest::addColumn<QString>("prefix");
    QTest::addColumn<QStringList>("expectedKeys");
    QTest::newRow("a prefix lists only the keys under it")
        << "cluster:" << QStringList { "cluster:a", "cluster:b" };
    QTest::newRow("the empty prefix lists every key")
        << "" << QStringList { "cluster:a", "cluster:b", "other:c" };
    QTest::newRow("a prefix nothing has lists nothing, successfully")
        << "none:" << QStringList {};
}

void StoreContract::listByPrefix()
{
    QFETCH(QString, prefix);
    QFETCH(QStringList, expectedKeys);
    CREATE_OK(b, QStringLiteral("cluster:b"), doc(2));
    CREATE_OK(a, QStringLiteral("cluster:a"), doc(1));
    CREATE_OK(c, QStringLiteral("other:c"), doc(3));

    const CallPtr listed = listCall(prefix);
    WAIT_DONE(listed);
    COMPARE_STATUS(listed, "Ok");
    QStringList keys;
    for (const StoreEntry &entry : std::as_const(listed->result.entries)) {
        keys.append(entry.key);
        const StoreEntry &expected = entry.key == a.key ? a : entry.key == b.key ? b : c;
        QCOMPARE(entry.document, expected.document);
        QCOMPARE(entry.version, expected.version);
    }
    QCOMPARE(keys, expectedKeys);
}

void StoreContract::sideWriteGoesOnlyWithAWin_data()
{
    QTest::addColumn<bool>("create");
    QTest::addColumn<bool>("wins");
    QTest::newRow("a create that wins writes the side document too") << true << true;
    QTest::newRow("a create on an existing key writes no side document") << true << false;
    QTest::newRow("an update that wins replaces the side document too") << false << true;
    QTest::newRow("an update with a stale version leaves the side document alone") << false << false;
}

// O2, B1: the second document of a conditional write (the lease's history)
// is written when the write wins, and never when it loses.
void StoreContract::sideWriteGoesOnlyWithAWin()
{
    QFETCH(bool, create);
    QFETCH(bool, wins);
    const QString key = QStringLiteral("cluster:leader");
    // Built from the side key as read: absent, or the version written below.
    StoreSideWrite side { QStringLiteral("history:leader"), doc(200), QString(), {} };
    CallPtr call;
    StoreEntry sideBefore;
    if (create) {
        if (!wins) {
            CREATE_OK(existing, key, doc(1));
        }
        call = createWithCall(key, doc(2), side);
    } else {
        CREATE_OK(written, side.key, doc(100));
        sideBefore = written;
        side.basedOn = written.version;
        CREATE_OK(first, key, doc(1));
        const CallPtr updated = updateCall(key, doc(2), first.version);
        WAIT_DONE(updated);
        COMPARE_STATUS(updated, "Ok");
        call = updateWithCall(key, doc(3), wins ? updated->result.entry.version : first.version,
                              side);
    }
    WAIT_DONE(call);
    const CallPtr got = getCall(key);
    const CallPtr sideGot = getCall(side.key);
    WAIT_DONE(got);
    WAIT_DONE(sideGot);
    if (wins) {
        COMPARE_STATUS(call, "Ok");
        QCOMPARE(call->result.entry.key, key);
        QCOMPARE(call->result.entry.document, create ? doc(2) : doc(3));
        QCOMPARE(got->result.entry.version, call->result.entry.version);
        COMPARE_STATUS(sideGot, "Ok");
        QCOMPARE(sideGot->result.entry.document, side.document);
    } else {
        COMPARE_STATUS(call, "Conflict");
        QVERIFY(call->result.entryKnown);
        QCOMPARE(call->result.entry.key, key);
        QCOMPARE(call->result.entry.document, doc(create ? 1 : 2));
        if (create) {
            COMPARE_STATUS(sideGot, "NotFound");
        } else {
            COMPARE_STATUS(sideGot, "Ok");
            QCOMPARE(sideGot->result.entry.document, sideBefore.document);
            QCOMPARE(sideGot->result.entry.version, sideBefore.version);
        }
    }
}

void StoreContract::aLateSideWriteNeverErasesANewerOne_data()
{
    QTest::addColumn<bool>("create");
    QTest::addColumn<bool>("rebases");
    QTest::addColumn<bool>("readUnreadable");
    QTest::newRow("a create's side write is built again over the newer one")
        << true << true << false;
    QTest::newRow("a create's side write leaves the newer one when it declines")
        << true << false << false;
    QTest::newRow("an update's side write is built again over the newer one")
        << false << true << false;
    QTest::newRow("an update's side write leaves the newer one when it declines")
        << false << false << false;
    QTest::newRow(
        "a create's side write built from an unreadable read is built again over the one stored")
        << true << true << true;
    QTest::newRow(
        "an update's side write built from an unreadable read is built again over the one stored")
        << false << true << true;
}

// R7: a side write built from a version of its key that another writer has
// since replaced (a leader's history write arriving after its successor's)
// never writes over the newer document: it is built again over it, or
// left out; the write it goes with wins or loses by its own version alone.
// So is one whose read of its key was answered unreadably (basedOn unset: a
// garbled reply while the successor's document was stored and readable).
void StoreContract::aLateSideWriteNeverErasesANewerOne()
{
    QFETCH(bool, create);
    QFETCH(bool, rebases);
    QFETCH(bool, readUnreadable);
    const QString key = QStringLiteral("cluster:leader");
    CREATE_OK(read, QStringLiteral("history:leader"), doc(100));
    // The successor's write of the side key, after the late writer read it.
    const CallPtr newer = updateCall(read.key, doc(101), read.version);
    WAIT_DONE(newer);
    COMPARE_STATUS(newer, "Ok");

    StoreSideWrite side { read.key, doc(200), read.version, {} };
    if (readUnreadable)
        side.basedOn.reset();
    std::optional<StoreEntry> rebasedOver;
    int rebases_ = 0;
    side.rebase = [&](const std::optional<StoreEntry> &current) -> std::optional<QJsonObject> {
        ++rebases_;
        rebasedOver = current;
        if (!rebases)
            return std::nullopt;
        return QJsonObject { { QStringLiteral("n"), current->document.value(QLatin1String("n")) },
                             { QStringLiteral("late"), 200 } };
    };
    CallPtr call;
    if (create) {
        call = createWithCall(key, doc(2), side);
    } else {
        CREATE_OK(first, key, doc(1));
        call = updateWithCall(key, doc(2), first.version, side);
    }
    WAIT_DONE(call);
    COMPARE_STATUS(call, "Ok");
    const CallPtr got = getCall(key);
    const CallPtr sideGot = getCall(side.key);
    WAIT_DONE(got);
    WAIT_DONE(sideGot);
    QCOMPARE(got->result.entry.document, doc(2));
    COMPARE_STATUS(sideGot, "Ok");
    QVERIFY2(rebases_ >= 1, "the late side write was never built again");
    QVERIFY(rebasedOver.has_value());
    QCOMPARE(rebasedOver->document, doc(101));
    if (rebases) {
        QCOMPARE(sideGot->result.entry.document,
                 (QJsonObject { { QStringLiteral("n"), 101 }, { QStringLiteral("late"), 200 } }));
    } else {
        QCOMPARE(sideGot->result.entry.document, doc(101));
        QCOMPARE(sideGot->result.entry.version, newer->result.entry.version);
    }
}

void StoreContract::conditionalUpdateWinsOnce_data()
{
    QTest::addColumn<int>("writers");
    QTest::newRow("two writers with the same version: one wins") << 2;
    QTest::newRow("eight writers with the same version: one wins") << 8;
}

// B2: two instances never both win.
void StoreContract::conditionalUpdateWinsOnce()
{
    QFETCH(int, writers);
    const QString key = QStringLiteral("cluster:leader");
    CREATE_OK(created, key, doc(0));

    QList<CallPtr> calls;
    for (int i = 1; i <= writers; ++i)
        calls.append(updateCall(key, doc(i), created.version));
    for (const CallPtr &call : std::as_const(calls))
        WAIT_DONE(call);

    QList<CallPtr> winners;
    for (const CallPtr &call : std::as_const(calls)) {
        if (call->result.ok())
            winners.append(call);
        else
            COMPARE_STATUS(call, "Conflict");
    }
    QCOMPARE(winners.size(), 1);
    for (const CallPtr &call : std::as_const(calls)) {
        if (call == winners.first())
            continue;
        QVERIFY(call->result.entryKnown);
        QCOMPARE(call->result.entry.version, winners.first()->result.entry.version);
    }
    const CallPtr got = getCall(key);
    WAIT_DONE(got);
    QCOMPARE(got->result.entry.document, winners.first()->result.entry.document);
}

// B1: watch by prefix reports creates, updates and removals under it,
// and nothing outside it.
void StoreContract::watchReportsChangesUnderPrefix()
{
    QObject owner;
    StoreWatch *watch = m_store->watch(QStringLiteral("cluster:"), &owner);
    QVERIFY(watch);
    QCOMPARE(watch->parent(), &owner);
    QSignalSpy changed(watch, &StoreWatch::entryChanged);
    QSignalSpy removed(watch, &StoreWatch::entryRemoved);

    CREATE_OK(outside, QStringLiteral("other:x"), doc(9));
    CREATE_OK(a, QStringLiteral("cluster:a"), doc(1));
    QTRY_VERIFY(!changed.isEmpty());
    QCOMPARE(changed.last().at(0).value<StoreEntry>().key, a.key);
    QCOMPARE(changed.last().at(0).value<StoreEntry>().version, a.version);

    const CallPtr updated = updateCall(a.key, doc(2), a.version);
    WAIT_DONE(updated);
    COMPARE_STATUS(updated, "Ok");
    QTRY_COMPARE(changed.last().at(0).value<StoreEntry>().version,
                 updated->result.entry.version);
    QCOMPARE(changed.last().at(0).value<StoreEntry>().document, doc(2));

    const CallPtr gone = removeCall(a.key, QString());
    WAIT_DONE(gone);
    QTRY_COMPARE(removed.size(), 1);
    QCOMPARE(removed.first().at(0).toString(), a.key);

    for (const QList<QVariant> &signal : std::as_const(changed))
        QVERIFY(signal.at(0).value<StoreEntry>().key.startsWith(QLatin1String("cluster:")));
}

// B1: destroying the StoreWatch ends the watch; others go on.
void StoreContract::destroyedWatchReportsNothing()
{
    auto *ended = m_store->watch(QStringLiteral("cluster:"), nullptr);
    std::unique_ptr<StoreWatch> live(m_store->watch(QStringLiteral("cluster:"), nullptr));
    QVERIFY(ended);
    QVERIFY(live);
    QSignalSpy endedSpy(ended, &StoreWatch::entryChanged);
    QSignalSpy liveSpy(live.get(), &StoreWatch::entryChanged);
    delete ended;

    CREATE_OK(a, QStringLiteral("cluster:a"), doc(1));
    // Both watches are told in the same turn, so by the time the live one
    // has heard, the ended one would have too.
    QTRY_COMPARE(liveSpy.size(), 1);
    QCOMPARE(endedSpy.size(), 0);
}

int runStoreTests(const QStringList &arguments, std::initializer_list<QObject *> tests)
{
    int failures = 0;
    for (QObject *test : tests) {
        QStringList own = arguments;
        for (qsizetype i = 1; i + 1 < own.size(); ++i) {
            if (own.at(i) == QLatin1String("-o") && !own.at(i + 1).startsWith(QLatin1String("-,"))) {
                const QString file = own.at(i + 1).section(QLatin1Char(','), 0, 0);
                const QString format = own.at(i + 1).section(QLatin1Char(','), 1);
                own[i + 1] = QStringLiteral("%1.%2,%3")
                                     .arg(file, QString::fromLatin1(test->metaObject()->className()), format);
            }
        }
        failures += QTest::qExec(test, own);
    }
    return failures == 0 ? 0 : 1;
}

} // namespace baton::test
