#pragma once

#include <QString>

namespace baton {

/*! Who asks, for the lease's history and a drain's record: the login name and the host. */
QString operatorName();

} // namespace baton
