#pragma once

#include "testsecrets.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace baton::test {

/*! One way a secret could be written: its name, the encoding, the bytes. */
struct SecretForm
{
    QString secret;
    QString encoding;
    QByteArray bytes;
};

/*! Where a form was found: the line, and which secret in which encoding. */
struct SecretHit
{
    QString where;
    int line = 0;
    QString secret;
    QString encoding;
};

/*!
 * Finds the suite's secrets (R2) in bytes, in every form a leak would
 * take: as they are; URL-encoded (either hex case); JSON-escaped (as Qt
 * writes it, and with \\uXXXX for every non-ASCII character, as other JSON
 * writers do); base64 and base64url at any alignment, so a secret inside a
 * longer encoded string is found too, which covers HTTP Basic
 * authorization; and the marker every secret contains, in the same forms,
 * for a secret the scan was not told of (a counter appended, a random
 * suffix).
 */
class SecretScanner
{
public:
    explicit SecretScanner(const QList<TestSecret> &secrets);

    QList<SecretForm> forms() const { return m_forms; }
    /*! Every form found in \a content, one hit per line and form; \a where names the content. */
    QList<SecretHit> scan(const QString &where, const QByteArray &content) const;

    /*! The base64 characters that encode \a text wherever it sits in a longer string: three strings, one per alignment. */
    static QList<QByteArray> base64AtAnyAlignment(const QByteArray &text,
                                                  QByteArray::Base64Options options);

private:
    void addForms(const QString &secret, const QString &value, const QString &user);
    void add(const QString &secret, const QString &encoding, const QByteArray &bytes);

    QList<SecretForm> m_forms;
};

} // namespace baton::test
