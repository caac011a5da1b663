#pragma once

#include <QObject>
#include <QString>

namespace baton {

class Application;
class Service;
class Store;

/*!
 * What a service may ask of the application that owns it. The application
 * part implements it; the parts below it (core, stores) reach their
 * application through it and never see <baton/application.h>, so that the
 * layers of docs/architecture.md hold for the public headers too.
 *
 * One host per Application, found by the Application pointer each Service
 * is constructed with.
 */
class ServiceHost : public QObject
{
    Q_OBJECT
public:
    /*! Becomes the host of the services constructed with \a application. */
    explicit ServiceHost(const Application *application);
    ~ServiceHost() override;

    /*! The host of \a application, or nullptr when it has none (any more). */
    static ServiceHost *find(const Application *application);
    /*! The host of the application that owns \a service, or nullptr. */
    static ServiceHost *of(const Service &service);

    /*! Whether every service has started, and no stop was asked for since. */
    virtual bool isStarted() const = 0;
    /*! Where local state lives (Application::dataFolder()). */
    virtual QString dataFolder() const = 0;
    /*! The service configured as \a name, or nullptr. */
    virtual Service *service(const QString &name) const = 0;
    /*! The Registry store (Application::registry()), or nullptr. */
    virtual Store *registry() = 0;

Q_SIGNALS:
    /*! Every service has started: elections begin here (Application::started()). */
    void started();

private:
    const Application *m_application;
};

} // namespace baton
