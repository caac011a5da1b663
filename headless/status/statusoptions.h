#pragma once

class QCoreApplication;

namespace baton::commandline {

int runStatus(QCoreApplication &app);

} // namespace baton::commandline
