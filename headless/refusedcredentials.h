#pragma once

#include <QHash>
#include <QObject>
#include <QString>

namespace baton {

class ClusterService;

/*!
 * Tells `baton join` when an election's store keeps refusing its
 * credentials: that many attempts in a row whose error the backend typed
 * as refused credentials (the `attempt` record's `errorKind`), any other
 * attempt starting the count again. Retrying with the same credentials
 * cannot help; a store that cannot be reached can come back, so its
 * errors never count. The library itself never gives up: only the
 * command that follows this decides to exit.
 */
class RefusedCredentials : public QObject
{
    Q_OBJECT
public:
    /*! Attempts refused in a row before join gives up. */
    static constexpr int limit = 5;

    explicit RefusedCredentials(QObject *parent = nullptr);

    /*! Counts the attempts of \a cluster. */
    void follow(ClusterService *cluster);

Q_SIGNALS:
    /*! The limit was reached in \a cluster's election; \a lastError is its last attempt's. Once. */
    void givingUp(baton::ClusterService *cluster, const QString &lastError);

private:
    void onEvent(ClusterService *cluster, const class QJsonObject &event);

    QHash<ClusterService *, int> m_inARow;
    bool m_gaveUp = false;
};

} // namespace baton
