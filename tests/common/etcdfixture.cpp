#include "etcdfixture.h"

#include <QFile>
#include <QProcess>

namespace baton::test {

namespace {

constexpr int kProcessTimeoutMs = 30000;

QString readFirstLine(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(file.readLine().trimmed());
}

} // namespace

EtcdFixture::EtcdFixture(const char *variable)
    : m_dir(qEnvironmentVariable(variable))
    , m_script(qEnvironmentVariable("BATON_ETCD_FIXTURE"))
{
}

QStringList EtcdFixture::endpoints() const
{
    const QString line = readFirstLine(m_dir + QStringLiteral("/endpoints"));
    if (line.isEmpty())
        m_error = QStringLiteral("no etcd fixture in %1 (did its -start test run?)").arg(m_dir);
    return line.isEmpty() ? QStringList() : line.split(QLatin1Char(','));
}

QString EtcdFixture::username() const
{
    return readFirstLine(m_dir + QStringLiteral("/credentials")).section(QLatin1Char(':'), 0, 0);
}

QString EtcdFixture::password() const
{
    return readFirstLine(m_dir + QStringLiteral("/credentials")).section(QLatin1Char(':'), 1);
}

bool EtcdFixture::run(const QString &command, const QStringList &arguments)
{
    QProcess process;
    process.start(QStringLiteral("sh"), QStringList { m_script, command, m_dir } + arguments);
    // A test helper waiting for a helper script: no event loop needed here.
    if (!process.waitForFinished(kProcessTimeoutMs) || process.exitCode() != 0) {
        m_error = QStringLiteral("etcd-fixture.sh %1 failed: %2")
                          .arg(command, QString::fromUtf8(process.readAllStandardError()));
        return false;
    }
    return true;
}

QByteArray EtcdFixture::etcdctl(const QStringList &arguments, const QStringList &environment)
{
    QProcess process;
    process.setEnvironment(QProcess::systemEnvironment() + environment);
    process.start(QStringLiteral("etcdctl"),
                  QStringList { QStringLiteral("--endpoints=") + endpoints().join(QLatin1Char(',')) }
                          + arguments);
    if (!process.waitForFinished(kProcessTimeoutMs) || process.exitCode() != 0) {
        m_error = QStringLiteral("etcdctl %1 failed: %2")
                          .arg(arguments.join(QLatin1Char(' ')),
                               QString::fromUtf8(process.readAllStandardError()));
        return {};
    }
    QByteArray output = process.readAllStandardOutput();
    if (output.isNull())
        output = QByteArray("");
    return output;
}

} // namespace baton::test
