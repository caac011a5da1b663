#pragma once

#include "statusmodule.h"

#include <QTcpServer>

namespace baton::statusmodule {

class HttpConnection;

/*!
 * The HTTP/1.1 of `--listen`, strict and bounded, for a handful of small GET
 * pages. Whatever a client sends, it costs at most a fixed amount of memory
 * and time, so that it cannot reach the election that shares this event
 * loop (R6): Qt 6.4's QHttpServer reads a whole request, body included,
 * before it routes it, so a large POST grew `baton` by its size.
 *
 * - The request line and headers together: at most maxHeadBytes (else 431,
 *   or 414 for a request line alone that long), at most maxHeaderFields
 *   header fields (431). Qt's own read buffer is capped too, so bytes the
 *   server has not yet looked at stay in the kernel.
 * - No body: a Content-Length above 0 or any Transfer-Encoding is 413; the
 *   body is never read.
 * - At most maxConnections at once. One more takes the place of the open
 *   connection that has waited longest without a byte of a request (a new
 *   one, or one kept open between requests), which is closed; only when
 *   every open one is in the middle of a request or its answer is the new
 *   one answered 503 and closed. So idle connections, however many a client
 *   keeps opening, never lock out the health probes (R6). Connections that
 *   are closing do not count; at most maxConnections of them linger, the
 *   oldest is reset past that.
 * - A new connection must send its first byte within firstByteTimeoutMs,
 *   else it is closed quietly.
 * - A request must arrive whole within requestTimeoutMs of the connection
 *   (or of the end of the previous answer), however slowly its bytes come:
 *   then 408 and closed, or closed quietly when nothing was sent; an answer
 *   that the client does not read within the same time closes it too.
 *
 * GET and HEAD are answered (others 405), HTTP/1.1 connections are kept
 * alive unless the client says `Connection: close`, HTTP/1.0 ones are not.
 * An answer that refuses a request closes the connection: first the sending
 * half, so that the client reads the answer before the connection goes.
 */
class BoundedHttpServer : public QTcpServer
{
    Q_OBJECT
public:
    static constexpr qsizetype maxHeadBytes = 8 * 1024;
    static constexpr int maxHeaderFields = 64;
    static constexpr int maxConnections = 16;
    static constexpr int requestTimeoutMs = 10'000;
    /*! How long a new connection may stay silent: a client that opens connections and sends
     * nothing holds each only this long. */
    static constexpr int firstByteTimeoutMs = 2'000;
    /*! How long a refused client has to read the answer before the connection is reset. */
    static constexpr int closeGraceMs = 2'000;

    explicit BoundedHttpServer(Pages pages, QObject *parent = nullptr);

    const Pages &pages() const { return m_pages; }

private:
    friend class HttpConnection;

    void acceptPending();
    /*! Moves the connection to the back of the line of those that may give up their place. */
    void waitsAgain(HttpConnection *connection);
    /*! The connection's place is free; it lingers a little among those closing. */
    void closing(HttpConnection *connection);
    void forget(HttpConnection *connection);

    Pages m_pages;
    /*! The connections that count toward maxConnections, the longest waiting first. */
    QList<HttpConnection *> m_open;
    QList<HttpConnection *> m_closing;
};

} // namespace baton::statusmodule
