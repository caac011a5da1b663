#pragma once

class QCoreApplication;

namespace baton::commandline {

int runDemo(QCoreApplication &app);

} // namespace baton::commandline
