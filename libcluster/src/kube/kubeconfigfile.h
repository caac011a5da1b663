#pragma once

#include "kubeconfig.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace baton::kubeconfig {

/*!
 * Reads the kubeconfig \a files, merged as kubectl merges them (the first
 * file that sets a name wins), and fills \a config from the context in
 * \a options or the current one; \a contextNamespace is that context's
 * namespace, when it has one. False with \a errorString naming the file,
 * the entry and the field when something is wrong.
 */
bool fromKubeconfig(const QStringList &files, const KubeConfigOptions &options,
                    KubeClientConfig *config, QString *contextNamespace, QString *errorString);

/*!
 * Reads \a path (at most 4 MiB) into \a content; false with \a errorString
 * saying \a where the \a what (a CA file, a certificate) was named.
 */
bool readFile(const QString &path, QByteArray *content, const QString &what, const QString &where,
              QString *errorString);

} // namespace baton::kubeconfig
