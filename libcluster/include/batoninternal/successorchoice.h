#pragma once

#include <batoninternal/batoninternal_export.h>
#include <batoninternal/candidatebook.h>
#include <batoninternal/labelselector.h>

#include <QDateTime>
#include <QList>
#include <QString>

namespace baton {

/*! Whom `baton handover --to SELECTOR` asks the holder to hand over to. */
struct SuccessorChoice
{
    /*! The instance chosen; empty when there is none (or the holder matches). */
    QString instance;
    /*! The holder matches the selector itself: nothing is to move. */
    bool holderMatches = false;
    /*! For people: why this one, or why none (what each candidate lacked). */
    QString explanation;
};

/*!
 * Among \a records, the candidate \a selector picks: one that seems live
 * at \a nowWall, is not drained, is not \a holder and matches; the highest
 * priority first, then the instance id, so that one request asked twice
 * names one successor. The choice only names a successor: should it be
 * gone by the time the holder reads the request, the reservation lapses
 * after one lease duration, as for a named one.
 */
BATON_INTERNAL_EXPORT SuccessorChoice chooseSuccessor(const QList<CandidateRecord> &records,
                                                      const LabelSelector &selector, const QString &holder,
                                                      const QDateTime &nowWall);

} // namespace baton
