#pragma once

#include <batoninternal/candidatebook.h>

namespace baton {

/*!
 * Where a CandidateBook keeps its records when not in a Store. Each
 * operation is conditional as CandidateBook documents it: create only when
 * the instance has no record, update and remove only at the version read.
 * Callbacks run once, on a later turn of the event loop.
 */
class CandidateRecordBackend
{
public:
    virtual ~CandidateRecordBackend() = default;
    /*! ok true with no record: the instance has none. */
    virtual void read(const QString &instance, CandidateBook::Read done) = 0;
    /*! ok false, error empty: the instance has a record already. */
    virtual void create(const CandidateRecord &record, CandidateBook::Done done) = 0;
    /*! ok false, error empty: \a earlier is no longer the record. */
    virtual void update(const CandidateRecord &earlier, const CandidateRecord &record, CandidateBook::Done done) = 0;
    /*! In any order. */
    virtual void list(CandidateBook::Listed done) = 0;
    /*! Best effort. */
    virtual void remove(const CandidateRecord &record) = 0;
};

} // namespace baton
