#include "application_p.h"

#include "configscanner.h"
#include "jsonutil.h"
#include "logging.h"
#include "parameters.h"

#include <baton/clusterservice.h>
#include <baton/servicefactory.h>
#include <baton/store.h>

#include <QFile>
#include <QJsonDocument>

// Reading a configuration is a job of its own: every service it names is
// made and checked here, before any of them starts.
namespace baton {

bool Application::loadConfigFile(const QString &path, QString *errorString)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *errorString = QStringLiteral("%1: cannot read the configuration: %2")
                               .arg(path, file.errorString());
        return false;
    }
    return loadConfig(file.readAll(), path, errorString);
}

bool Application::loadConfig(const QByteArray &json, const QString &sourceName,
                             QString *errorString)
{
    if (d->initialised) {
        *errorString = QStringLiteral("%1: the application has already started: load its "
                                      "configuration before init()")
                               .arg(sourceName);
        return false;
    }
    if (!d->sourceName.isEmpty()) {
        *errorString = QStringLiteral("%1: a configuration is already loaded, from %2: an "
                                      "application reads one")
                               .arg(sourceName, d->sourceName);
        return false;
    }
    if (!d->services.isEmpty()) {
        // Elections added in code come after the file's services (C2: the
        // file's order is the start order), so the file must come first.
        *errorString = QStringLiteral("%1: services were already added in code "
                                      "(Application::addCluster): load the configuration "
                                      "first, then add them")
                               .arg(sourceName);
        return false;
    }
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        int line = 0, column = 0;
        jsonutil::lineAndColumn(json, parseError.offset, &line, &column);
        *errorString = QStringLiteral("%1:%2:%3: malformed JSON: %4")
                               .arg(sourceName)
                               .arg(line)
                               .arg(column)
                               .arg(parseError.errorString());
        return false;
    }
    if (!document.isObject()) {
        *errorString = QStringLiteral("%1: the configuration must be a JSON object "
                                      "{\"services\": {...}}")
                               .arg(sourceName);
        return false;
    }
    // A misspelt "services" would leave an application with no service at
    // all, which elects nothing and says nothing: refused like any typo (P1).
    const QStringList rootKeys {QStringLiteral("services")};
    for (const QString &key : document.object().keys()) {
        if (rootKeys.contains(key))
            continue;
        const QString suggestion = parameters::closest(key, rootKeys);
        *errorString = QStringLiteral("%1: key \"%2\" = %3: unknown key at the top of the "
                                      "configuration, %4")
                               .arg(sourceName, key, parameters::shownValue(key, document.object().value(key)),
                                    suggestion.isEmpty()
                                            ? QStringLiteral("which holds only \"services\"")
                                            : QStringLiteral("did you mean \"%1\"?").arg(suggestion));
        return false;
    }
    const QJsonValue servicesValue = document.object().value(QStringLiteral("services"));
    if (!servicesValue.isUndefined() && !servicesValue.isObject()) {
        *errorString = QStringLiteral("%1: \"services\" must be an object of named services, not %2")
                               .arg(sourceName, jsonutil::describe(servicesValue));
        return false;
    }
    const QJsonObject servicesObject = servicesValue.toObject();

    QList<Service *> created;
    QHash<QString, ConfiguredService> locations;
    auto fail = [&](const QString &message) {
        qDeleteAll(created);
        *errorString = message;
        return false;
    };
    const QList<ConfiguredService> configuredServices = servicesInFileOrder(json);
    for (const ConfiguredService &configured : configuredServices) {
        if (configured.earlierLine == 0)
            continue;
        return fail(QStringLiteral("%1:%2:%3: service \"%4\" is defined twice, first at line %5 "
                                   "column %6: only one of them would be used, without a word; "
                                   "keep one")
                            .arg(sourceName)
                            .arg(configured.line)
                            .arg(configured.column)
                            .arg(configured.name)
                            .arg(configured.earlierLine)
                            .arg(configured.earlierColumn));
    }
    // Every service is read, so that all the mistakes are told at once,
    // each on its line, in file order.
    QStringList errors;
    for (const ConfiguredService &configured : configuredServices) {
        const QString where = QStringLiteral("%1:%2:%3")
                                      .arg(sourceName)
                                      .arg(configured.line)
                                      .arg(configured.column);
        for (const ConfiguredService::Repeat &repeat : configured.repeatedParameters)
            errors.append(QStringLiteral("%1:%2:%3: service \"%4\": parameter \"%5\" is given twice, "
                                         "first at line %6 column %7: only the last would be used, "
                                         "without a word; keep one")
                                  .arg(sourceName)
                                  .arg(repeat.at.line)
                                  .arg(repeat.at.column)
                                  .arg(configured.name, repeat.key)
                                  .arg(repeat.earlier.line)
                                  .arg(repeat.earlier.column));
        const QJsonValue entry = servicesObject.value(configured.name);
        const QString problem
                = entryProblem(where, configured.name, entry, ServiceFactory::types());
        if (!problem.isEmpty()) {
            errors.append(problem);
            continue;
        }
        const QJsonObject parameters = entry.toObject();
        const QJsonValue type = parameters.value(QStringLiteral("type"));
        const QString fullType = ServiceFactory::resolve(type.toString());
        Service *service = fullType.isEmpty()
                ? nullptr
                : ServiceFactory::create(fullType, configured.name, parameters, this);
        if (!service) {
            errors.append(
                    QStringLiteral("%1: service \"%2\": unknown type \"%3\" (known types: %4)")
                            .arg(where, configured.name, type.toString(),
                                 ServiceFactory::types().join(QStringLiteral(", "))));
            continue;
        }
        service->setType(fullType);
        service->setParent(this);
        created.append(service);
        // P1: what a type does not know is refused before anything starts;
        // a type that declared nothing is not checked.
        const QStringList declared = ServiceFactory::parameters(fullType);
        const QString unknown = declared.isEmpty()
                ? QString()
                : parameters::refuseUnknown(
                          ParameterReader::describeService(configured.name, fullType), parameters,
                          declared);
        if (!unknown.isEmpty())
            errors.append(locateRefusal(sourceName, configured, unknown));
        locations.insert(configured.name, configured);
    }
    if (!errors.isEmpty())
        return fail(errors.join(QLatin1Char('\n')));
    if (created.size() != servicesObject.size())
        return fail(QStringLiteral("%1: could not read the order of the services").arg(sourceName));
    d->services = created;
    d->locations = locations;
    d->sourceName = sourceName;
    return true;
}

} // namespace baton
