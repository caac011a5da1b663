// What a dead guard left behind, found in /proc (through the one reader,
// execguard::readAllProcesses()) for ExecSupervisor::sweepStrays().

#include "execsweep.h"

#include <unistd.h>

namespace baton::execsweep {

QPair<qint64, quint64> identity(const ProcessIdentity &process)
{
    return {qint64(process.pid), quint64(process.startTime)};
}

std::vector<ProcessIdentity> strays(const QList<QPair<qint64, quint64>> &keep)
{
    const std::vector<ProcessIdentity> processes = execguard::readAllProcesses();
    const pid_t self = ::getpid();
    const pid_t ownGroup = ::getpgrp();
    std::vector<ProcessIdentity> found;
    for (const ProcessIdentity &process : processes)
        if (process.parent == self && process.group != ownGroup && !keep.contains(identity(process)))
            found.push_back(process);
    for (size_t i = 0; i < found.size(); ++i)
        for (const ProcessIdentity &process : processes)
            if (process.parent == found[i].pid && !keep.contains(identity(process)))
                found.push_back(process);
    return found;
}

} // namespace baton::execsweep
