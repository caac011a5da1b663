#pragma once

#include <baton/baton_export.h>

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <functional>

namespace baton {

class Application;
class Service;

/*!
 * The types an application configuration may name (C2). Each type is
 * registered under its full name (`Webda/FileStore`) and is also known by
 * its short name (`FileStore`). The built-in types are registered before
 * the first look-up; a program adds its own with registerType().
 */
class BATON_EXPORT ServiceFactory
{
public:
    /*! Creates a service of one type: its name, its parameters, its application. */
    using Creator = std::function<Service *(const QString &name, const QJsonObject &parameters,
                                            Application *application)>;

    /*!
     * Registers \a fullName (`Vendor/Name`). A later registration of the same
     * name replaces it. \a declared lists the parameters the type
     * takes (`tls.ca` declares the block `tls` and its key `ca`; `type` is
     * always allowed): a configuration that sets any other is refused before
     * anything starts (P1), with a suggestion for a typo. A type that
     * declares nothing is not checked.
     */
    static void registerType(const QString &fullName, Creator creator,
                             const QStringList &declared = {});
    /*! The full name for a full or short name, or an empty string when unknown. */
    static QString resolve(const QString &typeName);
    /*! The parameters \a typeName declared, or an empty list when it declared none. */
    static QStringList parameters(const QString &typeName);
    /*! The full names of every registered type. */
    static QStringList types();
    /*! Creates an instance, or returns nullptr when the type is unknown. */
    static Service *create(const QString &typeName, const QString &name,
                           const QJsonObject &parameters, Application *application);

    /*!
     * Registers \a fullName for the Service subclass \a T, built with T's
     * constructor `(name, parameters, application)`, taking the parameters
     * \a declared (see above).
     */
    template<typename T>
    static void registerType(const QString &fullName, const QStringList &declared = {})
    {
        registerType(
                fullName,
                [](const QString &name, const QJsonObject &parameters, Application *app) {
                    return new T(name, parameters, app);
                },
                declared);
    }
};

} // namespace baton
