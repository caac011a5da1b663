# Builds the Debian package of the build tree into a fresh folder, prints its
# control data and contents, and fails when a part a user installs it for is
# missing. Arguments: -DBUILD_DIR=... -DWORK_DIR=... -DCPACK=... -DGUI=ON|OFF
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

function(run out)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
  message("$ ${ARGN}\n${stdout}${stderr}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc})")
  endif()
  set(${out} "${stdout}" PARENT_SCOPE)
endfunction()

run(ignored ${CPACK} -G DEB --config ${BUILD_DIR}/CPackConfig.cmake -B ${WORK_DIR})
file(GLOB debs ${WORK_DIR}/*.deb)
list(LENGTH debs count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "expected one .deb in ${WORK_DIR}, found: ${debs}")
endif()
run(info dpkg-deb --info ${debs})
run(contents dpkg-deb --contents ${debs})

# What someone installs the package for, as regular expressions on the listing.
set(expected
  "usr/lib/([^ /]+/)?libbatoncluster\\.so\\.[0-9]"          # the library
  "usr/lib/([^ /]+/)?libbatoncluster\\.so -> "              # the development link
  "usr/include/baton/clusterservice\\.h"                # the public headers
  "usr/include/baton/leadertimer\\.h"
  "usr/include/baton/baton_export\\.h"
  "usr/lib/([^ /]+/)?cmake/Baton/BatonConfig\\.cmake"       # find_package(Baton)
  "usr/lib/([^ /]+/)?cmake/Baton/BatonTargets\\.cmake"
  "usr/lib/([^ /]+/)?pkgconfig/baton-cluster\\.pc"          # pkg-config
  "usr/bin/baton\n"                                     # the executable
  "usr/lib/([^ /]+/)?baton/baton-status\\.so"             # --listen's module, relative to `baton`
  "usr/lib/systemd/system/baton-join\\.service"
  "usr/share/man/man1/baton\\.1"                          # baton(1), from --help
  "usr/share/bash-completion/completions/baton\n"       # the completions
  "usr/share/zsh/site-functions/_baton")
if(GUI)
  # The dashboard module, which `baton` loads relative to its own folder.
  list(APPEND expected "usr/lib/([^ /]+/)?baton/baton-dashboard\\.so")
endif()
set(missing "")
foreach(pattern ${expected})
  if(NOT contents MATCHES "${pattern}")
    list(APPEND missing "${pattern}")
  endif()
endforeach()
if(NOT info MATCHES "Depends:[^\n]*libqt6core6")
  list(APPEND missing "a Depends on Qt (dpkg-shlibdeps)")
endif()
if(missing)
  message(FATAL_ERROR "the package lacks: ${missing}")
endif()
message("the package has the library, headers, CMake package, pkg-config module, binary, modules, unit, manual and completions")
