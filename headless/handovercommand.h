#pragma once

#include <QObject>
#include <QString>

namespace baton {

class LeaseObserver;

/*!
 * `baton handover LEASE --to INSTANCE`: asks the lease's holder, wherever it
 * runs, to hand the leadership over to INSTANCE with nobody leading in
 * between (`--to any`: a plain release). It writes the request into the
 * lease record and exits; the holder does the rest. Who asked
 * (user@host) goes into the lease's stored history.
 */
class HandoverCommand : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        QString lease;
        /*! An instance id, or "*" (`--to any`). */
        QString to;
        /*! `--to zone=b`: the candidate a label selector picks, instead of #to. */
        QString selector;
        /*! The Registry of this configuration; or, when empty, the store at storeUrl. */
        QString configPath;
        QString storeUrl;
    };

    explicit HandoverCommand(Options options, QObject *parent = nullptr);

    /*! Returns an exit code when over at once (a source that cannot be opened), or -1: finished() comes later. */
    int start();

Q_SIGNALS:
    void finished(int exitCode);

private:
    Options m_options;
    LeaseObserver *m_observer = nullptr;
};

/*! The command line of `baton handover`: its options, and its entry in `baton help`. */
namespace handoveroptions {

extern const char *const usage;

struct Parsed
{
    HandoverCommand::Options options;
    int exitCode = -1;
};
/*! Reads \a arguments (the program's: "handover" second); prints --help, or what is wrong. */
Parsed parse(const QStringList &arguments);

} // namespace handoveroptions

} // namespace baton
