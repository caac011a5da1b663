#include "etcdreplies.h"

#include "etcdtxn.h"
#include "storesupport.h"

namespace baton::etcdreplies {

using Status = StoreResult::Status;

StoreResult badReply(const QString &description, const QString &operation, const QString &key,
                     const QString &why)
{
    return storesupport::failure(Status::BadReply,
                                 QStringLiteral("%1: %2 \"%3\": etcd answered something this "
                                                "client cannot read: %4")
                                         .arg(description, operation, key, why));
}

StoreResult notApplied(const QString &description, const QByteArray &prefix,
                       const QString &operation, const QString &key, const QString &version,
                       const QJsonObject &range)
{
    std::optional<StoreEntry> current;
    QString why;
    if (!etcdtxn::foundEntry(range, prefix, &current, &why))
        return badReply(description, operation, key, why);
    if (!current)
        return storesupport::failure(Status::NotFound, QStringLiteral("%1: no key \"%2\" to %3")
                                                               .arg(description, key, operation));
    return storesupport::conflict(*current, QStringLiteral("%1: key \"%2\" has version %3, not %4")
                                                    .arg(description, key, current->version, version));
}

bool tooManyOperations(const StoreResult &refusal)
{
    return refusal.errorString.contains(QLatin1String("too many operations in txn request"));
}

} // namespace baton::etcdreplies
