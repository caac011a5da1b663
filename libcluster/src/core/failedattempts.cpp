#include "failedattempts.h"

namespace baton {

std::optional<QString> FailedAttempts::failed(const QString &error, qint64 nowMono)
{
    if (m_failures++ == 0)
        m_failingSinceMono = nowMono;
    const bool first = m_failures == 1;
    if (!first && error == m_told && nowMono - m_toldMono < retellAfterMs)
        return std::nullopt;
    m_told = error;
    m_toldMono = nowMono;
    if (first)
        return QStringLiteral("attempt failed: %1").arg(error);
    return QStringLiteral("attempt failed: %1 (%2 attempts in a row have failed, for %3 s; the same "
                          "failure is logged again after a minute)")
            .arg(error)
            .arg(m_failures)
            .arg((nowMono - m_failingSinceMono) / 1000);
}

std::optional<QString> FailedAttempts::answered(qint64 nowMono)
{
    if (m_failures == 0)
        return std::nullopt;
    const QString line = QStringLiteral("attempts answered again, after %1 failed over %2 s")
                                 .arg(m_failures)
                                 .arg((nowMono - m_failingSinceMono) / 1000);
    m_failures = 0;
    m_told.clear();
    return line;
}

} // namespace baton
