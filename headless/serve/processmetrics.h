#pragma once

#include <QByteArray>
#include <QString>

namespace baton {

/*!
 * The `process_*` series every official Prometheus client exports, read
 * from Linux's /proc, so that dashboards and alerts written for any other
 * service work on `baton join` too (CPU, memory, file descriptors, restarts
 * seen as a new start time).
 */
class ProcessMetrics
{
public:
    struct Sample
    {
        double cpuSeconds = 0;
        double residentBytes = 0;
        double virtualBytes = 0;
        double startTimeSeconds = 0;
        double openFds = 0;
        double maxFds = 0;
    };

    /*! Reads this process's numbers under \a proc (`/proc`, or a copy in tests). */
    static bool read(const QString &proc, Sample *sample, QString *errorString);

    /*!
     * From the texts of `<proc>/self/stat`, `<proc>/stat` and
     * `<proc>/self/limits`; \a ticksPerSecond and \a pageSize as sysconf()
     * gives them. False with \a errorString naming the field it could not read.
     */
    static bool parse(const QByteArray &selfStat, const QByteArray &systemStat, const QByteArray &limits,
                      long ticksPerSecond, long pageSize, Sample *sample, QString *errorString);

    /*! The Prometheus text exposition of \a sample. */
    static QByteArray render(const Sample &sample);
};

} // namespace baton
