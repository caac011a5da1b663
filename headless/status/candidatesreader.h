#pragma once

#include <batoninternal/candidatebook.h>

#include <QDateTime>
#include <QHash>
#include <QJsonArray>
#include <QObject>
#include <QStringList>

#include <functional>

namespace baton {

class LeaseObserver;

/*!
 * The candidates of each lease `baton status -o wide` and `-o json` show
 * (instance, priority, drained or standby, live or gone), read where the
 * lease keeps them (its store, or the ConfigMaps beside a Kubernetes
 * Lease), one lease after another. A lease whose candidates cannot be read
 * has none shown, with one warning per reason: the leases are what status
 * is for, and an observer may not be granted the candidates.
 *
 * One look has no boot clock to judge liveness by (the instances judge it
 * by how long they have seen a record unchanged): here a candidate is live
 * when it has not left and its last heartbeat, by its wall clock, is at
 * most 3 heartbeat intervals before this host's. For display only.
 */
class CandidatesReader : public QObject
{
    Q_OBJECT
public:
    using Found = QHash<QString, QList<CandidateRecord>>;

    CandidatesReader(LeaseObserver *observer, QStringList leases, QObject *parent = nullptr);

    /*! Reads, then \a done with the candidates found, by lease (a lease without any has no entry). */
    void read(std::function<void(const Found &found)> done);

    /*! The candidates of one lease as `-o json` lists them in its record. */
    static QJsonArray toJson(const QList<CandidateRecord> &records, const QDateTime &nowWall);
    /*! `-o wide`'s candidates table, a line each, the header first unless \a noHeaders. */
    static QStringList table(const QStringList &leases, const Found &found, const QDateTime &nowWall,
                             bool noHeaders);

private:
    void next();

    LeaseObserver *m_observer;
    QStringList m_leases;
    qsizetype m_index = 0;
    Found m_found;
    QStringList m_warned;
    CandidateBook *m_book = nullptr;
    std::function<void(const Found &)> m_done;
};

} // namespace baton
