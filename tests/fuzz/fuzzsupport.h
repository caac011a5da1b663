#pragma once

// Shared by the fuzz targets. A target states the R1 property it can check
// with FUZZ_CHECK rather than assert(): the property must hold (and a
// violation must stop the fuzzer with a report) whatever NDEBUG says.

#include <QByteArray>
#include <QCoreApplication>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size);

namespace baton::fuzz {

[[noreturn]] inline void fail(const char *condition, const char *file, int line, const QString &detail)
{
    std::fprintf(stderr, "%s:%d: fuzz property violated: %s\n  %s\n", file, line, condition,
                 qPrintable(detail));
    std::abort();
}

/*! The input as Qt sees it, without copying twice. */
inline QByteArray bytes(const std::uint8_t *data, std::size_t size)
{
    return QByteArray(reinterpret_cast<const char *>(data), qsizetype(size));
}

/*!
 * Some library code (services, timers, QRegularExpression's caches) expects
 * a QCoreApplication; one for the whole run, made on first use.
 */
inline void ensureCoreApplication()
{
    if (QCoreApplication::instance())
        return;
    static int argc = 1;
    static char name[] = "baton-fuzz";
    static char *argv[] = {name, nullptr};
    static QCoreApplication app(argc, argv);
}

} // namespace baton::fuzz

#define FUZZ_CHECK(condition, detail)                                                              \
    do {                                                                                           \
        if (!(condition))                                                                          \
            ::baton::fuzz::fail(#condition, __FILE__, __LINE__, (detail));                         \
    } while (false)
