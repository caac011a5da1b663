#include "httpstream.h"

#include "boundedread.h"
#include "httpclient.h"

#include <QJsonDocument>
#include <QNetworkReply>

namespace baton {

HttpStream::HttpStream(QNetworkReply *reply, qint64 maxMessageBytes, QObject *parent)
    : QObject(parent)
    , m_reply(reply)
    , m_url(reply->request().url())
    , m_splitter(maxMessageBytes)
    , m_maxMessageBytes(maxMessageBytes)
{
    connect(reply, &QNetworkReply::readyRead, this, &HttpStream::readAvailable);
    connect(reply, &QNetworkReply::finished, this, &HttpStream::onFinished);
    connect(reply, &QNetworkReply::redirected, this, [this](const QUrl &to) {
        if (HttpClient::isSafeRedirect(m_url, to)) {
            Q_EMIT m_reply->redirectAllowed();
            return;
        }
        fail(HttpError::Kind::Redirect,
             QStringLiteral("refused a redirect to %1 (another host, or https to http)")
                     .arg(HttpClient::describeUrl(m_url.resolved(to))));
    });
}

HttpStream::~HttpStream()
{
    abort();
}

void HttpStream::abort()
{
    m_done = true;
    if (m_reply) {
        QNetworkReply *reply = m_reply;
        m_reply = nullptr;
        reply->disconnect(this);
        if (reply->isRunning())
            reply->abort();
        reply->deleteLater();
    }
}

void HttpStream::fail(HttpError::Kind kind, const QString &why)
{
    if (m_cause == HttpError::Kind::None) {
        m_cause = kind;
        m_causeMessage = why;
    }
    if (m_reply && m_reply->isRunning())
        m_reply->abort(); // finished() follows, and reports the cause
}

void HttpStream::readAvailable()
{
    if (!m_reply || m_done)
        return;
    const int status = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status < 200 || status > 299) {
        // An error answer is one JSON body, read whole for its message.
        m_errorBody += readUpTo(m_reply, m_maxMessageBytes + 1 - m_errorBody.size());
        if (m_errorBody.size() > m_maxMessageBytes) {
            fail(HttpError::Kind::TooLarge, QStringLiteral("the error reply is larger than %1 "
                                                           "bytes")
                                                    .arg(m_maxMessageBytes));
        }
        return;
    }
    QList<QByteArray> objects;
    const bool fine = m_splitter.feed(m_reply->readAll(), &objects);
    // A receiver may abort or destroy the stream while it hears a message.
    QPointer<HttpStream> self(this);
    for (const QByteArray &object : std::as_const(objects)) {
        QJsonParseError parseError;
        const QJsonDocument json = QJsonDocument::fromJson(object, &parseError);
        if (parseError.error != QJsonParseError::NoError || !json.isObject()) {
            fail(HttpError::Kind::NotJson,
                 QStringLiteral("a message of the stream is not a JSON object (%1)")
                         .arg(parseError.errorString()));
            return;
        }
        Q_EMIT message(json.object());
        if (!self || m_done)
            return;
    }
    if (!fine) {
        const bool tooLarge = m_splitter.pendingBytes() > m_maxMessageBytes;
        fail(tooLarge ? HttpError::Kind::TooLarge : HttpError::Kind::NotJson,
             m_splitter.errorString());
    }
}

void HttpStream::onFinished()
{
    if (!m_reply || m_done)
        return;
    readAvailable();
    if (!m_reply || m_done)
        return;
    QNetworkReply *reply = m_reply;
    m_reply = nullptr;
    m_done = true;
    reply->deleteLater();
    HttpError error = HttpClient::mapError(reply, m_errorBody, m_cause, m_causeMessage);
    if (error.ok()) {
        // The server ended the stream: for a watch, as much a break as a reset.
        error.kind = HttpError::Kind::Connection;
        error.message = QStringLiteral("%1 %2: the server ended the stream")
                                .arg(HttpClient::methodOf(reply), HttpClient::describeUrl(m_url));
    }
    Q_EMIT finished(error);
}

} // namespace baton
