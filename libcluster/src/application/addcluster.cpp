#include "application_p.h"
#include "electionconfig.h"
#include "parameters.h"

#include <baton/clusterservice.h>
#include <baton/servicefactory.h>

namespace baton {

ClusterService *Application::addCluster(const QString &name, const ElectionOptions &options,
                                        QString *errorString)
{
    if (d->initialised || d->initialising) {
        *errorString = QStringLiteral("service \"%1\": the application is already initialised: "
                                      "add services before init()")
                           .arg(name);
        return nullptr;
    }
    if (service(name)) {
        *errorString = QStringLiteral("service \"%1\" is defined twice: give this election "
                                      "another name")
                           .arg(name);
        return nullptr;
    }
    // The code path of a configuration file's entry (loadConfig()), so that
    // both are read and refused alike (P1).
    const QJsonObject entry = electionEntry(options);
    const QString fullType = entry.value(QStringLiteral("type")).toString();
    Service *created = ServiceFactory::create(fullType, name, entry, this);
    auto *cluster = qobject_cast<ClusterService *>(created);
    if (!cluster) {
        delete created; // a program registered another kind of service under the name
        *errorString = QStringLiteral("service \"%1\": the type \"%2\" makes no cluster service")
                           .arg(name, fullType);
        return nullptr;
    }
    cluster->setType(fullType);
    cluster->setParent(this);
    const QStringList declared = ServiceFactory::parameters(fullType);
    const QString unknown = declared.isEmpty()
        ? QString()
        : parameters::refuseUnknown(ParameterReader::describeService(name, fullType), entry,
                                    declared);
    if (!unknown.isEmpty()) {
        delete cluster;
        *errorString = unknown;
        return nullptr;
    }
    d->services.append(cluster);
    // Built in code: no place in a file (line 0), so init() puts no file's
    // name in front of its refusal.
    ConfiguredService inCode;
    inCode.name = name;
    d->locations.insert(name, inCode);
    return cluster;
}

} // namespace baton
