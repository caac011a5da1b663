#pragma once

#include <QByteArray>
#include <QString>

namespace baton::test {

/*!
 * What the suite produced, by kind, for the secrets scan (R2,
 * tests/secrets): the scan fails when a kind is missing, so each kind names
 * a promise that some test keeps what it produced.
 */
enum class ArtifactKind {
    ParticipantLog, //!< a `baton` process's standard error
    Events,         //!< a `baton join` process's standard output (the O5 stream)
    Metrics,        //!< a /metrics body fetched by a test
    Status,         //!< `baton status` output (table, JSON lines)
    Export,         //!< an exported failover history (CSV, JSON)
    Settings,       //!< a settings file the dashboard wrote
    CapturedLog,    //!< log lines a test captured with its own message handler
};

/*! The folder name of \a kind under the artifacts folder. */
QString artifactKindName(ArtifactKind kind);

/*!
 * Keeps \a content as BATON_TEST_ARTIFACTS/KIND/BATON_TEST_NAME/NAME (a
 * numbered name when that one exists). CTest sets both variables
 * (tests/CMakeLists.txt); run by hand, without them, nothing is kept.
 */
void keepArtifact(ArtifactKind kind, const QString &name, const QByteArray &content);

/*! Keeps a copy of the file at \a path, as it is now, under its file name. */
void keepArtifactFile(ArtifactKind kind, const QString &path);

} // namespace baton::test
