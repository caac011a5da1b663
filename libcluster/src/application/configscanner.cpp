#include "configscanner.h"

#include "jsonutil.h"
#include "parameters.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

#include <algorithm>
#include <utility>

namespace baton {

namespace {

/*! Just enough of a JSON reader to walk a document that is known to be valid. */
class Walker
{
public:
    explicit Walker(const QByteArray &text)
        : m_text(text)
        , m_pos(jsonutil::startsWithByteOrderMark(text) ? 3 : 0)
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
    /*!
     * Where the next token is, as line and column. The walk only goes
     * forward, so the count goes on from the last place asked for: a file
     * of thousands of services is read in one pass, not one per key.
     */
    ConfiguredService::Position place()
    {
        const qsizetype to = position();
        int line = 0;
        int column = 0;
        jsonutil::lineAndColumn(m_text.mid(m_countedTo, to - m_countedTo), to - m_countedTo, &line,
                                &column);
        m_counted.column = line > 1 ? column : m_counted.column + column - 1;
        m_counted.line += line - 1;
        m_countedTo = to;
        return m_counted;
    }

private:
    const QByteArray &m_text;
    qsizetype m_pos;
    /*! The place of m_countedTo (after a byte-order mark, which is no column). */
    qsizetype m_countedTo = m_pos;
    ConfiguredService::Position m_counted {1, 1};
};

/*!
 * Records where each key of the object at the walker is, blocks' keys by
 * their dotted names, and each key the object gives twice.
 */
void scanParameters(Walker &walker, const QString &prefix, ConfiguredService *service)
{
    QSet<QString> inThisObject;
    walker.expect('{');
    while (walker.before('}')) {
        const ConfiguredService::Position position = walker.place();
        const QString key = prefix + walker.readString();
        if (inThisObject.contains(key))
            service->repeatedParameters.append({key, position, service->parameters.value(key)});
        inThisObject.insert(key);
        if (!service->parameters.contains(key))
            service->parameters.insert(key, position);
        walker.expect(':');
        if (walker.peek('{'))
            scanParameters(walker, key + QLatin1Char('.'), service);
        else
            walker.skipValue();
        if (walker.peek(','))
            walker.expect(',');
    }
    walker.expect('}');
}

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
                const ConfiguredService::Position at = walker.place();
                service.line = at.line;
                service.column = at.column;
                service.name = walker.readString();
                walker.expect(':');
                if (walker.peek('{'))
                    scanParameters(walker, QString(), &service);
                else
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

QString locateRefusal(const QString &sourceName, const ConfiguredService &service,
                      const QString &error)
{
    struct Located
    {
        ConfiguredService::Position at;
        QString line;
    };
    QList<Located> lines;
    for (const QString &line : error.split(QLatin1Char('\n'))) {
        const auto position = service.parameters.constFind(parameters::refusedParameter(line));
        const bool atParameter = position != service.parameters.cend();
        const ConfiguredService::Position at = atParameter
                ? *position
                : ConfiguredService::Position {service.line, service.column};
        lines.append({at, line});
    }
    // In file order, as a reader goes through it.
    std::stable_sort(lines.begin(), lines.end(), [](const Located &a, const Located &b) {
        return std::pair(a.at.line, a.at.column) < std::pair(b.at.line, b.at.column);
    });
    QStringList text;
    for (const Located &l : lines)
        text.append(QStringLiteral("%1:%2:%3: %4")
                            .arg(sourceName)
                            .arg(l.at.line)
                            .arg(l.at.column)
                            .arg(l.line));
    return text.join(QLatin1Char('\n'));
}

QString entryProblem(const QString &where, const QString &name, const QJsonValue &entry,
                     const QStringList &knownTypes)
{
    const QString known = knownTypes.join(QStringLiteral(", "));
    if (!entry.isObject())
        return QStringLiteral("%1: service \"%2\" must be an object with a \"type\", not %3")
                .arg(where, name, jsonutil::describe(entry));
    const QJsonValue type = entry.toObject().value(QStringLiteral("type"));
    if (type.isUndefined())
        return QStringLiteral("%1: service \"%2\" has no \"type\": say which service it is "
                              "(known types: %3)")
                .arg(where, name, known);
    if (!type.isString())
        return QStringLiteral("%1: service \"%2\": \"type\" is %3, not the name of a service "
                              "type (known types: %4)")
                .arg(where, name, jsonutil::describe(type), known);
    return {};
}

} // namespace baton
