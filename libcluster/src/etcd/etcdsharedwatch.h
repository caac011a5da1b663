#pragma once

#include <baton/store.h>

#include <QPointer>
#include <QString>

namespace baton {

class EtcdWatchHub;

/*! A watch of the keys under a prefix, served by an EtcdWatchHub's stream. */
class EtcdSharedWatch : public StoreWatch
{
    Q_OBJECT
public:
    EtcdSharedWatch(EtcdWatchHub *hub, const QString &prefix, qint64 floor, QObject *parent);
    ~EtcdSharedWatch() override;

    QString prefix() const { return m_prefix; }
    /*!
     * The newest revision the store knew when this watch was made. A stream
     * widened for it replays its keys from where the stream was, which can
     * be older: those events are history, not news, and are not handed on.
     * Any write made after watch() returned has a higher revision.
     */
    qint64 floor() const { return m_floor; }

private:
    QPointer<EtcdWatchHub> m_hub;
    QString m_prefix;
    qint64 m_floor = 0;
};

} // namespace baton
