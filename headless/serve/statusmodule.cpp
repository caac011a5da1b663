// The status server's HTTP as a module that `baton join` loads only with
// --listen: linked into `baton`, QtHttpServer and QtWebSockets were mapped
// into every `baton join` (docs/benchmarks.md). It serves what it is handed
// and knows nothing of elections.

#include "statusmodule.h"

#include <QHttpServer>
#include <QHttpServerRequest>
#include <QHttpServerResponse>
#include <QUrlQuery>

#include <memory>

using baton::statusmodule::Page;
using baton::statusmodule::Pages;

extern "C" Q_DECL_EXPORT QObject *baton_status_listen(const Pages &pages, const QHostAddress &address,
                                                       quint16 port, quint16 *bound, QObject *parent)
{
    auto server = std::make_unique<QHttpServer>();
    for (auto it = pages.constBegin(); it != pages.constEnd(); ++it) {
        server->route(it.key(), [page = it.value()](const QHttpServerRequest &request) {
            const Page answer = page(request.query());
            return QHttpServerResponse(answer.contentType, answer.body,
                                       QHttpServerResponse::StatusCode(answer.status));
        });
    }
    *bound = server->listen(address, port);
    if (*bound == 0)
        return nullptr;
    server->setParent(parent);
    return server.release();
}
