#pragma once

class QCoreApplication;

namespace baton::commandline {

int runJoin(QCoreApplication &app);

} // namespace baton::commandline
