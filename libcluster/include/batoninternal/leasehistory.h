#pragma once

#include <batoninternal/batoninternal_export.h>

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace baton {

/*!
 * One holder change as the instance that took the lease recorded it (O2):
 * written with the acquisition, never on a renewal. The time is the new
 * holder's wall clock, for display only (F2).
 */
struct HistoryEntry
{
    /*! The previous holder; empty when there was none or it is not known. */
    QString from;
    /*! The new holder. */
    QString to;
    /*! first-acquire, released, handed-over, expired, taken-over: as in the event stream (O5). */
    QString why;
    /*! When \a to took the lease, by its clock. */
    QDateTime at;
    /*!
     * Milliseconds without a leader before \a to took the lease, by its
     * clock: from when it saw the release, or, after a crash, from the last
     * renewal of the previous holder (see crashGapMs()); -1 when it cannot
     * know.
     */
    qint64 gapMs = -1;
    /*! The record's transitions after the change: one per term (F7). */
    qint64 transitions = 0;
    /*! For a handover: who asked for it (an operator, an instance); empty otherwise. */
    QString requestedBy {};

    bool operator==(const HistoryEntry &) const = default;
};

/*!
 * The stored history of one lease: the last changes, oldest first, as one
 * JSON document `{"v": 1, "changes": [...]}`. In a Registry it is the entry
 * `history:<leaseName>` next to `cluster:<leaseName>`; on Kubernetes it is
 * the Lease's annotation kubernetesAnnotation, the same document as text.
 */
namespace leasehistory {

/*! How many changes are kept per lease unless the `historyLength` parameter says otherwise. */
constexpr int defaultLength = 20;
/*! A stored history larger than this is ignored, as a malformed one is. */
constexpr qsizetype maxDocumentBytes = 64 * 1024;

BATON_INTERNAL_EXPORT extern const QString registryPrefix;
BATON_INTERNAL_EXPORT extern const QString kubernetesAnnotation;

/*! `history:<leaseName>`: outside `cluster:*`, so no observer reads it as a lease. */
BATON_INTERNAL_EXPORT QString registryKey(const QString &leaseName);

BATON_INTERNAL_EXPORT QJsonObject encode(const QList<HistoryEntry> &changes);
/*!
 * encode() of the last of \a changes that fit maxDocumentBytes (at least
 * the newest one): what a writer stores, since readers refuse a larger
 * document.
 */
BATON_INTERNAL_EXPORT QJsonObject encodeWithin(const QList<HistoryEntry> &changes);
/*!
 * Reads a stored history back. A wrong version, a missing or mistyped field
 * or a document over maxDocumentBytes fills \a errorString with what was wrong
 * and where, and returns false: the caller ignores that history with one
 * warning and carries on (never an error of the election).
 */
BATON_INTERNAL_EXPORT bool decode(const QJsonObject &document, QList<HistoryEntry> *changes,
                                  QString *errorString);
/*! decode() of the annotation's text. */
BATON_INTERNAL_EXPORT bool decodeText(const QString &text, QList<HistoryEntry> *changes, QString *errorString);
/*!
 * The time without a leader of a crash failover: from the previous holder's
 * last renewal to the takeover, not from the expiry (the expiry is when a
 * successor may act, not when the leader stopped). \a sinceSeenMs is the
 * time since the last renewal was seen, on the boot clock of whoever
 * measures; \a lastRenewal (the replaced record's renewTime, the old
 * holder's wall clock) and \a takeover (the new one's) say more when the
 * renewal was written long before it was first seen (a successor that
 * started after the crash, a record read again): the larger of the two,
 * never less than what was seen. For display only (F2).
 */
BATON_INTERNAL_EXPORT qint64 crashGapMs(qint64 sinceSeenMs, const QDateTime &lastRenewal, const QDateTime &takeover);

/*! \a changes with \a change appended, keeping the last \a length (at least one). */
BATON_INTERNAL_EXPORT QList<HistoryEntry> appended(QList<HistoryEntry> changes, const HistoryEntry &change,
                                                   int length);

/*!
 * R7: \a changes with \a change put in its place by transitions, for a
 * writer that comes after another stored a later change (a leader frozen
 * between its lease write and its history write), keeping the last
 * \a length. None when \a changes already holds a change of that term,
 * or when the change would be the oldest one dropped.
 */
BATON_INTERNAL_EXPORT std::optional<QList<HistoryEntry>> inserted(QList<HistoryEntry> changes,
                                                                 const HistoryEntry &change,
                                                                 int length);

} // namespace leasehistory
} // namespace baton
