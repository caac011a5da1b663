#pragma once

#include <batoninternal/runledger.h>

#include <QJsonObject>
#include <QObject>
#include <QStringList>

#include <functional>

namespace baton {

class LeaseObserver;

/*!
 * `baton status --runs [LEASE...]`: the run records of scheduled work
 * (`baton join --schedule`) of each lease, oldest tick first, as a table
 * or one JSON document. Reads each lease's records where they are kept (its
 * store, or the ConfigMaps beside a Kubernetes Lease), one after another.
 */
class RunsPrinter : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        QStringList leases;
        /*! -o json or -o yaml: one document, written by \a writeDocument. */
        bool document = false;
        bool noHeaders = false;
        std::function<void(const QJsonObject &)> writeDocument;
    };

    RunsPrinter(LeaseObserver *observer, Options options, QObject *parent = nullptr);

    /*! Prints, then \a done with 0, or 1 when the store could not be read. */
    void print(std::function<void(int exitCode)> done);

    /*! One record as the JSON document lists it. */
    static QJsonObject toJson(const QString &lease, const RunRecord &record);
    /*! The table's lines for \a records of \a lease; the header line first unless \a noHeaders. */
    static QStringList table(const QList<QPair<QString, RunRecord>> &records, bool noHeaders);

private:
    void next();

    LeaseObserver *m_observer;
    Options m_options;
    qsizetype m_index = 0;
    QList<QPair<QString, RunRecord>> m_found;
    std::function<void(int)> m_done;
    RunLedger *m_ledger = nullptr;
};

} // namespace baton
