#pragma once

#include <QCoreApplication>
#include <QString>

namespace baton {

/*!
 * What a lease's timings guarantee (O6), in the current language, from
 * ElectionTimings::forParameters(): the dashboard's per-lease explanation.
 */
class TimingsExplanation
{
    Q_DECLARE_TR_FUNCTIONS(TimingsExplanation)
public:
    enum class RenewSource { Known, Estimated, Unknown };
    /*!
     * Rich text for a lease of \a leaseMs renewed every \a renewMs. With an
     * unknown renewal interval (an observer cannot read it from the record)
     * only what follows from the lease duration is shown.
     */
    static QString describe(qint64 leaseMs, qint64 renewMs, RenewSource source);
};

} // namespace baton
