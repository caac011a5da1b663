#pragma once

#include <batoninternal/runledger.h>

namespace baton {

/*!
 * Where a RunLedger keeps its records when not in a Store. Each operation
 * is conditional as RunLedger documents it: create only when the tick has
 * no record, update and remove only at the version read. Callbacks run
 * once, on a later turn of the event loop.
 */
class RunRecordBackend
{
public:
    virtual ~RunRecordBackend() = default;
    /*! ok false, error empty: another instance has the tick. */
    virtual void create(const RunRecord &record, RunLedger::Done done) = 0;
    /*! ok false, error empty: \a earlier is no longer the record. */
    virtual void update(const RunRecord &earlier, const RunRecord &record, RunLedger::Done done) = 0;
    /*! In any order. */
    virtual void list(RunLedger::Listed done) = 0;
    /*! Best effort: what trimming removes. */
    virtual void remove(const RunRecord &record) = 0;
};

} // namespace baton
