#pragma once

#include <QObject>

class QSocketNotifier;

namespace baton {

/*!
 * Turns SIGTERM and SIGINT into a Qt signal on the event loop (a signal
 * handler may do almost nothing, so it only writes to a pipe). A second
 * signal while the first is being handled ends the process at once, for an
 * operator whose clean stop is taking too long.
 */
class SignalWatcher : public QObject
{
    Q_OBJECT
public:
    explicit SignalWatcher(QObject *parent = nullptr);
    ~SignalWatcher() override;

Q_SIGNALS:
    void terminationRequested(int signalNumber);

private:
    QSocketNotifier *m_notifier = nullptr;
};

} // namespace baton
