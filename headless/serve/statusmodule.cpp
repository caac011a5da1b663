// The status server's HTTP as a module that `baton join` loads only with
// --listen: it serves what it is handed and knows nothing of elections.
// Its HTTP is its own (boundedhttpserver.h says why not Qt's QHttpServer).

#include "statusmodule.h"

#include "boundedhttpserver.h"

#include <memory>
#include <QHostAddress>

using baton::statusmodule::BoundedHttpServer;
using baton::statusmodule::Pages;

extern "C" Q_DECL_EXPORT QObject *baton_status_listen(const Pages &pages,
                                                      const QHostAddress &address, quint16 port,
                                                      quint16 *bound, QObject *parent)
{
    auto server = std::make_unique<BoundedHttpServer>(pages);
    if (!server->listen(address, port)) {
        *bound = 0;
        return nullptr;
    }
    *bound = server->serverPort();
    server->setParent(parent);
    return server.release();
}
