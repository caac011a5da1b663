#include <batoninternal/eventrecord.h>

#include <baton/clock.h>
#include <batoninternal/isotime.h>

namespace baton::eventrecord {

QJsonObject make(const Clock &clock, const QString &lease, const QString &instance,
                 const QString &event)
{
    return QJsonObject {
            {QStringLiteral("v"), streamVersion},
            {QStringLiteral("ts"), isotime::format(clock.wallNow())},
            {QStringLiteral("mono"), double(clock.monotonicMs())},
            {QStringLiteral("lease"), lease},
            {QStringLiteral("instance"), instance},
            {QStringLiteral("event"), event},
    };
}

} // namespace baton::eventrecord
