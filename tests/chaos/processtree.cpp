#include "processtree.h"

#include <QDir>
#include <QFile>

#include <csignal>

namespace baton::test::chaos {

QList<pid_t> childrenOf(qint64 pid)
{
    QList<pid_t> children;
    const QString tasks = QStringLiteral("/proc/%1/task").arg(pid);
    for (const QString &task : QDir(tasks).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile file(tasks + QLatin1Char('/') + task + QStringLiteral("/children"));
        if (!file.open(QIODevice::ReadOnly))
            continue;
        for (const QByteArray &child : file.readAll().simplified().split(' '))
            if (!child.isEmpty())
                children.append(pid_t(child.toInt()));
    }
    return children;
}

bool isStopped(qint64 pid)
{
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return false;
    const QByteArray line = stat.readAll();
    // "pid (comm) S ...": the state follows the last parenthesis.
    return line.mid(line.lastIndexOf(')') + 2, 1) == "T";
}

void stopDescendantGroups(qint64 pid)
{
    QList<pid_t> parents {pid_t(pid)};
    while (!parents.isEmpty())
        for (pid_t child : childrenOf(parents.takeFirst())) {
            ::kill(-child, SIGSTOP);
            parents.append(child);
        }
}

} // namespace baton::test::chaos
