#pragma once

#include <QList>
#include <QString>

namespace baton::test {

/*! One secret the suite hands to Baton (tests/common/test-secrets.txt). */
struct TestSecret
{
    QString name;
    QString value;
    /*! The account it belongs to, when it is a password; empty for a token. */
    QString user;
};

/*!
 * Every secret of tests/common/test-secrets.txt, the one place they are
 * defined, so that the secrets scan (R2) knows each value the suite
 * could leak. Empty, with \a errorString, when the file is unreadable or a
 * line is malformed.
 */
QList<TestSecret> testSecrets(QString *errorString = nullptr);

/*!
 * The value of the secret \a name. A name that is not in the file stops the
 * test (qFatal): a test must never run with an empty secret, which no scan
 * could find.
 */
QString testSecret(const QString &name);

/*! The text every secret contains ("baton-test-secret"). */
QByteArray testSecretMarker();

} // namespace baton::test
