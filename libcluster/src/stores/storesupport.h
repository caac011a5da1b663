#pragma once

#include "parameters.h"

#include <baton/service.h>
#include <baton/store.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonValue>
#include <QMetaObject>
#include <QString>

// Helpers shared by the embedded stores (MemoryStore, FileStore); header
// only, as they are a few lines each.
namespace baton::storesupport {

/*! A parameter value as the user wrote it in the configuration. */
inline QString describeValue(const QJsonValue &value)
{
    if (value.isUndefined())
        return QStringLiteral("missing");
    // A value alone is not a JSON document: wrap it and drop the brackets.
    const QByteArray json = QJsonDocument(QJsonArray { value }).toJson(QJsonDocument::Compact);
    return QString::fromUtf8(json.mid(1, json.size() - 2));
}

/*! How messages name a service: its type (full name when known) and its name. */
inline QString describeService(const Service &service, const QString &fallbackType)
{
    const QString type = service.type().isEmpty() ? fallbackType : service.type();
    return QStringLiteral("%1 \"%2\"").arg(type, service.name());
}

/*! How parameter refusals name a service: `service "Registry" (Webda/FileStore)`. */
inline QString describeForParameters(const Service &service, const QString &fallbackType)
{
    return ParameterReader::describeService(
            service.name(), service.type().isEmpty() ? fallbackType : service.type());
}

/*! Fills \a errorString with the refusal of a parameter (P1) and returns false. */
inline bool refuse(QString *errorString, const QString &service, const QString &parameter,
                   const QJsonValue &value, const QString &rule)
{
    ParameterReader reader(service, {});
    reader.refuse(parameter, value, rule);
    if (errorString)
        *errorString = reader.errorString();
    return false;
}

/*! Fills \a errorString with the first refusal of \a reader, if any, and returns whether there was none. */
inline bool accept(QString *errorString, const ParameterReader &reader)
{
    if (!reader.ok() && errorString)
        *errorString = reader.errorString();
    return reader.ok();
}

/*! Runs \a done with \a result on a later turn of \a store's event loop. */
inline void deliverLater(QObject *store, Store::Callback done, StoreResult result)
{
    if (!done)
        return;
    QMetaObject::invokeMethod(
        store, [done = std::move(done), result = std::move(result)] { done(result); },
        Qt::QueuedConnection);
}

inline StoreResult failure(StoreResult::Status status, const QString &errorString)
{
    StoreResult result;
    result.status = status;
    result.errorString = errorString;
    return result;
}

inline StoreResult success(const StoreEntry &entry)
{
    StoreResult result;
    result.entry = entry;
    result.entryKnown = true;
    return result;
}

/*! A Conflict that carries the entry that won. */
inline StoreResult conflict(const StoreEntry &current, const QString &errorString)
{
    StoreResult result = failure(StoreResult::Status::Conflict, errorString);
    result.entry = current;
    result.entryKnown = true;
    return result;
}

} // namespace baton::storesupport
