#pragma once

#include <QList>
#include <QObject>

class QSocketNotifier;

namespace baton {

/*!
 * SIGTERM and SIGINT as a Qt signal in the thread that installed them. A
 * signal handler may do almost nothing, so it only writes the signal's
 * number to a pipe that a QSocketNotifier watches. A second signal ends the
 * process at once with 128 + its number, for an operator whose clean stop
 * is taking too long (as `baton join` does).
 *
 * One per process. A signal the program already handles or ignores (its
 * action is not the default one) is left alone: the program decided.
 */
class SignalStop : public QObject
{
    Q_OBJECT
public:
    /*!
     * Catches SIGTERM and SIGINT, each one still at its default action;
     * nullptr when neither is or when another SignalStop has them.
     */
    static SignalStop *install(QObject *parent);
    /*! Puts back the default action of the signals it caught, if still its own. */
    ~SignalStop() override;

Q_SIGNALS:
    void received(int signalNumber);

private:
    SignalStop(const QList<int> &caught, QObject *parent);

    QList<int> m_caught;
    QSocketNotifier *m_notifier = nullptr;
};

} // namespace baton
