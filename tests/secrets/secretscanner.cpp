#include "secretscanner.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QUrl>

namespace baton::test {

namespace {

// Shorter encoded fragments would match ordinary text by chance.
constexpr qsizetype kMinimumFormBytes = 8;

QByteArray jsonEscaped(const QString &value)
{
    const QByteArray array = QJsonDocument(QJsonArray {value}).toJson(QJsonDocument::Compact);
    return array.mid(2, array.size() - 4); // without ["  "]
}

QByteArray jsonAsciiEscaped(const QString &value, bool upperHex)
{
    QByteArray out;
    for (const QChar c : value) {
        if (c == QLatin1Char('"') || c == QLatin1Char('\\')) {
            out += '\\';
            out += char(c.unicode());
        } else if (c == QLatin1Char('/')) {
            out += "\\/"; // allowed, and written by some encoders
        } else if (c.unicode() < 0x20 || c.unicode() > 0x7e) {
            QByteArray hex = QByteArray::number(c.unicode(), 16).rightJustified(4, '0');
            out += "\\u" + (upperHex ? hex.toUpper() : hex);
        } else {
            out += char(c.unicode());
        }
    }
    return out;
}

} // namespace

SecretScanner::SecretScanner(const QList<TestSecret> &secrets)
{
    addForms(QStringLiteral("marker"), QString::fromLatin1(testSecretMarker()), {});
    for (const TestSecret &secret : secrets)
        addForms(secret.name, secret.value, secret.user);
}

QList<QByteArray> SecretScanner::base64AtAnyAlignment(const QByteArray &text,
                                                      QByteArray::Base64Options options)
{
    QList<QByteArray> found;
    for (int offset = 0; offset < 3; ++offset) {
        // Behind `offset` other bytes, the characters whose six bits all
        // come from `text` are the same whatever those bytes are.
        const QByteArray encoded = (QByteArray(offset, '\0') + text).toBase64(options);
        const qsizetype first = (8 * offset + 5) / 6;
        const qsizetype end = (8 * (offset + text.size())) / 6;
        found.append(encoded.mid(first, end - first));
    }
    return found;
}

void SecretScanner::addForms(const QString &secret, const QString &value, const QString &user)
{
    const QByteArray utf8 = value.toUtf8();
    add(secret, QStringLiteral("plain"), utf8);
    const QByteArray url = QUrl::toPercentEncoding(value);
    add(secret, QStringLiteral("URL-encoded"), url);
    add(secret, QStringLiteral("URL-encoded"), QByteArray(url).replace("%", "%25")); // twice
    QByteArray lowerUrl = url;
    for (qsizetype i = lowerUrl.indexOf('%'); i >= 0; i = lowerUrl.indexOf('%', i + 1))
        lowerUrl.replace(i + 1, 2, lowerUrl.mid(i + 1, 2).toLower());
    add(secret, QStringLiteral("URL-encoded"), lowerUrl);
    add(secret, QStringLiteral("JSON-escaped"), jsonEscaped(value));
    add(secret, QStringLiteral("JSON-escaped"), jsonAsciiEscaped(value, false));
    add(secret, QStringLiteral("JSON-escaped"), jsonAsciiEscaped(value, true));
    for (const auto options : {QByteArray::Base64Encoding, QByteArray::Base64UrlEncoding}) {
        const QString name = options == QByteArray::Base64Encoding ? QStringLiteral("base64")
                                                                   : QStringLiteral("base64url");
        for (const QByteArray &fragment : base64AtAnyAlignment(utf8, options))
            add(secret, name, fragment);
    }
    if (!user.isEmpty()) {
        add(secret, QStringLiteral("Basic authorization"),
            (user + QLatin1Char(':') + value).toUtf8().toBase64());
    }
}

void SecretScanner::add(const QString &secret, const QString &encoding, const QByteArray &bytes)
{
    if (bytes.size() < kMinimumFormBytes)
        return;
    for (const SecretForm &form : std::as_const(m_forms)) {
        if (form.secret == secret && form.bytes == bytes)
            return; // the same bytes under the first encoding that produced them
    }
    m_forms.append({secret, encoding, bytes});
}

QList<SecretHit> SecretScanner::scan(const QString &where, const QByteArray &content) const
{
    QList<SecretHit> hits;
    QSet<QPair<int, qsizetype>> seen;
    for (qsizetype f = 0; f < m_forms.size(); ++f) {
        const SecretForm &form = m_forms.at(f);
        for (qsizetype at = content.indexOf(form.bytes); at >= 0;
             at = content.indexOf(form.bytes, at + 1)) {
            const int line = int(QByteArrayView(content).first(at).count('\n')) + 1;
            // One hit a line and form, however often it repeats there.
            if (seen.contains({line, f}))
                continue;
            seen.insert({line, f});
            hits.append({where, line, form.secret, form.encoding});
        }
    }
    // A named secret contains the marker too: the marker alone is reported
    // only on lines where no named secret was found.
    QSet<int> named;
    for (const SecretHit &hit : std::as_const(hits))
        if (hit.secret != QLatin1String("marker"))
            named.insert(hit.line);
    hits.removeIf([&](const SecretHit &hit) {
        return hit.secret == QLatin1String("marker") && named.contains(hit.line);
    });
    return hits;
}

} // namespace baton::test
