// kubelease::decode on a Lease object, or on the object of a watch event
// ({"type": ..., "object": {...}}), which the backend and the observer
// decode the same way (R1, B3): a Lease that cannot be trusted is refused
// with the field named, and the caller's state is left as it was; an accepted
// one has a positive duration, no negative transitions and a version.

#include "fuzzsupport.h"

#include "kubelease.h"

#include <QJsonDocument>

namespace {

void check(const QJsonObject &lease)
{
    baton::LeaseState state;
    state.version = QStringLiteral("sentinel");
    QString error;
    if (!baton::kubelease::decode(lease, &state, &error)) {
        FUZZ_CHECK(!error.isEmpty(), QString());
        FUZZ_CHECK(error.startsWith(QLatin1String("metadata.")) || error.startsWith(QLatin1String("spec")),
                   error); // names the field
        FUZZ_CHECK(!state.exists && state.version == QLatin1String("sentinel"), error);
        return;
    }
    FUZZ_CHECK(state.exists, QString());
    FUZZ_CHECK(!state.version.isEmpty(), QString());
    FUZZ_CHECK(state.record.leaseDurationMs > 0, QString::number(state.record.leaseDurationMs));
    FUZZ_CHECK(state.record.transitions >= 0, QString::number(state.record.transitions));
    // The MicroTime we write back (from our own clock, so in a sane year)
    // must read back as the same instant.
    const int year = state.record.renewTime.toUTC().date().year();
    if (state.record.renewTime.isValid() && year >= 1970 && year < 9000) {
        baton::LeaseState again;
        QJsonObject spec = lease.value(QStringLiteral("spec")).toObject();
        spec.insert(QStringLiteral("renewTime"), baton::kubelease::microTime(state.record.renewTime));
        QJsonObject copy = lease;
        copy.insert(QStringLiteral("spec"), spec);
        QString againError;
        FUZZ_CHECK(baton::kubelease::decode(copy, &again, &againError), againError);
        FUZZ_CHECK(again.record.renewTime == state.record.renewTime,
                   baton::kubelease::microTime(state.record.renewTime));
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    baton::fuzz::ensureCoreApplication();
    const QJsonDocument document = QJsonDocument::fromJson(baton::fuzz::bytes(data, size));
    if (!document.isObject())
        return 0;
    const QJsonObject object = document.object();
    check(object);
    const QJsonValue watched = object.value(QStringLiteral("object"));
    if (watched.isObject())
        check(watched.toObject());
    return 0;
}
