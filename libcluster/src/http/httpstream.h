#pragma once

#include "httperror.h"
#include "jsonstreamsplitter.h"

#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QUrl>

class QNetworkReply;

namespace baton {

/*!
 * One streaming HTTP answer read as it arrives, cut into JSON objects
 * (HttpClient::postStream). message() comes once per object; finished()
 * once at the end, with an error unless the server ended the stream
 * cleanly. Neither comes after abort() or destruction.
 */
class HttpStream : public QObject
{
    Q_OBJECT
public:
    HttpStream(QNetworkReply *reply, qint64 maxMessageBytes, QObject *parent);
    ~HttpStream() override;

    /*! Closes the connection; nothing more is emitted. */
    void abort();
    QUrl url() const { return m_url; }

Q_SIGNALS:
    void message(const QJsonObject &object);
    void finished(const baton::HttpError &error);

private:
    void readAvailable();
    void fail(HttpError::Kind kind, const QString &why);
    void onFinished();

    QPointer<QNetworkReply> m_reply;
    QUrl m_url;
    JsonStreamSplitter m_splitter;
    qint64 m_maxMessageBytes;
    QByteArray m_errorBody;
    HttpError::Kind m_cause = HttpError::Kind::None;
    QString m_causeMessage;
    bool m_done = false;
};

} // namespace baton
