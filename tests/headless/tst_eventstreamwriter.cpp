// EventStreamWriter (R6, O5): `baton join --events json` through a queue, to a
// pipe whose reader the test is. The record that marks a gap takes the
// times of the last record lost, so the stream's times never go back,
// whenever the gap is closed.

#include "eventstreamwriter.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

using namespace baton;
using namespace std::chrono_literals;

class TestEventStreamWriter : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void theGapsRecordNeverGoesBackInTime();
};

namespace {

QJsonObject recordAt(qint64 mono)
{
    return QJsonObject {{QStringLiteral("v"), 1},
                        {QStringLiteral("ts"), QStringLiteral("2026-01-01T00:00:00.%1Z").arg(mono % 1000, 3, 10, QLatin1Char('0'))},
                        {QStringLiteral("mono"), double(mono)},
                        {QStringLiteral("lease"), QStringLiteral("cron")},
                        {QStringLiteral("instance"), QStringLiteral("a")},
                        {QStringLiteral("event"), QStringLiteral("attempt")}};
}

} // namespace

// O5, R6: records stamped at times far below the clock's (1, 2, 3, ...)
// into a pipe that is full from the start: the queue drops, then the
// reader catches up and one more record closes the gap. The gap's record
// comes between the last record kept and that one, and its mono is the
// last lost record's: a marker stamped when the gap closed would read the
// clock's time, after the record behind it.
void TestEventStreamWriter::theGapsRecordNeverGoesBackInTime()
{
    int fds[2];
    QVERIFY2(::pipe2(fds, O_CLOEXEC) == 0, std::strerror(errno));
    const int readEnd = fds[0];
    const int writeEnd = fds[1];
    ::fcntl(readEnd, F_SETFL, O_NONBLOCK);
    ::fcntl(readEnd, F_SETPIPE_SZ, 4096);
    ::fcntl(writeEnd, F_SETFL, O_NONBLOCK);
    qsizetype filler = 0;
    while (::write(writeEnd, "\n", 1) == 1)
        ++filler;
    ::fcntl(writeEnd, F_SETFL, 0);

    qint64 mono = 0;
    {
        qputenv("BATON_OUTPUT_QUEUE_BYTES", "4096");
        EventStreamWriter stream(writeEnd, QStringLiteral("cron"), QStringLiteral("a"));
        qunsetenv("BATON_OUTPUT_QUEUE_BYTES");
        while (stream.dropped() < 10)
            stream.write(recordAt(++mono));
        const qint64 lastLost = mono;

        QByteArray read;
        char buffer[65536];
        auto readAll = [&] {
            ssize_t n = 0;
            while ((n = ::read(readEnd, buffer, sizeof buffer)) > 0)
                read.append(buffer, n);
        };
        // The reader catches up with every record kept (the gap stays open:
        // only a write or a drain closes it), then one more record comes.
        QTRY_COMPARE_WITH_TIMEOUT((readAll(), read.count('\n')), filler + mono - 10, 20000);
        stream.write(recordAt(++mono));
        QVERIFY(stream.drain(10s));
        readAll();

        const QList<QByteArray> lines = read.mid(filler).trimmed().split('\n');
        QVERIFY(lines.size() >= 3);
        double last = 0;
        int gaps = 0;
        for (const QByteArray &line : lines) {
            const QJsonObject record = QJsonDocument::fromJson(line).object();
            QVERIFY2(!record.isEmpty(), line.constData());
            const double at = record.value(QStringLiteral("mono")).toDouble();
            QVERIFY2(at >= last, qPrintable(QStringLiteral("mono %1 after %2: %3").arg(at).arg(last).arg(QString::fromUtf8(line))));
            last = at;
            if (record.value(QStringLiteral("event")) == QStringLiteral("events-dropped")) {
                ++gaps;
                QCOMPARE(record.value(QStringLiteral("mono")).toDouble(), double(lastLost));
                QCOMPARE(record.value(QStringLiteral("count")).toInteger(), qint64(10));
            }
        }
        QCOMPARE(gaps, 1);
        QCOMPARE(QJsonDocument::fromJson(lines.constLast()).object().value(QStringLiteral("mono")).toDouble(),
                 double(mono));
    }
    ::close(readEnd);
    ::close(writeEnd);
}

QTEST_GUILESS_MAIN(TestEventStreamWriter)
#include "tst_eventstreamwriter.moc"
