#include "handoverrequest.h"

#include "leaseprotocol.h"

#include <memory>

namespace baton::handoverrequest {

namespace {

// A leader renews every renewInterval: losing that race more often than
// this means the lease is written by something else all the time.
constexpr int maxAttempts = 5;

struct Request
{
    LeaseProtocol *protocol;
    QString lease;
    QString requestedBy;
    Done done;
    Choose choose;
    /*! Named by choose() on the last read. */
    QString to;
    /*! How the successor was chosen, told with the result. */
    QString why;
    int attempts = 0;
};

void attempt(std::shared_ptr<Request> r)
{
    ++r->attempts;
    r->protocol->get(r->lease, [r](const LeaseReply &read) {
        const QString where = r->protocol->describeLease(r->lease);
        if (read.outcome != LeaseReply::Outcome::Ok) {
            r->done(false, QStringLiteral("%1: could not read the lease: %2").arg(where, read.errorString));
            return;
        }
        if (!read.state.exists || read.state.record.holder.isEmpty()) {
            r->done(false, QStringLiteral("%1: nobody holds the lease; there is nothing to hand over")
                                   .arg(where));
            return;
        }
        const LeaseRecord &held = read.state.record;
        // Chosen again on each attempt: a lost race may be to a new holder.
        const Choice choice = r->choose(held.holder);
        if (choice.to.isEmpty()) {
            r->done(choice.ok, QStringLiteral("%1: %2").arg(where, choice.message));
            return;
        }
        r->to = choice.to;
        r->why = choice.message;
        if (held.holder == r->to) {
            r->done(true, QStringLiteral("%1: %2 holds the lease already").arg(where, r->to));
            return;
        }
        LeaseRecord asked = held;
        asked.successor = r->to;
        asked.handoverRequestedBy = r->requestedBy;
        r->protocol->update(r->lease, asked, read.state.version, std::nullopt,
                            [r, where, holder = held.holder](const LeaseReply &written) {
            if (written.outcome == LeaseReply::Outcome::Ok) {
                r->done(true, r->why.isEmpty()
                                      ? QStringLiteral("%1: asked %2 to hand the lease over").arg(where, holder)
                                      : QStringLiteral("%1: asked %2 to hand the lease over to %3: %4")
                                                .arg(where, holder, r->to, r->why));
                return;
            }
            if (written.outcome == LeaseReply::Outcome::Conflict && r->attempts < maxAttempts) {
                attempt(r); // lost to a renewal: ask again on the newer version
                return;
            }
            r->done(false, written.outcome == LeaseReply::Outcome::Conflict
                                   ? QStringLiteral("%1: the lease changed %2 times while asking; "
                                                    "nothing was written")
                                             .arg(where).arg(maxAttempts)
                                   : QStringLiteral("%1: %2").arg(where, written.errorString));
        });
    });
}

} // namespace

void send(LeaseProtocol *protocol, const QString &lease, const QString &to,
          const QString &requestedBy, Done done)
{
    sendToChosen(protocol, lease, [to](const QString &) { return Choice {to, true, QString()}; }, requestedBy,
                 std::move(done));
}

void sendToChosen(LeaseProtocol *protocol, const QString &lease, Choose choose, const QString &requestedBy,
                  Done done)
{
    attempt(std::make_shared<Request>(Request {protocol, lease, requestedBy, std::move(done), std::move(choose), {}, {}}));
}

} // namespace baton::handoverrequest
