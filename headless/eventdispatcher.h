#pragma once

class QProcessEnvironment;

namespace baton::eventdispatcher {

/*!
 * Before the QCoreApplication: Qt's own UNIX event dispatcher instead of
 * GLib's, in every thread of this process (Qt reads QT_NO_GLIB whenever it
 * makes a thread's dispatcher), unless the environment already chose.
 */
void preferUnix();

/*!
 * Takes out of \a environment what preferUnix() added: a child gets the
 * environment baton was given.
 */
void restoreForChild(QProcessEnvironment *environment);

} // namespace baton::eventdispatcher
