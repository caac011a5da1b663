# `systemd-analyze verify` on every unit of resources/systemd (O3: the
# participant as systemd runs it), as installed: ExecStart names the built
# `baton`, templates are verified through an instance. Any message fails the
# test, not only a non-zero status: systemd ignores (and only warns about) a
# line it cannot parse, such as a misspelt Type=.
# Arguments: -DUNITS_DIR=... -DBATON=... -DWORK_DIR=... -DSYSTEMD_ANALYZE=...
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
file(GLOB units ${UNITS_DIR}/*.service ${UNITS_DIR}/*.timer)
if(NOT units)
  message(FATAL_ERROR "no units in ${UNITS_DIR}")
endif()
set(paths "")
foreach(unit ${units})
  get_filename_component(name ${unit} NAME)
  file(READ ${unit} text)
  string(REPLACE "/usr/local/bin/baton " "${BATON} " text "${text}")
  # A template is verified as an instance of it, as systemctl would start it.
  string(REPLACE "@." "@verify." name "${name}")
  file(WRITE ${WORK_DIR}/${name} "${text}")
  list(APPEND paths ${WORK_DIR}/${name})
  if(name MATCHES "\\.service$" AND NOT text MATCHES "\nType=notify\n")
    message(SEND_ERROR "${name}: not Type=notify")
  endif()
  if(text MATCHES "\nDynamicUser=yes" AND NOT text MATCHES "\nLoadCredential=config:")
    message(SEND_ERROR "${name}: DynamicUser= without the configuration as a credential would need a world-readable configuration")
  endif()
endforeach()
execute_process(COMMAND ${SYSTEMD_ANALYZE} verify --man=no ${paths}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("$ systemd-analyze verify --man=no ${paths}\n${out}${err}")
if(NOT rc EQUAL 0 OR NOT "${out}${err}" STREQUAL "")
  message(FATAL_ERROR "systemd-analyze verify found problems in the units")
endif()
list(LENGTH paths count)
message("${count} units verified")
