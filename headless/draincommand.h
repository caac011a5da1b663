#pragma once

#include <QList>
#include <QObject>
#include <QString>

#include <memory>

namespace baton {

class Application;
class CandidateBook;
class ClusterService;
class LeaseObserver;
class Service;
struct CandidateRecord;

/*!
 * `baton drain INSTANCE` and `baton undrain INSTANCE`: marks INSTANCE's
 * candidate record of each lease of a configuration (or of `--lease NAME`
 * only) drained, or not. A drained instance hands its lease over and takes
 * none while another candidate is live; the instance reads the mark at its
 * next heartbeat, so the command only writes it and exits. An instance that
 * has no record yet (never started) gets one that says it is not running,
 * so that it starts drained. Every write is a read-modify-write at the
 * version read, retried a few times when the instance wrote in between.
 */
class DrainCommand : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        /*! Drain (true) or undrain. */
        bool drain = true;
        QString instance;
        QString configPath;
        /*! The store at this URL instead of a configuration: `lease` names the lease then. */
        QString storeUrl;
        /*! Only this lease; empty: every lease of the configuration. */
        QString lease;
    };

    explicit DrainCommand(Options options, QObject *parent = nullptr);
    ~DrainCommand() override;

    /*! Returns an exit code when over at once (a bad configuration or lease), or -1: finished() comes later. */
    int start();

Q_SIGNALS:
    void finished(int exitCode);

private:
    struct Lease
    {
        QString name;
        CandidateBook *book = nullptr;
    };

    /*! Opens the candidate books of the selected leases; an exit code, or -1 when all opened. */
    int openBooks(const QList<ClusterService *> &clusters);
    /*! `--store URL`: the lease named, once the store is read and has it. */
    int openStore();
    void onStoreRead();
    bool initStoreOf(ClusterService *cluster, QString *errorString);
    void nextLease();
    void readAndWrite(int attempt);
    void written(int attempt, bool ok, const CandidateRecord &record, const QString &error);
    /*! What \a record becomes; false when it needs no write (\a news says why). */
    bool change(const CandidateRecord *stored, CandidateRecord *record, QString *news) const;
    /*! On stderr, when \a records (the lease's candidates) lack the instance: their names, and the closest. */
    void warnIfUnknown(const QList<CandidateRecord> &records) const;
    QString whatFollows(const CandidateRecord &record) const;
    void fail(const QString &text);

    Options m_options;
    std::unique_ptr<Application> m_application;
    LeaseObserver *m_observer = nullptr;
    QString m_storeError;
    QList<Lease> m_leases;
    int m_current = -1;
    int m_exitCode = 0;
    QList<Service *> m_initialised;
};

/*! The command lines of `baton drain` and `baton undrain`: their options, and their entries in `baton help`. */
namespace drainoptions {

extern const char *const usage;

struct Parsed
{
    DrainCommand::Options options;
    int exitCode = -1;
};
/*! Reads \a arguments (the program's: "drain" or "undrain" second); prints --help, or what is wrong. */
Parsed parse(const QStringList &arguments);

} // namespace drainoptions

} // namespace baton
