#include "statusserver.h"

#include "electionmetrics.h"
#include "headlesslogging.h"
#include "modulepath.h"
#include "statusmodule.h"

#include <QLibrary>

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
    const statusmodule::Pages pages {
        {QStringLiteral("/metrics"),
         [this] {
             return statusmodule::Page {QByteArrayLiteral("text/plain; version=0.0.4; charset=utf-8"),
                                        m_metrics->render()};
         }},
        {QStringLiteral("/healthz"),
         [this] {
             const ElectionMetrics::Health health = m_metrics->health();
             if (health.healthy)
                 return statusmodule::Page {QByteArrayLiteral("text/plain; charset=utf-8"),
                                            QByteArrayLiteral("ok\n")};
             return statusmodule::Page {QByteArrayLiteral("text/plain; charset=utf-8"),
                                        health.reasons.join(QLatin1Char('\n')).toUtf8() + '\n', 503};
         }},
    };
    quint16 bound = 0;
    if (!serve(pages, address, port, &bound, this)) {
        *errorString = QStringLiteral("cannot listen on %1:%2").arg(address.toString()).arg(port);
        return 0;
    }
    if (!address.isLoopback())
        qCWarning(lcHttp).noquote() << QStringLiteral("/metrics and /healthz are served on %1, not only "
                                                      "to this host: they show lease names and instance ids")
                                               .arg(address.toString());
    return bound;
}

} // namespace baton
