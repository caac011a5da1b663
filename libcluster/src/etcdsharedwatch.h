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
    EtcdSharedWatch(EtcdWatchHub *hub, const QString &prefix, QObject *parent);
    ~EtcdSharedWatch() override;

    QString prefix() const { return m_prefix; }

private:
    QPointer<EtcdWatchHub> m_hub;
    QString m_prefix;
};

} // namespace baton
