#pragma once

#include <batoninternal/batoninternal_export.h>

#include <QString>
#include <QStringList>

namespace baton::parameters {

/*! The candidate closest to \a word by edit distance, when it is close enough to be a typo. */
BATON_INTERNAL_EXPORT QString closest(const QString &word, const QStringList &candidates);

} // namespace baton::parameters
