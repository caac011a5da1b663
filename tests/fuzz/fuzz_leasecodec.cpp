// leasecodec::decode on any JSON object a store may hand back (R1): a
// refused document names what is wrong and leaves the caller's record as it
// was; an accepted one survives encode() and decode() unchanged.

#include "fuzzsupport.h"

#include <batoninternal/leasecodec.h>

#include <QJsonDocument>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const QJsonDocument document = QJsonDocument::fromJson(baton::fuzz::bytes(data, size));
    if (!document.isObject())
        return 0; // the stores refuse non-JSON before the codec sees it
    const baton::LeaseRecord sentinel {QStringLiteral("sentinel"), 4242, {}, {}, 7, {}};
    baton::LeaseRecord record = sentinel;
    QString error;
    if (!baton::leasecodec::decode(document.object(), &record, &error)) {
        FUZZ_CHECK(!error.isEmpty(), QString());
        FUZZ_CHECK(record == sentinel, error);
        return 0;
    }
    FUZZ_CHECK(record.leaseDurationMs >= 1, QString::number(record.leaseDurationMs));
    FUZZ_CHECK(record.transitions >= 0, QString::number(record.transitions));
    baton::LeaseRecord again;
    QString againError;
    const QJsonObject encoded = baton::leasecodec::encode(record);
    FUZZ_CHECK(baton::leasecodec::decode(encoded, &again, &againError), againError);
    FUZZ_CHECK(again == record, QString::fromUtf8(QJsonDocument(encoded).toJson(QJsonDocument::Compact)));
    return 0;
}
