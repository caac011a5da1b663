#pragma once

#include <baton/baton_export.h>

#include <QJsonObject>
#include <QObject>
#include <QString>

#include <memory>

namespace baton {

class Application;
class ServiceHost;
class ServicePrivate;

/*!
 * One configured part of an application (C2): a store, a cluster
 * service, or a type of the program's own. Services are built by the
 * ServiceFactory from `{"type": ..., parameters...}`, initialised in
 * configuration order and stopped in reverse order (Application::stop()
 * stops cluster services configured next to each other together).
 */
class BATON_EXPORT Service : public QObject
{
    Q_OBJECT
public:
    /*!
     * The service configured as \a name with \a parameters (the JSON object
     * of its entry, `type` included), owned by \a application.
     */
    Service(const QString &name, const QJsonObject &parameters, Application *application);
    ~Service() override;

    /*! The name of the service in the configuration, e.g. `Registry`. */
    QString name() const;
    /*! The full type name the service was created with, e.g. `Webda/FileStore`. */
    QString type() const;
    /*! The service's entry in the configuration. */
    QJsonObject parameters() const;
    /*! The application that owns the service, or nullptr. */
    Application *application() const;

    /*!
     * Checks the parameters and starts the service. Returns false and fills
     * \a errorString (naming the service, the parameter, the value and the
     * rule) when it refuses; a refused service has changed nothing.
     */
    virtual bool init(QString *errorString) = 0;

    /*!
     * Stops the service. Stopping may take time (a leader waits for its
     * deregistered callbacks, F5): stopped() is emitted once, when done,
     * never from within this call.
     */
    virtual void stop();

Q_SIGNALS:
    /*! The service has finished stopping (see stop()). */
    void stopped();

protected:
    /*! Emits stopped() on the next event-loop turn, exactly once. */
    void finishStop();

private:
    friend class Application;
    friend class ServiceHost;
    void setType(const QString &type);
    std::unique_ptr<ServicePrivate> d;
};

} // namespace baton
