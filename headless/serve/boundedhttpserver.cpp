#include "boundedhttpserver.h"

#include <algorithm>
#include <limits>
#include <QTcpSocket>
#include <QTimer>
#include <QUrl>
#include <QUrlQuery>
#include <sys/ioctl.h>
#include <sys/socket.h>

namespace baton::statusmodule {

namespace {

QByteArray reasonPhrase(int status)
{
    switch (status) {
    case 200:
        return QByteArrayLiteral("OK");
    case 400:
        return QByteArrayLiteral("Bad Request");
    case 404:
        return QByteArrayLiteral("Not Found");
    case 405:
        return QByteArrayLiteral("Method Not Allowed");
    case 408:
        return QByteArrayLiteral("Request Timeout");
    case 413:
        return QByteArrayLiteral("Content Too Large");
    case 414:
        return QByteArrayLiteral("URI Too Long");
    case 431:
        return QByteArrayLiteral("Request Header Fields Too Large");
    case 503:
        return QByteArrayLiteral("Service Unavailable");
    case 505:
        return QByteArrayLiteral("HTTP Version Not Supported");
    default:
        return QByteArrayLiteral("Status");
    }
}

/*! A request head as read, or the status that refuses it. */
struct Request
{
    int refusal = 0;
    QByteArray refusalText;
    QByteArray method;
    QByteArray target;
    bool http10 = false;
    bool close = false;
};

Request refused(int status, const char *text)
{
    Request request;
    request.refusal = status;
    request.refusalText = text;
    return request;
}

/*! The request line and the header fields, each with its CR LF, without the empty line that ends
 * them. */
Request parseHead(const QByteArray &head)
{
    QList<QByteArray> lines = head.split('\n');
    lines.removeLast(); // after the last line's LF
    for (QByteArray &line : lines) {
        if (!line.endsWith('\r'))
            return refused(400, "each line ends with CR LF");
        line.chop(1);
        if (line.contains('\r') || line.contains('\0'))
            return refused(400, "a line holds a stray CR or NUL");
    }
    if (lines.size() - 1 > BoundedHttpServer::maxHeaderFields)
        return refused(431, "too many header fields");
    const QList<QByteArray> parts = lines.first().split(' ');
    if (parts.size() != 3 || parts.at(0).isEmpty() || parts.at(1).isEmpty())
        return refused(400, "the request line is not METHOD TARGET VERSION");
    Request request;
    request.method = parts.at(0);
    request.target = parts.at(1);
    if (parts.at(2) == "HTTP/1.0")
        request.http10 = true;
    else if (parts.at(2) != "HTTP/1.1")
        return parts.at(2).startsWith("HTTP/")
            ? refused(505, "HTTP/1.1 only")
            : refused(400, "the request line is not METHOD TARGET VERSION");
    bool hasLength = false;
    qint64 length = 0;
    bool transferEncoding = false;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray &line = lines.at(i);
        const qsizetype colon = line.indexOf(':');
        // A name with white space, or a line folded onto the previous one,
        // is how requests get read two ways by two parsers: refused.
        if (colon <= 0 || line.left(colon).contains(' ') || line.left(colon).contains('\t'))
            return refused(400, "a header field is not NAME: VALUE");
        const QByteArray name = line.left(colon).toLower();
        const QByteArray value = line.mid(colon + 1).trimmed();
        if (name == "content-length") {
            const bool digits = !value.isEmpty()
                && std::all_of(value.begin(), value.end(),
                               [](char c) { return c >= '0' && c <= '9'; });
            bool fits = false;
            // A number too large for qint64 is still a body, just a large one.
            const qint64 parsed = digits ? value.toLongLong(&fits) : 0;
            const qint64 given = fits ? parsed : std::numeric_limits<qint64>::max();
            if (!digits || (hasLength && given != length))
                return refused(400, "Content-Length is not one number");
            hasLength = true;
            length = given;
        } else if (name == "transfer-encoding") {
            transferEncoding = true;
        } else if (name == "connection") {
            for (const QByteArray &token : value.split(','))
                if (token.trimmed().toLower() == "close")
                    request.close = true;
        }
    }
    if (transferEncoding || length > 0)
        return refused(413, "these pages take no request body");
    return request;
}

} // namespace

/*!
 * One client connection, from accept to close; deletes itself when done.
 * It holds at most one request head and one answer at a time: while an
 * answer is being written it reads nothing, so a client that sends request
 * after request without reading the answers waits on its own socket.
 */
class HttpConnection : public QObject
{
public:
    /*! With busy, the connection is refused at once (503): the server has no place for it. */
    HttpConnection(QTcpSocket *socket, BoundedHttpServer *server, bool busy)
        : QObject(server)
        , m_socket(socket)
        , m_server(server)
    {
        m_socket->setParent(this);
        m_socket->setReadBufferSize(BoundedHttpServer::maxHeadBytes);
        m_timer.setSingleShot(true);
        m_firstByte.setSingleShot(true);
        connect(&m_timer, &QTimer::timeout, this, &HttpConnection::timedOut);
        connect(&m_firstByte, &QTimer::timeout, this, &HttpConnection::stayedSilent);
        connect(m_socket, &QTcpSocket::readyRead, this, &HttpConnection::readRequest);
        connect(m_socket, &QTcpSocket::bytesWritten, this, &HttpConnection::written);
        connect(m_socket, &QTcpSocket::disconnected, this, &QObject::deleteLater);
        if (m_socket->state() != QAbstractSocket::ConnectedState) {
            deleteLater();
            return;
        }
        if (busy) {
            refuse(503, "too many connections");
            return;
        }
        m_timer.start(BoundedHttpServer::requestTimeoutMs);
        m_firstByte.start(BoundedHttpServer::firstByteTimeoutMs);
        readRequest();
    }

    /*! Whether it waits for a request of which no byte has come: it may give its place up. */
    bool idle() const
    {
        if (m_state != State::Reading || !m_buffer.isEmpty() || m_socket->bytesAvailable() > 0)
            return false;
        // Bytes the kernel holds that the event loop has not read yet are a request begun.
        int pending = 0;
        return ::ioctl(int(m_socket->socketDescriptor()), FIONREAD, &pending) == 0 && pending == 0;
    }

    /*! Closed for a newer connection, or as the oldest of too many closing. */
    void evict()
    {
        m_server->forget(this);
        m_socket->abort();
        deleteLater();
    }

private:
    enum class State { Reading, Answering, Closing };

    void readRequest()
    {
        if (m_state == State::Closing) {
            // Read and dropped, so that the close is seen and is not a reset.
            m_socket->readAll();
            return;
        }
        if (m_state != State::Reading)
            return;
        const qsizetype room = BoundedHttpServer::maxHeadBytes + 1 - m_buffer.size();
        if (room > 0)
            m_buffer += m_socket->read(std::min<qint64>(room, m_socket->bytesAvailable())); // read(n) allocates n
        if (!m_buffer.isEmpty())
            m_firstByte.stop();
        const qsizetype end = m_buffer.indexOf("\r\n\r\n");
        if (end < 0 || end + 2 > BoundedHttpServer::maxHeadBytes) {
            if (m_buffer.size() > BoundedHttpServer::maxHeadBytes)
                refuse(m_buffer.indexOf('\n') < 0 ? 414 : 431,
                       m_buffer.indexOf('\n') < 0 ? "the request line is too long"
                                                  : "the request head is too large");
            return;
        }
        const QByteArray head = m_buffer.left(end + 2);
        m_buffer.remove(0, end + 4);
        const Request request = parseHead(head);
        if (request.refusal != 0) {
            refuse(request.refusal, request.refusalText);
            return;
        }
        const bool keepAlive = !request.http10 && !request.close;
        const bool headOnly = request.method == "HEAD";
        if (request.method != "GET" && !headOnly) {
            answer(405, "text/plain; charset=utf-8", "GET or HEAD only\n", false,
                   "Allow: GET, HEAD\r\n");
            return;
        }
        if (!request.target.startsWith('/')) {
            refuse(400, "the target is not a path");
            return;
        }
        const qsizetype question = request.target.indexOf('?');
        const QString path = QUrl::fromPercentEncoding(
            question < 0 ? request.target : request.target.left(question));
        const auto page = m_server->pages().constFind(path);
        if (page == m_server->pages().constEnd()) {
            answer(404, "text/plain; charset=utf-8", "not found\n", keepAlive, {}, headOnly);
            return;
        }
        const QUrlQuery query(question < 0 ? QString()
                                           : QString::fromUtf8(request.target.mid(question + 1)));
        const Page made = (*page)(query);
        answer(made.status, made.contentType, made.body, keepAlive, {}, headOnly);
    }

    void refuse(int status, const QByteArray &text)
    {
        answer(status, "text/plain; charset=utf-8", text + '\n', false, {});
    }

    void answer(int status, const QByteArray &contentType, const QByteArray &body, bool keepAlive,
                const QByteArray &extraHeaders, bool headOnly = false)
    {
        QByteArray out
            = "HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status) + "\r\n";
        out += "Content-Type: " + contentType + "\r\n";
        out += "Content-Length: " + QByteArray::number(body.size()) + "\r\n";
        if (!keepAlive)
            out += "Connection: close\r\n";
        out += extraHeaders + "\r\n";
        if (!headOnly)
            out += body;
        m_state = State::Answering;
        m_closeAfter = !keepAlive;
        // The same bound for the answer to be read as for the request to come.
        m_timer.start(BoundedHttpServer::requestTimeoutMs);
        m_socket->write(out);
    }

    void written()
    {
        if (m_state != State::Answering || m_socket->bytesToWrite() > 0)
            return;
        if (m_closeAfter) {
            close();
            return;
        }
        m_state = State::Reading;
        m_timer.start(BoundedHttpServer::requestTimeoutMs);
        m_server->waitsAgain(this);
        readRequest();
    }

    /*!
     * Half-closes: the client reads the answer and then the end. Closing
     * the whole socket with request bytes unread would reset the
     * connection, and a reset can take the answer with it.
     */
    void close()
    {
        m_state = State::Closing;
        m_firstByte.stop();
        ::shutdown(int(m_socket->socketDescriptor()), SHUT_WR);
        m_timer.start(BoundedHttpServer::closeGraceMs);
        m_socket->readAll();
        m_server->closing(this);
    }

    void stayedSilent()
    {
        if (idle()) {
            m_socket->abort();
            deleteLater();
        }
    }

    void timedOut()
    {
        if (m_state == State::Reading && (!m_buffer.isEmpty() || m_socket->bytesAvailable() > 0)) {
            refuse(408, "the request did not arrive in time");
            return;
        }
        m_socket->abort();
        deleteLater();
    }

    QTcpSocket *m_socket;
    BoundedHttpServer *m_server;
    QTimer m_timer;
    QTimer m_firstByte;
    QByteArray m_buffer;
    State m_state = State::Reading;
    bool m_closeAfter = false;
};

BoundedHttpServer::BoundedHttpServer(Pages pages, QObject *parent)
    : QTcpServer(parent)
    , m_pages(std::move(pages))
{
    connect(this, &QTcpServer::newConnection, this, &BoundedHttpServer::acceptPending);
}

void BoundedHttpServer::acceptPending()
{
    while (QTcpSocket *socket = nextPendingConnection()) {
        if (m_open.size() >= maxConnections) {
            const auto waiting = std::find_if(m_open.cbegin(), m_open.cend(),
                                              [](const HttpConnection *c) { return c->idle(); });
            if (waiting != m_open.cend())
                (*waiting)->evict();
        }
        const bool busy = m_open.size() >= maxConnections;
        auto *connection = new HttpConnection(socket, this, busy);
        connect(connection, &QObject::destroyed, this, [this, connection] { forget(connection); });
        if (!busy)
            m_open.append(connection);
    }
}

void BoundedHttpServer::waitsAgain(HttpConnection *connection)
{
    if (m_open.removeOne(connection))
        m_open.append(connection);
}

void BoundedHttpServer::closing(HttpConnection *connection)
{
    m_open.removeOne(connection);
    m_closing.append(connection);
    if (m_closing.size() > maxConnections)
        m_closing.first()->evict();
}

void BoundedHttpServer::forget(HttpConnection *connection)
{
    m_open.removeOne(connection);
    m_closing.removeOne(connection);
}

} // namespace baton::statusmodule
