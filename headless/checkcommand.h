#pragma once

#include <memory>
#include <QObject>
#include <QString>

namespace baton {

class Application;
class ClusterService;
class ElectionProbe;

/*!
 * `baton check`: whether `baton join` could run with a configuration, told
 * as monitoring plugins tell it (verdict.h): an exit status (0 OK, 1
 * warning, 2 critical, 3 unknown) and a first line "OK - ...", then one
 * line per step. The configuration is loaded as join loads it
 * (electionconfig), so that everything join refuses is critical with
 * join's own words; then each election's store is visited
 * (ElectionProbe), one after the other, without taking part in any
 * election and without changing data.
 */
class CheckCommand : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        QString configPath;
    };

    explicit CheckCommand(Options options, QObject *parent = nullptr);
    ~CheckCommand() override;

    /*! Returns an exit code when over at once (a refused configuration), or -1: finished() comes
     * later. */
    int start();

Q_SIGNALS:
    void finished(int exitCode);

private:
    /*! What join's start refuses, refused the same way, with no election begun. */
    bool initWithoutElecting(QString *errorString);
    void probeNext();
    void report();

    Options m_options;
    std::unique_ptr<Application> m_application;
    QList<ClusterService *> m_clusters;
    QList<ElectionProbe *> m_probes;
};

} // namespace baton
