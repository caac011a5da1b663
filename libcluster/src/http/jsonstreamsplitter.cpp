#include "jsonstreamsplitter.h"

#include <QString>

#include <utility>

namespace baton {

JsonStreamSplitter::JsonStreamSplitter(qsizetype maxObjectBytes)
    : m_maxObjectBytes(maxObjectBytes)
{
}

bool JsonStreamSplitter::feed(const QByteArray &data, QList<QByteArray> *objects)
{
    if (m_failed)
        return false;
    // Whole runs are copied, never byte by byte: a watch stream passes every
    // renewal of every election through here.
    const char *bytes = data.constData();
    const qsizetype size = data.size();
    qsizetype objectStart = m_depth > 0 ? 0 : -1;
    for (qsizetype i = 0; i < size; ++i) {
        const char c = bytes[i];
        if (m_depth == 0) {
            if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
                continue;
            if (c != '{') {
                m_failed = true;
                m_error = QStringLiteral("the stream holds '%1' where a JSON object should start")
                                  .arg(QString::fromLatin1(QByteArray(1, c).toPercentEncoding()));
                return false;
            }
            objectStart = i;
        }
        if (m_current.size() + i + 1 - objectStart > m_maxObjectBytes) {
            // pendingBytes() then tells the caller why the stream stopped.
            m_current.append(bytes + objectStart, i + 1 - objectStart);
            m_failed = true;
            m_error = QStringLiteral("one message of the stream is larger than %1 bytes")
                              .arg(m_maxObjectBytes);
            return false;
        }
        if (m_inString) {
            if (m_escaped)
                m_escaped = false;
            else if (c == '\\')
                m_escaped = true;
            else if (c == '"')
                m_inString = false;
            continue;
        }
        if (c == '"') {
            m_inString = true;
        } else if (c == '{' || c == '[') {
            ++m_depth;
        } else if ((c == '}' || c == ']') && --m_depth == 0) {
            m_current.append(bytes + objectStart, i + 1 - objectStart);
            objects->append(std::exchange(m_current, QByteArray()));
            objectStart = -1;
        }
    }
    if (objectStart >= 0)
        m_current.append(bytes + objectStart, size - objectStart);
    return true;
}

} // namespace baton
