#include "statusserver.h"

#include "electionmetrics.h"
#include "headlesslogging.h"
#include "modulepath.h"
#include "processmetrics.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QLibrary>
#include <QUrlQuery>

namespace baton {

StatusServer::StatusServer(const ElectionMetrics *metrics, QObject *parent)
    : QObject(parent)
    , m_metrics(metrics)
{
}

bool StatusServer::parseAddress(const QString &text, QHostAddress *address, quint16 *port,
                                QString *errorString)
{
    QString host;
    QString portText = text;
    const qsizetype colon = text.lastIndexOf(QLatin1Char(':'));
    if (text.startsWith(QLatin1Char('['))) {
        const qsizetype close = text.indexOf(QStringLiteral("]:"));
        if (close < 0) {
            *errorString = QStringLiteral("--listen %1: write an IPv6 address as [ADDRESS]:PORT").arg(text);
            return false;
        }
        host = text.mid(1, close - 1);
        portText = text.mid(close + 2);
    } else if (colon >= 0) {
        host = text.left(colon);
        portText = text.mid(colon + 1);
    }
    bool ok = false;
    const uint value = portText.toUInt(&ok);
    if (!ok || value > 65535) {
        *errorString = QStringLiteral("--listen %1: \"%2\" is not a port (0-65535)").arg(text, portText);
        return false;
    }
    *port = quint16(value);
    if (host.isEmpty() || host == QLatin1String("localhost")) {
        *address = QHostAddress(QHostAddress::LocalHost);
        return true;
    }
    if (!address->setAddress(host)) {
        *errorString = QStringLiteral("--listen %1: give the host as numbers (127.0.0.1, or "
                                      "0.0.0.0 for every interface) or localhost, not a name")
                               .arg(text);
        return false;
    }
    return true;
}

quint16 StatusServer::listen(const QHostAddress &address, quint16 port, QString *errorString)
{
    // The module stays loaded (QLibrary does not unload on destruction):
    // the server it makes lives as long as this object.
    QLibrary module(modulePath(QStringLiteral(BATON_STATUS_MODULE_FILE_NAME)));
    const auto serve = reinterpret_cast<statusmodule::Listen>(module.resolve(statusmodule::listenSymbol));
    if (!serve) {
        *errorString = QStringLiteral("the status module cannot be loaded: %1").arg(module.errorString());
        return 0;
    }
    const QByteArray text = QByteArrayLiteral("text/plain; charset=utf-8");
    // Liveness: answered by the event loop itself, so a frozen loop fails
    // the probe by its timeout. Nothing here reads the store: an outage of
    // the store must never make every replica restart at once.
    const auto alive = [text](const QUrlQuery &) { return statusmodule::Page {text, QByteArrayLiteral("ok\n")}; };
    const statusmodule::Pages pages {
        {QStringLiteral("/metrics"),
         [this](const QUrlQuery &) {
             return statusmodule::Page {QByteArrayLiteral("text/plain; version=0.0.4; charset=utf-8"),
                                        metricsBody()};
         }},
        {QStringLiteral("/livez"), alive},
        {QStringLiteral("/healthz"), alive},
        {QStringLiteral("/readyz"),
         [this, text](const QUrlQuery &) {
             const ElectionMetrics::Readiness readiness = m_metrics->readiness();
             if (readiness.ready)
                 return statusmodule::Page {text, QByteArrayLiteral("ready\n")};
             return statusmodule::Page {text, readiness.reasons.join(QStringLiteral("; ")).toUtf8() + '\n', 503};
         }},
        {QStringLiteral("/leader"), [this](const QUrlQuery &query) { return leaderPage(query); }},
    };
    quint16 bound = 0;
    if (!serve(pages, address, port, &bound, this)) {
        *errorString = QStringLiteral("cannot listen on %1:%2").arg(address.toString()).arg(port);
        return 0;
    }
    if (!address.isLoopback())
        qCWarning(lcServeHttp).noquote() << QStringLiteral("/metrics and the health pages are served on %1, not only "
                                                      "to this host: they show lease names and instance ids")
                                               .arg(address.toString());
    return bound;
}

QByteArray StatusServer::metricsBody() const
{
    QByteArray body = m_metrics->render();
    body += QStringLiteral("# HELP baton_build_info The version of baton and of the Qt it runs on.\n"
                           "# TYPE baton_build_info gauge\n"
                           "baton_build_info{version=\"%1\",qt_version=\"%2\"} 1\n")
                    .arg(QLatin1String(BATON_VERSION), QLatin1String(qVersion()))
                    .toUtf8();
    ProcessMetrics::Sample process;
    QString error;
    if (ProcessMetrics::read(QStringLiteral("/proc"), &process, &error))
        body += ProcessMetrics::render(process);
    else
        qCWarning(lcServeHttp).noquote() << QStringLiteral("/metrics without process_*: %1").arg(error);
    return body;
}

statusmodule::Page StatusServer::leaderPage(const QUrlQuery &query) const
{
    const QByteArray json = QByteArrayLiteral("application/json");
    auto answer = [&json](const QJsonObject &object, int status) {
        return statusmodule::Page {json, QJsonDocument(object).toJson(QJsonDocument::Compact) + '\n', status};
    };
    const QStringList leases = m_metrics->leaseNames();
    QString lease = query.queryItemValue(QStringLiteral("lease"), QUrl::FullyDecoded);
    if (lease.isEmpty()) {
        if (leases.size() != 1)
            return answer({{QStringLiteral("error"),
                            QStringLiteral("this instance takes part in %1 leases: name one with ?lease= "
                                           "(it has: %2)")
                                    .arg(leases.size())
                                    .arg(leases.join(QStringLiteral(", ")))}},
                          400);
        lease = leases.first();
    } else if (!leases.contains(lease)) {
        return answer({{QStringLiteral("error"), QStringLiteral("?lease=%1: this instance does not take part "
                                                                "in that lease (it has: %2)")
                                                         .arg(lease, leases.join(QStringLiteral(", ")))}},
                      404);
    }
    const ElectionMetrics::Leadership leadership = m_metrics->leadership(lease);
    if (!leadership.leading)
        return answer({{QStringLiteral("lease"), lease}, {QStringLiteral("holder"), leadership.holder}}, 503);
    return answer({{QStringLiteral("lease"), lease},
                   {QStringLiteral("holder"), leadership.holder},
                   {QStringLiteral("fencingToken"), double(leadership.fencingToken)},
                   {QStringLiteral("validForMs"), double(leadership.validForMs)}},
                  200);
}

} // namespace baton
