#include <batoninternal/eventrecord.h>

#include <baton/clock.h>

namespace baton::eventrecord {

QJsonObject make(const Clock &clock, const QString &lease, const QString &instance,
                 const QString &event)
{
    return QJsonObject {
            {QStringLiteral("v"), streamVersion},
            {QStringLiteral("ts"), clock.wallNow().toUTC().toString(Qt::ISODateWithMs)},
            {QStringLiteral("mono"), double(clock.monotonicMs())},
            {QStringLiteral("lease"), lease},
            {QStringLiteral("instance"), instance},
            {QStringLiteral("event"), event},
    };
}

} // namespace baton::eventrecord
