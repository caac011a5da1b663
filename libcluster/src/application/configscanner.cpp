#include "configscanner.h"

#include "jsonutil.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>

namespace baton {

namespace {

/*! Just enough of a JSON reader to walk a document that is known to be valid. */
class Walker
{
public:
    explicit Walker(const QByteArray &text)
        : m_text(text)
    {
    }

    void skipSpace()
    {
        while (m_pos < m_text.size() && QByteArrayView(" \t\r\n").contains(m_text.at(m_pos)))
            ++m_pos;
    }
    /*! True while the current object or array goes on: never past the end of the text. */
    bool before(char close)
    {
        skipSpace();
        return m_pos < m_text.size() && m_text.at(m_pos) != close;
    }
    bool peek(char c)
    {
        skipSpace();
        return m_pos < m_text.size() && m_text.at(m_pos) == c;
    }
    void expect(char c)
    {
        skipSpace();
        if (m_pos < m_text.size() && m_text.at(m_pos) == c)
            ++m_pos;
    }
    /*! Reads a string token and returns its raw text, decoded by QJsonDocument. */
    QString readString()
    {
        skipSpace();
        const qsizetype start = m_pos;
        ++m_pos; // opening quote
        while (m_pos < m_text.size() && m_text.at(m_pos) != '"') {
            if (m_text.at(m_pos) == '\\')
                ++m_pos;
            ++m_pos;
        }
        ++m_pos; // closing quote
        const QByteArray wrapped = '[' + m_text.mid(start, m_pos - start) + ']';
        return QJsonDocument::fromJson(wrapped).array().at(0).toString();
    }
    void skipValue()
    {
        skipSpace();
        if (m_pos >= m_text.size())
            return;
        const char c = m_text.at(m_pos);
        if (c == '"') {
            readString();
        } else if (c == '{' || c == '[') {
            int depth = 0;
            do {
                const char d = m_text.at(m_pos);
                if (d == '"') {
                    readString();
                    continue;
                }
                if (d == '{' || d == '[')
                    ++depth;
                else if (d == '}' || d == ']')
                    --depth;
                ++m_pos;
            } while (depth > 0 && m_pos < m_text.size());
        } else {
            while (m_pos < m_text.size() && !QByteArrayView(",}] \t\r\n").contains(m_text.at(m_pos)))
                ++m_pos;
        }
    }
    qsizetype position()
    {
        skipSpace();
        return m_pos;
    }

private:
    const QByteArray &m_text;
    qsizetype m_pos = 0;
};

} // namespace

QList<ConfiguredService> servicesInFileOrder(const QByteArray &validJson)
{
    QList<ConfiguredService> found;
    Walker walker(validJson);
    if (!walker.peek('{'))
        return found;
    walker.expect('{');
    while (walker.before('}')) {
        const QString key = walker.readString();
        walker.expect(':');
        if (key != QLatin1String("services") || !walker.peek('{')) {
            walker.skipValue();
        } else {
            found.clear(); // with a repeated key, the last one counts, as for QJsonDocument
            walker.expect('{');
            while (walker.before('}')) {
                ConfiguredService service;
                jsonutil::lineAndColumn(validJson, walker.position(), &service.line,
                                        &service.column);
                service.name = walker.readString();
                walker.expect(':');
                walker.skipValue();
                const auto earlier = std::find_if(found.cbegin(), found.cend(), [&](const ConfiguredService &s) {
                    return s.name == service.name;
                });
                if (earlier != found.cend()) {
                    service.earlierLine = earlier->line;
                    service.earlierColumn = earlier->column;
                }
                found.append(service);
                if (walker.peek(','))
                    walker.expect(',');
            }
            walker.expect('}');
        }
        if (walker.peek(','))
            walker.expect(',');
    }
    return found;
}

} // namespace baton
