#pragma once

#include "candidatesreader.h"

#include <QObject>
#include <QList>
#include <QString>
#include <QStringList>

class QJsonObject;

namespace baton {

class LeaseObserver;
class SignalWatcher;
class WatchPrinter;
struct LeaseFailover;
struct ObservedLease;

/*!
 * `baton status`: the leases of a configuration's Registry, or the Lease
 * objects of a Kubernetes namespace (or of all), one line each
 * (holder, held since, last renewal against the lease duration,
 * transitions), or O5-shaped JSON lines with --json. --watch follows them
 * until SIGINT/SIGTERM (WatchPrinter's rows); --check gives a verdict
 * (statuscheck's, told as verdict.h says); --history writes the
 * failovers seen to a CSV or JSON file on exit; --history alone prints
 * each lease's holder changes, those stored with it first. Observes only: it never
 * starts the configuration's cluster services, and on Kubernetes it uses
 * only get, list and watch (B5). The watching is LeaseObserver's, how a
 * line reads statusformat's, a watch's lines WatchPrinter's and the
 * file historyexport's; this class decides what to print and when.
 */
class StatusCommand : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        /*! A Registry's configuration; or, when empty, the Kubernetes options below. */
        QString configPath;
        /*! A Registry named by URL instead (`--store`): see LeaseSourceOptions::Kind::StoreUrl. */
        QString storeUrl;
        /*! Kubernetes: a kubeconfig context (empty: the current one) and file (empty: KUBECONFIG, ~/.kube/config). */
        QString kubeContext;
        QString kubeconfigPath;
        /*! Empty: the B4 rules (POD_NAMESPACE, ..., the context's namespace, default). */
        QString namespaceName;
        bool allNamespaces = false;
        bool watch = false;
        bool json = false;
        /*! Ends in .csv or .json; empty: no export. */
        QString historyPath;
        /*!
         * `--history` alone: each lease's holder changes (those stored with
         * the lease, then those seen) instead of the leases, oldest first.
         */
        bool history = false;
        /*! `--runs`: the run records of scheduled jobs (RunsPrinter) instead of the leases. */
        bool runs = false;
        /*! Only these leases (`baton status LEASE...`); empty: all. */
        QStringList leases;
        /*! `--check`: a verdict instead of the leases, as monitoring plugins give it (statuscheck). */
        bool check = false;
        /*! `-o name`: one lease name a line. */
        bool namesOnly = false;
        /*! `-o json`: one JSON document (a `List` of lease records, or the history document). */
        bool jsonDocument = false;
        /*! `-o yaml`: the same document as `-o json`, written as YAML. */
        bool yamlDocument = false;
        /*!
         * `-o wide`: the table with the record's renewal time and lease
         * duration, the time since this observer saw it change, and the
         * source (the Registry's `cluster:*` or the Kubernetes namespace).
         */
        bool wide = false;
        /*! `--no-headers`: the table without its header line. */
        bool noHeaders = false;
        /*!
         * With `--store` and etcd: what a URL cannot carry (`--cacert`,
         * `--cert`, `--key`, `--user`, `--password-file`), as EtcdStore
         * parameters (`tls.ca`...); empty when none is given.
         */
        QString caFile;
        QString certFile;
        QString keyFile;
        QString user;
        QString passwordFile;
        /*! `--prefix`: the etcd store's key prefix, as its `prefix` parameter. */
        QString prefix;
    };

    /*!
     * Exit statuses, but for --check, whose are verdict.h's. A LEASE named
     * that is not there is 1 (kubectl's NotFound).
     */
    enum ExitCode { Success = 0, RuntimeFailure = 1, NotFound = 1, BadUsage = 2 };

    explicit StatusCommand(Options options, QObject *parent = nullptr);
    ~StatusCommand() override;

    /*! Returns an exit code when over at once, or -1: finished() comes later. */
    int start();

Q_SIGNALS:
    void finished(int exitCode);

private:
    /*! Opens the source the options name; an exit code when that failed, else -1. */
    int createObserver();
    void onReady();
    /*! The leases (or their history), once read with their candidates if shown; then the end, unless watching. */
    void show();
    /*! Whether the output shows the leases' candidates: a one-shot `-o wide`, `-o json` or `-o yaml`. */
    bool showsCandidates() const;
    void printSnapshot();
    void printRuns();
    void printHistory();
    void finish(int exitCode);
    bool selected(const QString &lease) const
    {
        return m_options.leases.isEmpty() || m_options.leases.contains(lease);
    }
    QList<ObservedLease> selectedLeases() const;
    QList<LeaseFailover> selectedHistory() const;
    bool exportHistory();
    void writeJson(const QJsonObject &record);
    /*! -o json or -o yaml: \a document, indented. */
    void printDocument(const QJsonObject &document);

    Options m_options;
    LeaseObserver *m_observer = nullptr;
    SignalWatcher *m_signals = nullptr;
    WatchPrinter *m_watch = nullptr;
    QString m_observerId;
    QString m_storeError;
    QString m_emptyText;
    bool m_done = false;
    CandidatesReader::Found m_candidates;
};

} // namespace baton
