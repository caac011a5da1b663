// Application::loadConfig on arbitrary bytes (R1, C2): a refused
// configuration gets a message that names the source, creates no service and
// leaves the Application able to load a good configuration afterwards.

#include "fuzzsupport.h"

#include <baton/application.h>
#include <baton/service.h>

#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    baton::fuzz::ensureCoreApplication();
    // FileStore and the default Registry resolve their folder against it:
    // keep whatever a configuration names away from the user's data.
    static QTemporaryDir dataDir;
    qputenv("BATON_DATA_DIR", dataDir.path().toLocal8Bit());

    const QByteArray json = baton::fuzz::bytes(data, size);
    const QString source = QStringLiteral("fuzz.json");
    baton::Application app;
    const auto childrenBefore = app.children().size();
    QString error;
    if (!app.loadConfig(json, source, &error)) {
        FUZZ_CHECK(!error.isEmpty(), QString());
        FUZZ_CHECK(error.startsWith(source), error); // says where
        FUZZ_CHECK(app.services().isEmpty(), error); // nothing half-built
        FUZZ_CHECK(app.children().size() == childrenBefore, error);
        // Changed nothing: the same Application still takes a good configuration.
        QString second;
        FUZZ_CHECK(app.loadConfig(R"({"services": {"Registry": {"type": "Webda/MemoryStore"}}})",
                                  source, &second),
                   second);
        FUZZ_CHECK(app.services().size() == 1, second);
        return 0;
    }
    // Accepted: one service per entry of "services", each under its own name.
    const QJsonObject services = QJsonDocument::fromJson(json).object().value(QStringLiteral("services")).toObject();
    FUZZ_CHECK(app.services().size() == services.size(), QString::fromUtf8(json));
    for (baton::Service *service : app.services()) {
        FUZZ_CHECK(services.contains(service->name()), service->name());
        FUZZ_CHECK(app.service(service->name()) == service, service->name());
    }
    return 0;
}
