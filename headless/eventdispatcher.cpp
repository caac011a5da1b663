#include "eventdispatcher.h"

#include <QProcessEnvironment>

namespace baton::eventdispatcher {

namespace {

const char variable[] = "QT_NO_GLIB";
bool added = false;

} // namespace

void preferUnix()
{
    // None of the commands integrates with a GLib main loop, and GLib's
    // dispatcher costs every baton join resident memory (issue #8). Kept for
    // the whole process, not only around the QCoreApplication: Qt's own
    // threads (the network access manager's, the host lookups') make their
    // dispatchers when they start.
    if (qEnvironmentVariableIsSet(variable))
        return;
    added = qputenv(variable, "1");
}

void restoreForChild(QProcessEnvironment *environment)
{
    if (added)
        environment->remove(QString::fromLatin1(variable));
}

} // namespace baton::eventdispatcher
