# Builds the Debian packages of the build tree into a fresh folder, checks
# what each holds and depends on, and runs lintian on them: no error may
# remain (the warnings left, and why, are in docs/testing.md).
# Arguments: -DBUILD_DIR=... -DWORK_DIR=... -DCPACK=... -DGUI=ON|OFF -DLINTIAN=... -DSOVERSION=N
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

set(packages baton libbatoncluster${SOVERSION} libbatoncluster-dev)
if(GUI)
  list(APPEND packages baton-dashboard)
endif()
set(problems "")
set(debs "")
foreach(package ${packages})
  file(GLOB deb ${WORK_DIR}/${package}_*.deb)
  list(LENGTH deb count)
  if(NOT count EQUAL 1)
    message(FATAL_ERROR "expected one ${package}_*.deb in ${WORK_DIR}, found: ${deb}")
  endif()
  list(APPEND debs ${deb})
  run(info_${package} dpkg-deb --info ${deb})
  run(contents_${package} dpkg-deb --contents ${deb})
endforeach()

# expect(PACKAGE has|lacks PATTERN...): regular expressions on the listing.
function(expect package mode)
  foreach(pattern ${ARGN})
    if(mode STREQUAL "has" AND NOT contents_${package} MATCHES "${pattern}")
      list(APPEND problems "${package} lacks ${pattern}")
    elseif(mode STREQUAL "lacks" AND contents_${package} MATCHES "${pattern}")
      list(APPEND problems "${package} must not hold ${pattern}")
    endif()
  endforeach()
  set(problems "${problems}" PARENT_SCOPE)
endfunction()

set(multiarch "usr/lib/[a-z0-9_]+-linux-gnu[a-z0-9_]*")
expect(libbatoncluster${SOVERSION} has "${multiarch}/libbatoncluster\\.so\\.${SOVERSION} -> " "${multiarch}/libbatoncluster\\.so\\.${SOVERSION}\\.")
expect(libbatoncluster${SOVERSION} lacks "usr/include" "libbatoncluster\\.so -> " "usr/bin")
expect(libbatoncluster-dev has
  "${multiarch}/libbatoncluster\\.so -> "            # the development link
  "usr/include/baton/clusterservice\\.h"              # the public headers
  "usr/include/baton/leadertimer\\.h"
  "usr/include/baton/baton_export\\.h"
  "${multiarch}/cmake/Baton/BatonConfig\\.cmake"      # find_package(Baton)
  "${multiarch}/cmake/Baton/BatonTargets\\.cmake"
  "${multiarch}/pkgconfig/baton-cluster\\.pc")         # pkg-config
expect(libbatoncluster-dev lacks "libbatoncluster\\.so\\.${SOVERSION}\\.")
expect(baton has
  "usr/bin/baton\n"                                    # the executable
  "${multiarch}/baton/baton-status\\.so"               # --listen's module, relative to `baton`
  "${multiarch}/baton/baton-exec-guard\n"             # --exec's guard, relative to `baton`
  "usr/lib/systemd/system/baton-join@\\.service"
  "usr/lib/systemd/system/baton-job@\\.service"
  "usr/lib/systemd/system/baton-job@\\.timer"
  "usr/share/doc/baton/howto/systemd\\.md"           # the units' Documentation=
  "usr/share/doc/baton/reference/command-line\\.md"
  "usr/share/doc/baton/safety\\.md"
  "usr/share/doc/baton/copyright"
  "usr/share/man/man1/baton\\.1\\.gz"                      # baton(1), from --help
  "usr/share/bash-completion/completions/baton\n"       # the completions
  "usr/share/zsh/site-functions/_baton")
expect(baton lacks "baton-dashboard\\.so" "usr/share/applications" "usr/include")
if(GUI)
  expect(baton-dashboard has "${multiarch}/baton/baton-dashboard\\.so" "usr/share/applications/baton\\.desktop"
         "usr/share/icons/hicolor/scalable/apps/baton\\.svg" "usr/share/metainfo/baton\\.metainfo\\.xml")
  expect(baton-dashboard lacks "usr/bin/baton\n")
  if(NOT info_baton-dashboard MATCHES "Depends:[^\n]*baton \\(")
    list(APPEND problems "baton-dashboard does not depend on baton")
  endif()
endif()

# A server installs `baton` without the desktop: no Qt Widgets or GUI, no X11,
# no keychain; dpkg-shlibdeps wrote what its binaries do link.
string(REGEX MATCH "Depends:[^\n]*" baton_depends "${info_baton}")
message("baton ${baton_depends}")
foreach(unwanted libqt6widgets libqt6gui libx11 libxcb keychain libgl)
  if(baton_depends MATCHES "${unwanted}")
    list(APPEND problems "baton depends on ${unwanted}")
  endif()
endforeach()
foreach(wanted libqt6core6 libbatoncluster${SOVERSION})
  if(NOT baton_depends MATCHES "${wanted}")
    list(APPEND problems "baton does not depend on ${wanted}")
  endif()
endforeach()
if(NOT info_libbatoncluster-dev MATCHES "Depends:[^\n]*libbatoncluster${SOVERSION} \\(= ")
  list(APPEND problems "libbatoncluster-dev does not depend on this version of libbatoncluster${SOVERSION}")
endif()
if(NOT info_libbatoncluster-dev MATCHES "Depends:[^\n]*qt6-base-dev")
  list(APPEND problems "libbatoncluster-dev does not depend on Qt's development files")
endif()

if(NOT LINTIAN)
  list(APPEND problems "lintian is not installed (Debian: lintian; ./setup.sh installs it)")
else()
  execute_process(COMMAND ${LINTIAN} --no-tag-display-limit ${debs}
                  OUTPUT_VARIABLE lintian_out ERROR_VARIABLE lintian_err)
  message("$ lintian ${debs}\n${lintian_out}${lintian_err}")
  string(REGEX MATCHALL "(^|\n)E: [^\n]*" errors "${lintian_out}")
  if(errors)
    list(APPEND problems "lintian errors:${errors}")
  endif()
endif()

if(problems)
  string(REPLACE ";" "\n  " problems "${problems}")
  message(FATAL_ERROR "the packages are not right:\n  ${problems}")
endif()
message("packages ${packages}: contents, dependencies and lintian as expected")
