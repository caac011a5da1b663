#pragma once

// The Registry contract (B1, B2, R1) that every store keeps, written once:
// StoreContract holds one test per rule, and each store's own test
// executable (tst_store_memory, tst_store_file, tst_store_etcd) runs it on
// that store, next to what only that store has. StoreCalls issues calls on a
// store and remembers them, for both kinds of test.

#include <baton/store.h>

#include <QCoreApplication>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QString>
#include <QTest>

#include <initializer_list>
#include <memory>

namespace baton::test {

using Status = StoreResult::Status;

/*! \a status by name, for comparisons whose failure reads well. */
inline QString statusName(Status status)
{
    switch (status) {
    case Status::Ok: return QStringLiteral("Ok");
    case Status::Conflict: return QStringLiteral("Conflict");
    case Status::NotFound: return QStringLiteral("NotFound");
    case Status::Unavailable: return QStringLiteral("Unavailable");
    case Status::BadReply: return QStringLiteral("BadReply");
    case Status::CredentialsRefused: return QStringLiteral("CredentialsRefused");
    }
    return QStringLiteral("?");
}

/*! What a store did with one callback: how often and when it ran it. */
struct Call
{
    int calls = 0;
    bool inside = false;
    bool ranInsideCall = false;
    StoreResult result;

    Status status() const { return result.status; }
};
using CallPtr = std::shared_ptr<Call>;

/*! Runs \a operation, a store call given its callback, and keeps its Call in \a issued. */
template<typename Operation> CallPtr issue(Operation &&operation, QList<CallPtr> *issued)
{
    auto call = std::make_shared<Call>();
    call->inside = true;
    operation([call](const StoreResult &result) {
        ++call->calls;
        call->ranInsideCall |= call->inside;
        call->result = result;
    });
    call->inside = false;
    issued->append(call);
    return call;
}

/*! A small document that tells writes apart: {"n": n}. */
inline QJsonObject doc(int n)
{
    return QJsonObject { { QStringLiteral("n"), n } };
}

/*!
 * Runs \a tests one after the other with the command line \a arguments,
 * except that an output file (`-o FILE,FORMAT`, the copy ctest keeps for the
 * secrets scan) gets each class's name appended: each qExec() would
 * otherwise overwrite the one before. Returns 0 when all passed.
 */
int runStoreTests(const QStringList &arguments, std::initializer_list<QObject *> tests);

} // namespace baton::test

// Waits for the one callback of a store call, and checks it came on a later
// event-loop turn, never inside the call (Store's contract).
#define WAIT_DONE(call)                                                                            \
    do {                                                                                           \
        QTRY_COMPARE((call)->calls, 1);                                                            \
        QVERIFY2(!(call)->ranInsideCall, "the callback ran inside the call");                      \
    } while (false)

#define COMPARE_STATUS(call, expected)                                                             \
    QVERIFY2(statusName((call)->status()) == QStringLiteral(expected),                             \
             qPrintable(QStringLiteral("status %1 (%2), expected " expected)                       \
                            .arg(statusName((call)->status()), (call)->result.errorString)))

// Creates \a key and declares \a var, the entry as stored.
#define CREATE_OK(var, key, document)                                                              \
    StoreEntry var;                                                                                \
    do {                                                                                           \
        const CallPtr created_ = createCall(key, document);                                        \
        WAIT_DONE(created_);                                                                       \
        COMPARE_STATUS(created_, "Ok");                                                            \
        var = created_->result.entry;                                                              \
    } while (false)

namespace baton::test {

/*!
 * A helper the store tests share: issues calls on a store and remembers them,
 * so that cleanup() can check no callback ran twice.
 */
class StoreCalls : public QObject
{
    Q_OBJECT
protected:
    Store *m_store = nullptr;
    QList<CallPtr> m_issued;

    CallPtr getCall(const QString &key)
    {
        return issue([&](auto done) { m_store->get(key, done); }, &m_issued);
    }
    CallPtr createCall(const QString &key, const QJsonObject &document)
    {
        return issue([&](auto done) { m_store->create(key, document, done); }, &m_issued);
    }
    CallPtr updateCall(const QString &key, const QJsonObject &document, const QString &version)
    {
        return issue([&](auto done) { m_store->update(key, document, version, done); }, &m_issued);
    }
    CallPtr createWithCall(const QString &key, const QJsonObject &document, const StoreSideWrite &side)
    {
        return issue([&](auto done) { m_store->createWith(key, document, side, done); }, &m_issued);
    }
    CallPtr updateWithCall(const QString &key, const QJsonObject &document, const QString &version,
                           const StoreSideWrite &side)
    {
        return issue([&](auto done) { m_store->updateWith(key, document, version, side, done); },
                     &m_issued);
    }
    CallPtr removeCall(const QString &key, const QString &version)
    {
        return issue([&](auto done) { m_store->remove(key, version, done); }, &m_issued);
    }
    CallPtr listCall(const QString &prefix)
    {
        return issue([&](auto done) { m_store->list(prefix, done); }, &m_issued);
    }

    void checkEachCallbackRanOnce()
    {
        // Anything already posted runs now: a second delivery would be among it.
        QCoreApplication::sendPostedEvents();
        for (const CallPtr &call : std::as_const(m_issued))
            QVERIFY2(call->calls <= 1, "a store callback ran more than once");
        m_issued.clear();
    }
};


/*! The contract every store keeps (B1); a subclass provides the store. */
class StoreContract : public StoreCalls
{
    Q_OBJECT
protected:
    /*! A new, initialised, empty store; nullptr (after QFAIL-worthy error) when it cannot. */
    virtual std::unique_ptr<Store> newStore(QString *error) = 0;
    /*! Why this store cannot be tested here (no etcd outside ctest); empty when it can. */
    virtual QString skipReason() const { return {}; }

private:
    /*!
     * The start of the update and remove rows (columns exists, versionToSend):
     * when the row's key exists, \a key is written twice ({"n": 1}, then
     * {"n": 2}), so that it has a stale version and a \a current one.
     * \a version is what the row sends: "current", "stale", "bogus" (never
     * issued) or "empty". The test has failed when it could not.
     */
    void writeTwice(const QString &key, QString *current, QString *version);

    std::unique_ptr<Store> m_owned;

private Q_SLOTS:
    void init();
    void cleanup();
    void getMissingKeyIsNotFound();
    void createThenGetReturnsDocumentAndVersion();
    void createOnExistingKeyConflictsWithCurrentEntry();
    void update_data();
    void update();
    void remove_data();
    void remove();
    void recreatedKeyGetsAFreshVersion();
    void listByPrefix_data();
    void listByPrefix();
    void sideWriteGoesOnlyWithAWin_data();
    void sideWriteGoesOnlyWithAWin();
    void aLateSideWriteNeverErasesANewerOne_data();
    void aLateSideWriteNeverErasesANewerOne();
    void conditionalUpdateWinsOnce_data();
    void conditionalUpdateWinsOnce();
    void watchReportsChangesUnderPrefix();
    void destroyedWatchReportsNothing();
};

} // namespace baton::test
