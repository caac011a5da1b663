#include "storeurl.h"

#include <QJsonArray>
#include <QUrl>

namespace baton {

QJsonObject registryForStoreUrl(const QString &url, QString *errorString)
{
    const QStringList parts = url.split(QLatin1Char(','), Qt::SkipEmptyParts);
    if (parts.isEmpty()) {
        *errorString = QStringLiteral("--store: no URL given");
        return {};
    }
    for (const QString &part : parts) {
        // Before any message that repeats the URL: it may hold a password
        // (R2). A folder's own name may have an @, a host may not.
        const QUrl parsed(part.trimmed(), QUrl::StrictMode);
        if (!parsed.userInfo().isEmpty()
            || (parsed.scheme() != QLatin1String("file") && part.contains(QLatin1Char('@')))) {
            *errorString = QStringLiteral("--store: credentials do not go in a URL; name the "
                                          "store in a configuration file (--config)");
            return {};
        }
    }
    const QUrl first(parts.first().trimmed(), QUrl::StrictMode);
    if (first.scheme() == QLatin1String("file")) {
        if (parts.size() != 1 || !first.path().startsWith(QLatin1Char('/')) || !first.host().isEmpty()) {
            *errorString = QStringLiteral("--store \"%1\": a file store is one folder, "
                                          "file:///absolute/path")
                                   .arg(url);
            return {};
        }
        return {{QStringLiteral("type"), QStringLiteral("Webda/FileStore")},
                {QStringLiteral("folder"), first.path()}};
    }
    QJsonArray endpoints;
    for (const QString &part : parts) {
        QUrl endpoint(part.trimmed(), QUrl::StrictMode);
        const QString scheme = endpoint.scheme();
        if (scheme == QLatin1String("etcd"))
            endpoint.setScheme(QStringLiteral("http"));
        else if (scheme == QLatin1String("etcds"))
            endpoint.setScheme(QStringLiteral("https"));
        else if (scheme != QLatin1String("http") && scheme != QLatin1String("https"))
            endpoint = QUrl();
        if (!endpoint.isValid() || endpoint.host().isEmpty()) {
            *errorString = QStringLiteral("--store: \"%1\" is not a store URL (file:///folder, or "
                                          "etcd endpoints http://host:port, comma-separated)")
                                   .arg(part.trimmed());
            return {};
        }
        endpoints.append(endpoint.toString());
    }
    return {{QStringLiteral("type"), QStringLiteral("Webda/EtcdStore")},
            {QStringLiteral("endpoints"), endpoints}};
}

} // namespace baton
