#pragma once

#include "storeleaseprotocol.h"

#include <QPointer>

namespace baton {

class StoreWatch;

/*!
 * A StoreLeaseProtocol's watch of one lease (its key) or of all (the
 * `cluster:` prefix): the store's watch started before any list, so no
 * change falls between them; what it reported while a list was on its way
 * wins over that list.
 */
class StoreLeaseWatch final : public LeaseWatch
{
    Q_OBJECT
public:
    /*! Takes \a followed; \a name empty: every lease. */
    StoreLeaseWatch(StoreLeaseProtocol *protocol, StoreWatch *followed, const QString &name,
                    QObject *parent);
    ~StoreLeaseWatch() override;

    void list() override;
    bool isWatching() const override { return true; }

private:
    /*! The lease \a key names when this watch covers it; empty otherwise. */
    QString covered(const QString &key) const;

    QPointer<StoreLeaseProtocol> m_protocol;
    QPointer<StoreWatch> m_followed;
    QString m_name;
    bool m_listing = false;
    StoreLeaseProtocol::Touched m_touchedDuringList;
};

} // namespace baton
