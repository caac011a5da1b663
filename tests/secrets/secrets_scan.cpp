// The secrets scan (R2): every file the suite kept in its artifacts
// folder (tests/common/artifacts.h: each process's log and event stream,
// each /metrics body and `baton status` output, each exported history and
// settings file, each test's own output, etcd's logs), and the CTest log,
// searched for every test secret (tests/common/test-secrets.txt) in every
// form a leak would take. CTest runs it last (tests/secrets/CMakeLists.txt).
//
//   secrets_scan ARTIFACTS [--require KIND]... [EXTRA_FILE]...
//
// Fails, listing file:line and the secret's name (never its value), on any
// hit; fails too when a required kind has no file, so an empty or partial
// folder cannot pass for a clean one.

#include "secretscanner.h"

#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QMap>

#include <cstdio>

using namespace baton::test;

namespace {

struct Tally
{
    int files = 0;
    qint64 lines = 0;
    qint64 bytes = 0;
};

void print(const QString &text)
{
    std::fputs(qPrintable(text + QLatin1Char('\n')), stdout);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QStringList arguments = app.arguments().mid(1);
    if (arguments.isEmpty()) {
        print(QStringLiteral("usage: secrets_scan ARTIFACTS [--require KIND]... [EXTRA_FILE]..."));
        return 2;
    }
    const QString root = QDir(arguments.takeFirst()).absolutePath();
    QStringList required;
    QStringList extras;
    while (!arguments.isEmpty()) {
        const QString argument = arguments.takeFirst();
        if (argument == QLatin1String("--require") && !arguments.isEmpty())
            required.append(arguments.takeFirst());
        else
            extras.append(argument);
    }

    QString error;
    const QList<TestSecret> secrets = testSecrets(&error);
    if (secrets.isEmpty()) {
        print(QStringLiteral("secrets_scan: no secrets to look for: %1").arg(error));
        return 2;
    }
    const SecretScanner scanner(secrets);

    QList<SecretHit> hits;
    QMap<QString, Tally> tallies;
    auto scanFile = [&](const QString &path, const QString &kind) {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly)) {
            hits.append({path, 0, QStringLiteral("(unreadable: %1)").arg(file.errorString()), {}});
            return;
        }
        const QByteArray content = file.readAll();
        Tally &tally = tallies[kind];
        ++tally.files;
        tally.lines += content.count('\n') + (content.endsWith('\n') || content.isEmpty() ? 0 : 1);
        tally.bytes += content.size();
        hits += scanner.scan(path, content);
    };

    QDirIterator it(root, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        scanFile(path, QDir(root).relativeFilePath(path).section(QLatin1Char('/'), 0, 0));
    }
    for (const QString &extra : std::as_const(extras)) {
        if (QFile::exists(extra))
            scanFile(extra, QStringLiteral("ctest-log"));
    }

    print(QStringLiteral("secrets_scan: %1 secrets in %2 forms, in %3")
                  .arg(secrets.size())
                  .arg(scanner.forms().size())
                  .arg(root));
    print(QStringLiteral("  %1 %2 %3 %4").arg(QStringLiteral("kind"), -16).arg(QStringLiteral("files"), 6)
                  .arg(QStringLiteral("lines"), 9).arg(QStringLiteral("bytes"), 11));
    for (auto t = tallies.cbegin(); t != tallies.cend(); ++t) {
        print(QStringLiteral("  %1 %2 %3 %4").arg(t.key(), -16).arg(t->files, 6)
                      .arg(t->lines, 9).arg(t->bytes, 11));
    }

    int failures = 0;
    for (const QString &kind : std::as_const(required)) {
        if (tallies.value(kind).files == 0) {
            print(QStringLiteral("FAIL: no %1 file: the scan did not see that part of the suite's output "
                                 "(run the whole suite, not this test alone)")
                          .arg(kind));
            ++failures;
        }
    }
    for (const SecretHit &hit : std::as_const(hits)) {
        print(QStringLiteral("FAIL: %1:%2: secret %3%4")
                      .arg(hit.where)
                      .arg(hit.line)
                      .arg(hit.secret,
                           hit.encoding.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(hit.encoding)));
        ++failures;
    }
    if (failures == 0)
        print(QStringLiteral("secrets_scan: no secret found"));
    return failures == 0 ? 0 : 1;
}
