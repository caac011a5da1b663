#pragma once

#include "processsignal.h"

#include <QList>
#include <QPair>
#include <QtGlobal>

#include <vector>

namespace baton::execsweep {

// While what a dead guard left behind outlives SIGKILL for a moment
// (exiting, or not yet reparented here), the sweep looks again this often;
// past the bound it names what is left and goes on, as the guard does.
constexpr int sweepRescanMs = 20;
constexpr qint64 sweepGiveUpMs = 5000;

using execguard::ProcessIdentity;

/*! A process named for good: its pid and its start time. */
QPair<qint64, quint64> identity(const ProcessIdentity &process);

/*!
 * What a dead guard left behind: children of this process outside its own
 * process group, except \a keep, and everything below them. The guard and
 * the command each got a group of their own, so whatever the command
 * started is in neither this process's group nor its session; a helper the
 * library starts (a credential plugin) stays in this process's group. \a keep
 * names processes by pid and start time, so that a pid used again is not
 * spared for what an earlier process of that pid did.
 */
std::vector<ProcessIdentity> strays(const QList<QPair<qint64, quint64>> &keep);

} // namespace baton::execsweep
