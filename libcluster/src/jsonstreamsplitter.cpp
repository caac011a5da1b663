#include "jsonstreamsplitter.h"

#include <QString>

namespace baton {

JsonStreamSplitter::JsonStreamSplitter(qsizetype maxObjectBytes)
    : m_maxObjectBytes(maxObjectBytes)
{
}

bool JsonStreamSplitter::feed(const QByteArray &data, QList<QByteArray> *objects)
{
    if (m_failed)
        return false;
    for (const char c : data) {
        if (m_depth == 0) {
            if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
                continue;
            if (c != '{') {
                m_failed = true;
                m_error = QStringLiteral("the stream holds '%1' where a JSON object should start")
                                  .arg(QString::fromLatin1(QByteArray(1, c).toPercentEncoding()));
                return false;
            }
        }
        m_current.append(c);
        if (m_current.size() > m_maxObjectBytes) {
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
        } else if (c == '}' || c == ']') {
            if (--m_depth == 0) {
                objects->append(m_current);
                m_current.clear();
            }
        }
    }
    return true;
}

} // namespace baton
