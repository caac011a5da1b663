#pragma once

#include <QString>

#include <optional>

namespace baton {

/*!
 * Which failed attempts of one election are worth a warning in the log.
 * An election attempts once a renewInterval, so a store that is gone wrote
 * a warning a second per election, the same words each time, until an
 * operator's journal held nothing else. Told: the first failure of a run,
 * a failure with other words than the last one told, and the same words
 * again once a minute with how long and how often it has failed; then the
 * attempt that works again. Every attempt stays in the event stream.
 */
class FailedAttempts
{
public:
    /*! The same failure is told again after this long. */
    static constexpr qint64 retellAfterMs = 60'000;

    /*! A failure with \a error at \a nowMono (boot clock): the warning's text, or nothing to tell. */
    std::optional<QString> failed(const QString &error, qint64 nowMono);
    /*! An attempt that got its answer at \a nowMono: after failures, the line that says it works again. */
    std::optional<QString> answered(qint64 nowMono);

private:
    QString m_told;
    qint64 m_toldMono = 0;
    qint64 m_failingSinceMono = 0;
    int m_failures = 0;
};

} // namespace baton
