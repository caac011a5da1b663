#pragma once

#include <batoninternal/batoninternal_export.h>

#include <QFileDevice>
#include <QSaveFile>
#include <QString>

namespace baton {

/*!
 * Files and folders that Baton creates are its user's alone (R2):
 * 0600 and 0700 whatever the umask, set when they are created, never
 * widened after. What already exists keeps its mode: a folder the user
 * named and made (a shared store folder, say), or a file the user chose
 * to share, is the user's decision, not ours.
 */
namespace privatefiles {

constexpr QFileDevice::Permissions kFile = QFileDevice::ReadOwner | QFileDevice::WriteOwner;
constexpr QFileDevice::Permissions kFolder
        = QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner;

/*!
 * Creates \a path and each missing folder above it, each 0700; leaves
 * existing ones as they are. Another process creating the same folder at
 * the same moment is no error.
 */
BATON_INTERNAL_EXPORT bool makeFolder(const QString &path);

/*!
 * Makes sure \a path exists before a writer that would create it with the
 * umask's mode (QSettings, QSaveFile) writes it: a missing file is created
 * empty, 0600, in folders made by makeFolder(); writers that replace a file
 * keep the mode of the one they replace.
 */
BATON_INTERNAL_EXPORT bool prepareFile(const QString &path);

/*!
 * Opens \a file for writing; a file that does not exist yet will be 0600
 * (QSaveFile's own choice is the umask's), one that exists keeps its mode.
 * False, with the file's errorString(), when it cannot.
 */
BATON_INTERNAL_EXPORT bool openForWriting(QSaveFile &file);

} // namespace privatefiles
} // namespace baton
