// The words baton (ExecSupervisor, execguardchannel.cpp) and
// baton-exec-guard (execguard.cpp) exchange, written once for both ends.
// Plain C++ and header-only: the guard depends on nothing but libc.
//
// Started by baton only:
//   baton-exec-guard GRACE_MS DEADLINE -- PROGRAM [ARG...]
// DEADLINE is the moment the command must be gone, in milliseconds of
// CLOCK_BOOTTIME (it counts a suspend, so a resumed host acts at once), or
// "none" where no lease bounds the authority (a single instance, W8).
//
// stdin, from baton, one line each:
//   deadline MS|none   the authority was renewed: the new end
//   stop               baton stepped down: SIGTERM now, SIGKILL after the grace
//   kill               SIGKILL now
//   (end of file)      baton died: SIGKILL now
// stdout, to baton, one line each:
//   refused            less than the grace was left before DEADLINE when the
//                      guard came to start the command: nothing ran; it exits 4
//   pid N              the command runs as N, in a process group of its own
//   expired            the deadline came before baton said stop
//   exit N | signal N  how the command's own process ended
//   stuck N            a descendant the guard gave up on; it exits 3
//
// stderr: what went wrong, for baton's log (a malformed control line is
// ignored with one line there; the deadline in force stays, so the command
// never runs longer for it).

#pragma once

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace baton::guardprotocol {

/*! DEADLINE "none": no lease bounds the authority. */
inline constexpr long long noDeadline = -1;
inline constexpr char noDeadlineText[] = "none";
/*! Between the guard's own arguments and the command's. */
inline constexpr char argumentsEnd[] = "--";

/*! How the guard exits. */
enum ExitCode : int {
    Done = 0,           ///< nothing of the command is left
    BadUsage = 2,       ///< its arguments were not GRACE_MS DEADLINE -- PROGRAM
    GaveUp = 3,         ///< it named descendants it could not kill ("stuck N") and left them
    Refused = 4,        ///< less than the grace was left: the command never ran ("refused")
    CannotStart = 127,  ///< it could not set itself up or fork ("exit 127")
};

/*!
 * The guard's test hooks (tst_execguardprotocol): the give-up bound, the
 * name of processes to spare as if another user's, a wait between fork and
 * exec. A guard baton starts never honours them: baton removes them.
 */
inline constexpr char giveUpMsVariable[] = "BATON_EXEC_GUARD_GIVE_UP_MS";
inline constexpr char spareVariable[] = "BATON_EXEC_GUARD_TEST_SPARE";
inline constexpr char execDelayMsVariable[] = "BATON_EXEC_GUARD_TEST_EXEC_DELAY_MS";

/*! Reads MS or "none" (noDeadline); false for anything else, a negative number included. */
inline bool parseMs(const char *text, long long *value)
{
    if (std::strcmp(text, noDeadlineText) == 0) {
        *value = noDeadline;
        return true;
    }
    char *end = nullptr;
    errno = 0;
    const long long parsed = std::strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || parsed < 0)
        return false;
    *value = parsed;
    return true;
}

/*! MS, or "none" for noDeadline, as DEADLINE and the deadline line carry it. */
inline std::string msText(long long ms)
{
    return ms == noDeadline ? std::string(noDeadlineText) : std::to_string(ms);
}

// baton -> guard

enum class Control {
    Deadline,    ///< "deadline MS|none": the authority's new end
    BadDeadline, ///< "deadline " and no number: ignored, the deadline in force stays
    Stop,        ///< "stop"
    Kill,        ///< "kill"
    Unknown,     ///< anything else: ignored
};

struct ControlLine
{
    Control kind = Control::Unknown;
    /*! Control::Deadline: the new end, or noDeadline. */
    long long deadline = noDeadline;
};

inline constexpr char deadlinePrefix[] = "deadline ";
inline constexpr char stopLine[] = "stop\n";
inline constexpr char killLine[] = "kill\n";

inline std::string deadlineLine(long long deadline)
{
    return deadlinePrefix + msText(deadline) + '\n';
}

/*! One control line, without its '\n'. */
inline ControlLine decodeControl(std::string_view line)
{
    ControlLine control;
    if (line.substr(0, sizeof deadlinePrefix - 1) == deadlinePrefix) {
        const std::string value(line.substr(sizeof deadlinePrefix - 1));
        control.kind = parseMs(value.c_str(), &control.deadline) ? Control::Deadline : Control::BadDeadline;
    } else if (line == std::string_view(stopLine, sizeof stopLine - 2)) {
        control.kind = Control::Stop;
    } else if (line == std::string_view(killLine, sizeof killLine - 2)) {
        control.kind = Control::Kill;
    }
    return control;
}

// guard -> baton

enum class Report { Refused, Pid, Expired, Exit, Signal, Stuck, Unknown };

struct ReportLine
{
    Report kind = Report::Unknown;
    /*! Pid, Exit, Signal, Stuck: the number after the word; 0 when there is none or it is not one. */
    int number = 0;
};

inline constexpr const char *reportWord(Report kind)
{
    switch (kind) {
    case Report::Refused:
        return "refused";
    case Report::Pid:
        return "pid";
    case Report::Expired:
        return "expired";
    case Report::Exit:
        return "exit";
    case Report::Signal:
        return "signal";
    case Report::Stuck:
        return "stuck";
    case Report::Unknown:
        break;
    }
    return "";
}

/*! "refused\n", "expired\n". */
inline std::string reportLine(Report kind)
{
    return std::string(reportWord(kind)) + '\n';
}

/*! "pid N\n", "exit N\n", "signal N\n", "stuck N\n". */
inline std::string reportLine(Report kind, long long number)
{
    return std::string(reportWord(kind)) + ' ' + std::to_string(number) + '\n';
}

/*! One report line, without its '\n' and surrounding white space. */
inline ReportLine decodeReport(std::string_view line)
{
    const size_t space = line.find(' ');
    const std::string_view word = line.substr(0, space);
    ReportLine report;
    for (Report kind : {Report::Refused, Report::Pid, Report::Expired, Report::Exit, Report::Signal, Report::Stuck})
        if (word == reportWord(kind))
            report.kind = kind;
    if (space != std::string_view::npos) {
        const std::string text(line.substr(space + 1));
        char *end = nullptr;
        errno = 0;
        const long long number = std::strtoll(text.c_str(), &end, 10);
        if (errno == 0 && end != text.c_str() && *end == '\0' && number >= INT_MIN && number <= INT_MAX)
            report.number = int(number);
    }
    return report;
}

} // namespace baton::guardprotocol
