#include "processmetrics.h"

#include <QDir>
#include <QFile>
#include <QList>

#include <unistd.h>

namespace baton {

namespace {

QByteArray readAll(const QString &path, QString *errorString)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *errorString = QStringLiteral("%1: %2").arg(path, file.errorString());
        return {};
    }
    return file.readAll(); // /proc files report size 0: read until the end
}

QString number(double value)
{
    return QString::number(value, 'g', 15);
}

} // namespace

bool ProcessMetrics::parse(const QByteArray &selfStat, const QByteArray &systemStat, const QByteArray &limits,
                           long ticksPerSecond, long pageSize, Sample *sample, QString *errorString)
{
    // The command name (field 2) is in parentheses and may hold spaces or
    // parentheses itself: the fields are counted from the last ')'.
    const qsizetype close = selfStat.lastIndexOf(')');
    if (close < 0) {
        *errorString = QStringLiteral("stat: no command name in parentheses");
        return false;
    }
    const QList<QByteArray> fields = selfStat.mid(close + 1).simplified().split(' ');
    // fields[0] is field 3 (state) of proc(5).
    auto field = [&fields](int procNumber, double *value) {
        const qsizetype index = procNumber - 3;
        bool ok = false;
        if (index < fields.size())
            *value = fields.at(index).toDouble(&ok);
        return ok;
    };
    double utime = 0, stime = 0, startTicks = 0, vsize = 0, rssPages = 0;
    if (!field(14, &utime) || !field(15, &stime) || !field(22, &startTicks) || !field(23, &vsize)
        || !field(24, &rssPages)) {
        *errorString = QStringLiteral("stat: fields 14, 15, 22, 23 and 24 are not all numbers");
        return false;
    }
    double bootTime = -1;
    for (const QByteArray &line : systemStat.split('\n'))
        if (line.startsWith("btime "))
            bootTime = line.mid(6).trimmed().toDouble();
    if (bootTime < 0) {
        *errorString = QStringLiteral("stat of the system: no btime line");
        return false;
    }
    double maxFds = -1;
    for (const QByteArray &line : limits.split('\n')) {
        if (!line.startsWith("Max open files"))
            continue;
        const QList<QByteArray> words = line.mid(14).simplified().split(' ');
        bool ok = false;
        maxFds = words.isEmpty() ? -1 : words.first().toDouble(&ok); // the soft limit
        if (!ok)
            maxFds = -1;
    }
    if (maxFds < 0) {
        *errorString = QStringLiteral("limits: no number on the \"Max open files\" line");
        return false;
    }
    sample->cpuSeconds = (utime + stime) / double(ticksPerSecond);
    sample->startTimeSeconds = bootTime + startTicks / double(ticksPerSecond);
    sample->virtualBytes = vsize;
    sample->residentBytes = rssPages * double(pageSize);
    sample->maxFds = maxFds;
    return true;
}

bool ProcessMetrics::read(const QString &proc, Sample *sample, QString *errorString)
{
    const QByteArray selfStat = readAll(proc + QStringLiteral("/self/stat"), errorString);
    if (selfStat.isEmpty())
        return false;
    const QByteArray systemStat = readAll(proc + QStringLiteral("/stat"), errorString);
    if (systemStat.isEmpty())
        return false;
    const QByteArray limits = readAll(proc + QStringLiteral("/self/limits"), errorString);
    if (limits.isEmpty())
        return false;
    if (!parse(selfStat, systemStat, limits, ::sysconf(_SC_CLK_TCK), ::sysconf(_SC_PAGESIZE), sample,
               errorString))
        return false;
    const QDir fds(proc + QStringLiteral("/self/fd"));
    if (!fds.exists()) {
        *errorString = QStringLiteral("%1: missing").arg(fds.path());
        return false;
    }
    sample->openFds = double(fds.entryList(QDir::AllEntries | QDir::System | QDir::NoDotAndDotDot).size());
    return true;
}

QByteArray ProcessMetrics::render(const Sample &sample)
{
    QString out;
    auto metric = [&out](const char *name, const char *type, const char *help, double value) {
        out += QStringLiteral("# HELP %1 %2\n# TYPE %1 %3\n%1 %4\n")
                       .arg(QLatin1String(name), QLatin1String(help), QLatin1String(type), number(value));
    };
    metric("process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.",
           sample.cpuSeconds);
    metric("process_open_fds", "gauge", "Number of open file descriptors.", sample.openFds);
    metric("process_max_fds", "gauge", "Maximum number of open file descriptors.", sample.maxFds);
    metric("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.", sample.virtualBytes);
    metric("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", sample.residentBytes);
    metric("process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.",
           sample.startTimeSeconds);
    return out.toUtf8();
}

} // namespace baton
