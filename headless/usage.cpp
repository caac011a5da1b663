#include "usage.h"

#include "checkoptions.h"
#include "demooptions.h"
#include "draincommand.h"
#include "handovercommand.h"
#include "joinoptions.h"
#include "statusoptions.h"

namespace baton::usage {

namespace {

const char *const head = R"(Usage: baton COMMAND [OPTIONS]

Leader election for Qt applications.

Commands:
)";

const char *const tail = R"(  help           this text

Exit status:
  0    done (a stop by SIGTERM/SIGINT is a success)
  1    failed while running (store unreachable for status, listen failed)
  2    bad command line or configuration (nothing was started)
  3    join --exec --on-exit step-down: the command exited while leading;
       the lease was released
  4    join --try: this instance did not lead within DURATION
  5    join --once: leadership ended before the command finished; it was
       stopped (otherwise --once exits with the command's own status)
  77   join: an election's store refused the credentials 5 attempts in a
       row (a wrong etcd username or password, a refused Kubernetes
       token); the process stopped cleanly. A store that cannot be
       reached is retried for ever instead
  check and status --check have the monitoring plugins' statuses instead:
       0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN (their own command line is
       wrong; status --check: the store could not be read)
  130, 143
       a second SIGINT/SIGTERM during a clean stop: exited at once

Environment:
  BATON_CONFIG   the configuration of join, check, status, drain and
                 undrain when --config is not given
  BATON_DATA_DIR the data folder (default Registry: BATON_DATA_DIR/registry)
  BATON_PREFIX, BATON_CACERT, BATON_CERT, BATON_KEY, BATON_USER,
  BATON_PASSWORD_FILE
                 status --store: the flags of the same names, when not given
  BATON_OUTPUT_QUEUE_BYTES
                 join: how many bytes of event records, and of log lines,
                 may wait for a slow reader before they are dropped
                 (default 262144, at least 4096)
)";

} // namespace

std::string text()
{
    return std::string(head) + joinoptions::usage + statusoptions::usage + checkoptions::usage + handoveroptions::usage + drainoptions::usage + demooptions::usage + tail;
}

} // namespace baton::usage
