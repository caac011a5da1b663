#include "leasedetailpanel.h"

#include "chartsupport.h"
#include <baton/clock.h>
#include "dashboardparticipant.h"
#include "dashboardsession.h"
#include "failoverhistorymodel.h"
#include "leaseactivity.h"
#include <baton/leaseobserver.h>
#include "leasetablemodel.h"
#include "timingsexplanation.h"

#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>

namespace baton {

LeaseDetailPanel::LeaseDetailPanel(QWidget *parent)
    : QWidget(parent)
    , m_title(new QLabel(this))
    , m_facts(new QLabel(this))
    , m_timings(new QLabel(this))
{
    m_title->setObjectName(QStringLiteral("leaseTitle"));
    QFont titleFont = m_title->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.3);
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_facts->setTextFormat(Qt::RichText);
    m_facts->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_timings->setTextFormat(Qt::RichText);
    m_timings->setWordWrap(true);
    m_timings->setObjectName(QStringLiteral("timingsExplanation"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_title);
    layout->addWidget(m_facts);
    auto *heading = new QLabel(tr("What the timings guarantee"), this);
    QFont bold = heading->font();
    bold.setBold(true);
    heading->setFont(bold);
    layout->addSpacing(4);
    layout->addWidget(heading);
    layout->addWidget(m_timings);
    m_refresh.setInterval(1000);
    connect(&m_refresh, &QTimer::timeout, this, &LeaseDetailPanel::refresh);
    m_refresh.start();
    refresh();
}

void LeaseDetailPanel::setSession(DashboardSession *session)
{
    m_session = session;
    refresh();
}

void LeaseDetailPanel::setLease(const QString &lease)
{
    m_lease = lease;
    refresh();
}

void LeaseDetailPanel::refresh()
{
    if (!isVisible() && !m_title->text().isEmpty() && m_session)
        return;
    const std::optional<ObservedLease> lease = m_session && m_session->observer() && !m_lease.isEmpty()
            ? m_session->observer()->lease(m_lease)
            : std::nullopt;
    if (!lease) {
        m_title->setText(tr("No lease selected"));
        m_facts->setText(tr("Select a lease in the table to see its holder, renewals and history."));
        m_timings->clear();
        return;
    }
    const Clock &clock = m_session->observer()->clock();
    const qint64 now = clock.monotonicMs();
    m_title->setText(lease->name);
    const auto d = [](qint64 ms) { return LeaseTableModel::formatDuration(ms).toHtmlEscaped(); };
    QString html = QStringLiteral("<table cellspacing=\"2\">");
    const auto row = [&html](const QString &label, const QString &value) {
        html += QStringLiteral("<tr><td>%1</td><td>&nbsp;%2</td></tr>").arg(label.toHtmlEscaped(), value);
    };
    if (!lease->valid) {
        row(tr("State"), tr("unreadable: %1").arg(lease->error.toHtmlEscaped()));
    } else if (lease->record.holder.isEmpty()) {
        row(tr("Holder"), tr("<i>none</i> (released %1 ago)").arg(d(lease->sinceChangeMs(now))));
    } else {
        const bool own = m_session->participant() && m_session->participant()->isJoined()
                && m_session->participant()->parameters().instanceId == lease->record.holder;
        row(tr("Holder"), QStringLiteral("<b>%1</b>%2").arg(lease->record.holder.toHtmlEscaped(),
                                                             own ? tr(" (this dashboard)") : QString()));
        const QDateTime since = LeaseTableModel::heldSince(*lease, clock);
        row(tr("Held since"),
            tr("%1 (%2)").arg(QLocale().toString(since, QStringLiteral("HH:mm:ss")),
                              d(std::max<qint64>(0, since.msecsTo(clock.wallNow())))));
        row(tr("Last renewal seen"), tr("%1 ago, at %2").arg(d(lease->sinceChangeMs(now)),
                                                             chart::wallLabel(clock, lease->changedMono, true)));
        const qint64 expiry = lease->changedMono + lease->record.leaseDurationMs;
        row(tr("Expires for a follower"),
            expiry > now ? tr("in %1, at %2").arg(d(expiry - now), chart::wallLabel(clock, expiry, true))
                         : tr("<b style=\"color:#d63b3b\">%1 ago</b>").arg(d(now - expiry)));
    }
    row(tr("Transitions"), QString::number(lease->record.transitions));
    row(tr("Changes seen"), QString::number(lease->changesSeen));
    html += QStringLiteral("</table>");
    m_facts->setText(html);

    qint64 renew = -1;
    auto source = TimingsExplanation::RenewSource::Unknown;
    DashboardParticipant *participant = m_session->participant();
    if (participant && participant->isJoined() && participant->parameters().leaseName == lease->name) {
        renew = participant->parameters().renewIntervalMs;
        source = TimingsExplanation::RenewSource::Known;
    } else if (m_session->activity()) {
        renew = LeaseActivity::estimatedRenewInterval(m_session->activity()->track(lease->name));
        if (renew > 0)
            source = TimingsExplanation::RenewSource::Estimated;
    }
    m_timings->setText(TimingsExplanation::describe(lease->record.leaseDurationMs, renew, source));
}

} // namespace baton
