# `systemd-analyze verify` on every unit of resources/systemd (O3: the
# participant as systemd runs it), the shipped files as they are: no copy,
# no edit. They name /usr/bin/baton, where the package installs it; verify
# wants that file to be executable, so systemd-analyze runs in a mount
# namespace of its own (unshare, unprivileged: a user namespace) where an
# overlay on /usr/bin adds the built `baton` as /usr/bin/baton. Nothing
# outside that namespace sees it. A template is verified as systemd-analyze
# instantiates it (NAME@i.service). Any message fails the test, not only a
# non-zero status: systemd ignores (and only warns about) a line it cannot
# parse, such as a misspelt Type=.
# Arguments: -DUNITS_DIR=... -DBATON=... -DWORK_DIR=... -DSYSTEMD_ANALYZE=... -DUNSHARE=...
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
file(GLOB units ${UNITS_DIR}/*.service ${UNITS_DIR}/*.timer)
if(NOT units)
  message(FATAL_ERROR "no units in ${UNITS_DIR}")
endif()
set(paths ${units})
foreach(unit ${units})
  get_filename_component(name ${unit} NAME)
  file(READ ${unit} text)
  # The packages install baton as /usr/bin/baton and the documentation in
  # /usr/share/doc/baton (tests/package): the units name those.
  string(REGEX MATCHALL "\nExec[A-Za-z]*=[^\n]*" exec_lines "${text}")
  foreach(line ${exec_lines})
    if(NOT line MATCHES "=[-@:+!]*/usr/bin/baton ")
      message(SEND_ERROR "${name}: ${line}: not the packaged /usr/bin/baton")
    endif()
  endforeach()
  string(REGEX MATCHALL "\nDocumentation=[^\n]*" doc_lines "${text}")
  foreach(line ${doc_lines})
    if(NOT line MATCHES "=file:///usr/share/doc/baton/")
      message(SEND_ERROR "${name}: ${line}: not the packaged /usr/share/doc/baton")
    endif()
  endforeach()
  # R8 and the README: the processes of one host share the default Registry,
  # units included. Every unit that runs baton as a dynamic user runs it as
  # one user, in one state folder, owner-only (the mode the FileStore folder
  # has), whatever its instance: nothing of these lines may name %i.
  if(text MATCHES "\nDynamicUser=yes")
    foreach(key User Group StateDirectory StateDirectoryMode Environment=BATON_DATA_DIR)
      string(REGEX MATCH "\n${key}=([^\n]*)" line "${text}")
      set(value "${CMAKE_MATCH_1}")
      string(MAKE_C_IDENTIFIER "shared_${key}" var)
      if(value STREQUAL "" OR value MATCHES "%")
        message(SEND_ERROR "${name}: ${key}= \"${value}\" is not one value for every instance")
      endif()
      if(DEFINED ${var} AND NOT ${var} STREQUAL value)
        message(SEND_ERROR "${name}: ${key}=${value}, another unit has ${${var}}: the default Registry is not shared")
      endif()
      set(${var} "${value}")
    endforeach()
    if(NOT shared_StateDirectoryMode STREQUAL "0700")
      message(SEND_ERROR "${name}: StateDirectoryMode=${shared_StateDirectoryMode}, the Registry's folder is 0700")
    endif()
    if(NOT "/var/lib/${shared_StateDirectory}" STREQUAL "${shared_Environment_BATON_DATA_DIR}")
      message(SEND_ERROR "${name}: BATON_DATA_DIR=${shared_Environment_BATON_DATA_DIR} is not the state folder /var/lib/${shared_StateDirectory}")
    endif()
  endif()
  if(name MATCHES "\\.service$" AND NOT text MATCHES "\nType=notify\n")
    message(SEND_ERROR "${name}: not Type=notify")
  endif()
  if(text MATCHES "\nDynamicUser=yes" AND NOT text MATCHES "\nLoadCredential=config:")
    message(SEND_ERROR "${name}: DynamicUser= without the configuration as a credential would need a world-readable configuration")
  endif()
endforeach()
file(MAKE_DIRECTORY ${WORK_DIR}/bin)
file(CREATE_LINK ${BATON} ${WORK_DIR}/bin/baton SYMBOLIC)
execute_process(COMMAND ${UNSHARE} --mount --map-root-user sh -c
                        "mount -t overlay baton-units -o lowerdir=\"$1\":/usr/bin /usr/bin || exit 125; shift; exec \"$@\""
                        sh ${WORK_DIR}/bin ${SYSTEMD_ANALYZE} verify --man=no ${paths}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("$ systemd-analyze verify --man=no ${paths}\n  (with ${BATON} as /usr/bin/baton)\n${out}${err}")
if(rc EQUAL 125 OR rc MATCHES "[^0-9]")
  message(FATAL_ERROR "could not give systemd-analyze a /usr/bin/baton (unshare and an overlay mount: ${rc})")
endif()
if(NOT rc EQUAL 0 OR NOT "${out}${err}" STREQUAL "")
  message(FATAL_ERROR "systemd-analyze verify found problems in the units")
endif()
list(LENGTH paths count)
message("${count} units verified")
