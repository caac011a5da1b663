#pragma once

#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>

namespace baton::test {

/*! The `baton` executable under test, as the build told ctest (BATON_BINARY). */
QString batonBinary();

/*!
 * How much slower than a quiet developer machine this run may be:
 * BATON_TEST_TIME_SCALE, a number >= 1 (1 when unset). End-to-end tests
 * multiply their lease and renewal by it, and so every bound they derive
 * from those, so that a loaded CI machine or a sanitizer build changes the
 * timings, never the rules the tests check. A bad value stops the test with
 * an error naming the variable and the value.
 */
double timeScale();

/*! \a ms milliseconds of a quiet machine, for this run (timeScale()). */
qint64 scaledMs(qint64 ms);

/*!
 * Whether process \a pid exists and has not ended. A zombie has ended
 * (kill(pid, 0) still answers for it): whoever its parent is, init
 * included, reaps it in its own time.
 */
bool isRunningProcess(qint64 pid);

/*! The permission bits of \a path (0600...), or -1 when it does not exist (R2 tests). */
int fileMode(const QString &path);

/*! \a mode as octal text, for messages. */
QString octalMode(int mode);

/*! Whether \a by names a user at this host, as `baton handover` and `baton drain` record who asked. */
bool isUserAtThisHost(const QString &by);

/*! Parses one line of an O5 event stream; an empty object when it is not JSON. */
QJsonObject parseEventLine(const QByteArray &line);

/*! One sample of a Prometheus text exposition. */
struct PrometheusSample
{
    QString name;
    QMap<QString, QString> labels;
    double value = 0;
};

/*!
 * A strict reader of the Prometheus text exposition format 0.0.4, for tests:
 * every line is HELP, TYPE, a comment or a sample with valid names, label
 * syntax and escapes, and a number; a family's TYPE comes before its
 * samples, which are contiguous; no sample repeats; counters end in
 * `_total`; each histogram series has increasing `le` bounds, non-decreasing
 * counts, a `+Inf` bucket equal to `_count`, and a `_sum`. \a error names
 * the first line that breaks a rule.
 */
struct PrometheusScrape
{
    QList<PrometheusSample> samples;
    QMap<QString, QString> types;
    QString error;

    bool ok() const { return error.isEmpty(); }
    /*! The value of the sample with \a name whose labels include \a labels; NaN when absent. */
    double value(const QString &name, const QMap<QString, QString> &labels = {}) const;
};

PrometheusScrape parsePrometheus(const QByteArray &text);

} // namespace baton::test

/*! R2: fails the test unless \a path has exactly the permission bits \a expected. */
#define BATON_COMPARE_MODE(path, expected)                                                         \
    QVERIFY2(baton::test::fileMode(path) == (expected),                                            \
             qPrintable(QStringLiteral("%1 is %2, expected %3")                                    \
                                .arg(path, baton::test::octalMode(baton::test::fileMode(path)),    \
                                     baton::test::octalMode(expected))))
