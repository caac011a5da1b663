#pragma once

#include <QString>

#include <functional>

namespace baton {

class LeaseProtocol;

/*!
 * Asks the holder of a lease to hand it over (H1), from any process: a
 * conditional update that adds the successor and who asked to the record
 * and keeps every other field (holder, incarnation, times, transitions).
 * It makes nobody the holder and shortens no lease: the holder sees it
 * through the conflict of its next renewal (or its watch) and hands over
 * itself. A race with a renewal is retried on the newer version.
 */
namespace handoverrequest {

/*! \a done(ok, message): what was written, or what was wrong (nothing written then). */
using Done = std::function<void(bool ok, const QString &message)>;

/*! \a to is an instance id or anySuccessor ("*"); \a protocol must outlive the request. */
void send(LeaseProtocol *protocol, const QString &lease, const QString &to,
          const QString &requestedBy, Done done);

/*! The successor for the holder read, or none with what to report instead (and whether that is a success). */
struct Choice
{
    QString to;
    bool ok = false;
    QString message;
};
using Choose = std::function<Choice(const QString &holder)>;

/*! As send(), to the successor \a choose names once the holder is read. */
void sendToChosen(LeaseProtocol *protocol, const QString &lease, Choose choose, const QString &requestedBy,
                  Done done);

} // namespace handoverrequest

} // namespace baton
