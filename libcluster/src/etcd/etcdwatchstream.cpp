#include "etcdwatchstream.h"

#include "etcdcodec.h"
#include "httpstream.h"
#include "logging.h"

#include <QJsonArray>

#include <algorithm>

namespace baton {

namespace {

constexpr int kFirstBackoffMs = 100;
constexpr int kMaxBackoffMs = 2000;

} // namespace

EtcdWatchStream::EtcdWatchStream(EtcdClient *client, const QByteArray &keyPrefix,
                                 const QString &prefix, QObject *parent, bool holdRequests)
    : QObject(parent)
    , m_client(client)
    , m_keyPrefix(keyPrefix)
    , m_prefix(prefix)
{
    const QByteArray full = keyPrefix + prefix.toUtf8();
    m_rangeKey = etcdcodec::prefixRangeStart(full);
    m_rangeEnd = etcdcodec::prefixRangeEnd(full);
    m_createdTimer.setSingleShot(true);
    m_reopenTimer.setSingleShot(true);
    connect(&m_createdTimer, &QTimer::timeout, this, [this] {
        if (m_client)
            m_client->streamUnconfirmed(m_origin);
        broken(QStringLiteral("etcd did not confirm the watch within %1 ms")
                       .arg(m_createdTimer.interval()),
               true);
    });
    connect(&m_reopenTimer, &QTimer::timeout, this, &EtcdWatchStream::open);
    m_widenTimer.setSingleShot(true);
    connect(&m_widenTimer, &QTimer::timeout, this, [this] {
        if (!m_stream)
            return; // not open yet, or broken: the next open() uses the new range
        qCDebug(lcEtcd).noquote() << "watch of" << m_prefix << "widened; resuming from revision"
                                  << m_nextRevision;
        closeStream();
        open();
    });
    if (holdRequests)
        client->holdRequests(this);
    else
        m_everStarted = true;
    // Opened from the event loop: the caller connects its signals first.
    QMetaObject::invokeMethod(this, &EtcdWatchStream::open, Qt::QueuedConnection);
}

EtcdWatchStream::~EtcdWatchStream()
{
    if (m_client)
        m_client->releaseRequests(this);
    delete m_stream;
}

void EtcdWatchStream::include(const QString &prefix, qint64 floor)
{
    const QByteArray full = m_keyPrefix + prefix.toUtf8();
    const QByteArray key = etcdcodec::prefixRangeStart(full);
    const QByteArray end = etcdcodec::prefixRangeEnd(full);
    bool wider = false;
    if (key < m_rangeKey) {
        m_rangeKey = key;
        wider = true;
    }
    // "\0" is the end of the key space: nothing is beyond it.
    if (m_rangeEnd != QByteArray(1, '\0') && (end == QByteArray(1, '\0') || end > m_rangeEnd)) {
        m_rangeEnd = end;
        wider = true;
    }
    if (!wider && m_stream)
        return; // the stream has covered those keys since before the floor
    // Kept apart until the next stream opens: the old stream goes on moving
    // m_nextRevision past writes to the new keys until then.
    if (floor > 0)
        m_replayFrom = m_replayFrom > 0 ? std::min(m_replayFrom, floor + 1) : floor + 1;
    if (wider)
        m_widenTimer.start(0);
}

void EtcdWatchStream::started()
{
    if (m_everStarted)
        return;
    m_everStarted = true;
    if (m_client)
        m_client->releaseRequests(this);
}

void EtcdWatchStream::open()
{
    if (!m_client || m_stream || m_opening)
        return;
    m_opening = true;
    // The body is made once the token is there: a widening may come meanwhile.
    auto body = [this] {
        if (m_replayFrom > 0) {
            m_nextRevision = m_nextRevision > 0 ? std::min(m_nextRevision, m_replayFrom)
                                                : m_replayFrom;
            m_replayFrom = 0;
        }
        QJsonObject create { { QStringLiteral("key"), etcdcodec::encodeBytes(m_rangeKey) },
                             { QStringLiteral("range_end"), etcdcodec::encodeBytes(m_rangeEnd) } };
        if (m_nextRevision > 0)
            create.insert(QStringLiteral("start_revision"), QString::number(m_nextRevision));
        return QJsonObject { { QStringLiteral("create_request"), create } };
    };
    m_client->openStream(QStringLiteral("/v3/watch"), body, this,
                         [this](HttpStream *stream, const EtcdClient::StreamOrigin &origin,
                                const EtcdClient::Failure &failed) {
                             onOpened(stream, origin, failed);
                         });
}

void EtcdWatchStream::onOpened(HttpStream *stream, const EtcdClient::StreamOrigin &origin,
                               const EtcdClient::Failure &failed)
{
    m_opening = false;
    if (failed) {
        broken(failed->errorString, false);
        return;
    }
    m_stream = stream;
    m_origin = origin;
    connect(m_stream, &HttpStream::message, this, &EtcdWatchStream::onMessage);
    connect(m_stream, &HttpStream::finished, this, &EtcdWatchStream::onBroken);
    m_createdTimer.start(m_client->timeoutMs());
}

void EtcdWatchStream::onMessage(const QJsonObject &message)
{
    if (!m_client)
        return;
    if (message.contains(QLatin1String("error"))) {
        const QJsonValue error = message.value(QLatin1String("error"));
        const QString text = error.isObject()
                ? error.toObject().value(QLatin1String("message")).toString()
                : error.toString();
        m_client->streamRefused(m_origin, text);
        broken(QStringLiteral("etcd ended the watch: %1").arg(text), true);
        return;
    }
    const QJsonValue resultValue = message.value(QLatin1String("result"));
    if (!resultValue.isObject()) {
        // R1: reported, and the stream is opened again rather than trusted.
        broken(QStringLiteral("a watch message has no \"result\" object"), false);
        return;
    }
    const QJsonObject result = resultValue.toObject();
    const QJsonObject header = result.value(QLatin1String("header")).toObject();
    bool created = false;
    bool canceled = false;
    if (!etcdcodec::optionalBool(result.value(QLatin1String("created")), &created)
        || !etcdcodec::optionalBool(result.value(QLatin1String("canceled")), &canceled)) {
        broken(QStringLiteral("a watch message has a \"created\" or \"canceled\" that is not a "
                              "boolean"),
               false);
        return;
    }
    if (canceled) {
        qint64 compactRevision = 0;
        if (etcdcodec::revision(result.value(QLatin1String("compact_revision")), &compactRevision, 0)
            && compactRevision > 0) {
            // The revisions we wanted are gone: say so, and go on from the
            // oldest one etcd still has, so nothing after it is lost.
            qCInfo(lcEtcd).noquote()
                    << m_client->description() << "watch of" << m_prefix
                    << "resumes at compaction revision" << compactRevision << "instead of"
                    << m_nextRevision << "(history compacted)";
            m_nextRevision = compactRevision;
            m_gaplessFrom = compactRevision;
            m_failures = 0;
            closeStream();
            Q_EMIT resynchronise();
            open();
            return;
        }
        broken(QStringLiteral("etcd canceled the watch: %1")
                       .arg(result.value(QLatin1String("cancel_reason")).toString()),
               false);
        return;
    }
    if (created) {
        m_createdTimer.stop();
        m_failures = 0;
        qint64 revision = 0;
        const bool dated = etcdcodec::revision(header.value(QLatin1String("revision")), &revision, 0)
                && revision > 0;
        if (m_nextRevision == 0) {
            if (!dated) {
                broken(QStringLiteral("the watch's first message has no header.revision"), false);
                return;
            }
            m_nextRevision = revision + 1;
            m_gaplessFrom = m_nextRevision; // what came before is not this stream's
        }
        // Undated, it vouches for no copy: those are listed from etcd.
        m_confirmedAt = dated ? revision : 0;
        qCDebug(lcEtcd).noquote() << m_client->description() << "watching" << m_prefix
                                  << "from revision" << m_nextRevision;
        started();
        Q_EMIT streamCreated();
    }
    const QJsonValue eventsValue = result.value(QLatin1String("events"));
    if (!eventsValue.isUndefined() && !eventsValue.isArray()) {
        broken(QStringLiteral("a watch message has \"events\" that is not a list"), false);
        return;
    }
    deliverEvents(eventsValue.toArray());
}

void EtcdWatchStream::deliverEvents(const QJsonArray &events)
{
    QPointer<EtcdWatchStream> self(this);
    for (const QJsonValue &eventValue : events) {
        const QJsonObject event = eventValue.toObject();
        const QJsonValue kv = event.value(QLatin1String("kv"));
        qint64 modRevision = 0;
        if (etcdcodec::revision(kv.toObject().value(QLatin1String("mod_revision")), &modRevision)) {
            m_nextRevision = std::max(m_nextRevision, modRevision + 1);
            // A deletion seen here first must still bound a re-created
            // record's fencing tokens (EtcdStore::versionFloor).
            m_client->noteRevision(modRevision);
        }
        // proto3 leaves the default type, PUT, out.
        const QString type = event.value(QLatin1String("type")).toString(QStringLiteral("PUT"));
        QString why;
        if (type == QLatin1String("DELETE")) {
            QString key;
            if (etcdcodec::decodeKey(kv, m_keyPrefix, &key, &why))
                Q_EMIT entryRemoved(key, modRevision);
            else
                qCWarning(lcEtcd).noquote() << m_client->description() << "ignores a watch event:" << why;
        } else {
            StoreEntry entry;
            if (etcdcodec::decodeKv(kv, m_keyPrefix, &entry, &why))
                Q_EMIT entryChanged(entry, modRevision);
            else
                qCWarning(lcEtcd).noquote() << m_client->description() << "ignores a watch event:" << why;
        }
        if (!self || !m_client)
            return;
    }
}

void EtcdWatchStream::onBroken(const HttpError &error)
{
    if (!m_client)
        return;
    if (error.kind == HttpError::Kind::HttpStatus)
        m_client->streamRefused(m_origin, error.serverMessage);
    broken(m_client->explainFailure(error), error.isTransient());
}

void EtcdWatchStream::closeStream()
{
    m_confirmedAt = 0;
    delete m_stream;
    m_stream = nullptr;
    m_createdTimer.stop();
}

void EtcdWatchStream::broken(const QString &why, bool endpointAtFault)
{
    m_createdTimer.stop();
    m_confirmedAt = 0;
    if (m_stream) {
        // Called from the stream's own signals: it goes on a later turn.
        m_stream->deleteLater();
        m_stream->disconnect(this);
        m_stream->abort();
        m_stream = nullptr;
    }
    if (!m_client)
        return;
    if (endpointAtFault)
        m_client->streamFailed(m_origin, why);
    const QString message = QStringLiteral("%1: watch of \"%2\" broken (%3); resuming from "
                                           "revision %4")
                                    .arg(m_client->description(), m_prefix, m_client->redact(why))
                                    .arg(m_nextRevision);
    if (m_failures == 0)
        qCInfo(lcEtcd).noquote() << message;
    else
        qCDebug(lcEtcd).noquote() << message;
    // Requests waiting for this stream to start wait no more.
    started();
    scheduleReopen();
}

void EtcdWatchStream::scheduleReopen()
{
    const int backoff = std::min(kMaxBackoffMs, kFirstBackoffMs << std::min(m_failures, 5));
    ++m_failures;
    m_reopenTimer.start(m_failures == 1 ? 0 : backoff);
}

} // namespace baton
