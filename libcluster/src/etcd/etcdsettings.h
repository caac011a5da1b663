#pragma once

#include "httpclient.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QStringList>
#include <QUrl>

namespace baton {

/*!
 * The parameters of a `Webda/EtcdStore`, read and checked (P1): the first
 * wrong one is refused with the rule it breaks, and a secret is never shown
 * (R2). Files (the password file, the TLS files) are opened by the client
 * that uses them (EtcdClient::setUp()).
 */
struct EtcdSettings
{
    /*! How refusals name the store: `service "Registry" (Webda/EtcdStore)`. */
    QString service;
    /*! Without a trailing slash: request paths are appended to them. */
    QList<QUrl> endpoints;
    QString prefix;
    QString username;
    QString password;
    QString passwordFile;
    HttpTlsOptions tls;
    /*! The `tls` block as the configuration writes it, for a refusal of its files. */
    QJsonValue tlsParameter;
    int timeoutMs = 5000;

    /*! The parameters a store of this type takes; the configuration refuses others (P1). */
    static QStringList parameterNames();
    /*! False, with the refusal in \a errorString, when a parameter is wrong. */
    static bool read(const QString &service, const QJsonObject &parameters, EtcdSettings *settings,
                     QString *errorString);
};

} // namespace baton
