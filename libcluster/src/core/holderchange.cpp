#include <baton/leaserecord.h>

#include <array>
#include <utility>

namespace baton {

namespace {

// All but "seen" are on the wire (events, stored histories): never renamed.
constexpr std::array<std::pair<HolderChange, const char *>, 6> kNames { {
        { HolderChange::Seen, "seen" },
        { HolderChange::FirstAcquire, "first-acquire" },
        { HolderChange::Released, "released" },
        { HolderChange::Expired, "expired" },
        { HolderChange::TakenOver, "taken-over" },
        { HolderChange::HandedOver, "handed-over" },
} };

} // namespace

QString holderChangeName(HolderChange why)
{
    for (const auto &[change, name] : kNames)
        if (change == why)
            return QString::fromLatin1(name);
    return {};
}

std::optional<HolderChange> holderChangeFromName(QStringView name)
{
    for (const auto &[change, text] : kNames)
        if (name == QLatin1String(text))
            return change;
    return std::nullopt;
}

} // namespace baton
