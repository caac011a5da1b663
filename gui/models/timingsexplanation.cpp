#include "timingsexplanation.h"

#include "leasetablemodel.h"

#include <baton/clusterservice.h>

#include <QLocale>

namespace baton {

QString TimingsExplanation::describe(qint64 leaseMs, qint64 renewMs, RenewSource source)
{
    const auto d = [](qint64 ms) { return LeaseTableModel::formatDuration(ms).toHtmlEscaped(); };
    if (leaseMs <= 0)
        return tr("The record does not say its lease duration.");
    QString html = QStringLiteral("<table cellspacing=\"2\">");
    const auto row = [&html](const QString &label, const QString &value) {
        html += QStringLiteral("<tr><td>%1</td><td>&nbsp;<b>%2</b></td></tr>").arg(label.toHtmlEscaped(), value);
    };
    row(tr("Lease duration"), d(leaseMs));
    if (source == RenewSource::Unknown || renewMs <= 0 || renewMs >= leaseMs) {
        row(tr("Renew interval"), tr("unknown to an observer"));
        row(tr("Crash failover"), tr("about %1 after the last renewal seen").arg(d(leaseMs)));
        html += QStringLiteral("</table><p>%1</p>")
                        .arg(tr("Join this election, or wait for a few renewals, to see the step-down "
                                "deadline and the safety margin.")
                                     .toHtmlEscaped());
        return html;
    }
    const ElectionTimings t = ElectionTimings::forParameters(leaseMs, renewMs);
    row(source == RenewSource::Known ? tr("Renew interval") : tr("Renew interval (estimated)"), d(renewMs));
    row(tr("Worst crash failover"), tr("within %1 of the leader's crash").arg(d(t.worstCrashFailover)));
    row(tr("Clean handover"), tr("milliseconds with a watch, else %1").arg(d(t.cleanHandover)));
    row(tr("Leader steps down after"), tr("%1 without a successful renewal").arg(d(t.stepDownDeadline)));
    row(tr("Safety margin"), d(t.safetyMargin));
    row(tr("Tolerated clock-rate difference"),
        QStringLiteral("%1 %").arg(QLocale().toString(t.toleratedClockDrift * 100.0, 'f', 1)));
    html += QStringLiteral("</table>");
    if (source == RenewSource::Estimated)
        html += QStringLiteral("<p>%1</p>")
                        .arg(tr("The renew interval is the median interval between the renewals "
                                "this dashboard saw.")
                                     .toHtmlEscaped());
    return html;
}

} // namespace baton
