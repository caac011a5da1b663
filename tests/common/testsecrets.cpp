#include "testsecrets.h"

#include <QFile>
#include <QRegularExpression>

namespace baton::test {

QByteArray testSecretMarker()
{
    return QByteArrayLiteral("baton-test-secret");
}

QList<TestSecret> testSecrets(QString *errorString)
{
    QFile file(QStringLiteral(BATON_TEST_SECRETS_FILE));
    auto fail = [&](const QString &why) {
        if (errorString)
            *errorString = QStringLiteral("%1: %2").arg(file.fileName(), why);
        return QList<TestSecret>();
    };
    if (!file.open(QIODevice::ReadOnly))
        return fail(file.errorString());
    static const QRegularExpression spaces(QStringLiteral("\\s+"));
    QList<TestSecret> secrets;
    int lineNumber = 0;
    while (!file.atEnd()) {
        ++lineNumber;
        const QString line = QString::fromUtf8(file.readLine()).trimmed();
        if (line.isEmpty() || line.startsWith(QLatin1Char('#')))
            continue;
        const QStringList fields = line.split(spaces);
        // A value without the marker would make the marker search blind to it.
        if (fields.size() < 2 || fields.size() > 3
            || !fields.at(1).toUtf8().contains(testSecretMarker())) {
            return fail(QStringLiteral("line %1 is not \"NAME VALUE [USER]\" with a value "
                                       "containing %2")
                                .arg(lineNumber)
                                .arg(QString::fromLatin1(testSecretMarker())));
        }
        secrets.append({fields.at(0), fields.at(1), fields.value(2)});
    }
    return secrets;
}

QString testSecret(const QString &name)
{
    QString error;
    const QList<TestSecret> secrets = testSecrets(&error);
    if (!error.isEmpty())
        qFatal("%s", qPrintable(error));
    for (const TestSecret &secret : secrets) {
        if (secret.name == name)
            return secret.value;
    }
    qFatal("no test secret named %s in %s", qPrintable(name), BATON_TEST_SECRETS_FILE);
    return {};
}

} // namespace baton::test
