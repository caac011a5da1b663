#pragma once

#include <QByteArray>
#include <QIODevice>

#include <algorithm>

namespace baton {

/*!
 * What \a device has, up to \a room bytes. QIODevice::read(n) allocates n
 * bytes before it knows how many arrived, and a short read keeps that
 * capacity: with a bound of megabytes, every chunk of a few hundred bytes
 * would cost an allocation of megabytes, held as long as the body is.
 */
inline QByteArray readUpTo(QIODevice *device, qint64 room)
{
    return device->read(std::clamp<qint64>(device->bytesAvailable(), 0, std::max<qint64>(room, 0)));
}

} // namespace baton
