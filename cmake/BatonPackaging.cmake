# Debian packages, one per kind of machine that installs Baton:
#
# | package              | component   | what                                                      |
# |----------------------|-------------|-----------------------------------------------------------|
# | baton                | command     | `baton` and its status module, systemd units, docs        |
# | baton-dashboard      | dashboard   | the dashboard module, desktop file, metainfo, icon        |
# | libbatoncluster3     | library     | the shared library (SONAME libbatoncluster.so.3)           |
# | libbatoncluster-dev  | development | headers, CMake package, pkg-config module, the .so link   |
#
# A server that only runs `baton join` installs `baton` and the library: no
# Qt Widgets, no X11, no keychain (they come with baton-dashboard only).
#
#   cpack -G DEB --config <build>/CPackConfig.cmake
#
# dpkg-shlibdeps (package dpkg-dev) reads the binaries and writes Depends
# (Qt, yaml-cpp, the C++ runtime) from the libraries they link, so the list
# never drifts from the build; the dependencies between our own packages
# come from the components' DEPENDS.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME baton)
set(CPACK_PACKAGE_VENDOR "Baton")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
# Publishers set their own address: -DBATON_PACKAGE_CONTACT="Name <mail>".
set(BATON_PACKAGE_CONTACT "Baton maintainers <maintainers@baton.example>" CACHE STRING
    "Maintainer of the Debian packages")
set(CPACK_PACKAGE_CONTACT "${BATON_PACKAGE_CONTACT}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CPACK_PACKAGE_CONTACT}")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Our own library is found in the build tree, not in a package dpkg knows.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${PROJECT_BINARY_DIR}/libcluster)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
# Debian ships stripped binaries (lintian: unstripped-binary-or-object).
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_COMMAND_PACKAGE_NAME baton)
set(CPACK_DEBIAN_COMMAND_PACKAGE_SECTION admin)
set(CPACK_COMPONENT_COMMAND_DESCRIPTION
    "leader election for Qt applications: the baton command
Baton runs the work that must happen once for a whole group of machines
(cron ticks, pollers, clean-ups) on one leader only. This package holds the
baton command: join an election and run a command while leading (once, for
cron-style jobs, or for as long as it leads), show the leases, serve
/metrics and health endpoints, and the systemd units to run it.")

set(CPACK_DEBIAN_DASHBOARD_PACKAGE_NAME baton-dashboard)
set(CPACK_DEBIAN_DASHBOARD_PACKAGE_SECTION admin)
set(CPACK_COMPONENT_DASHBOARD_DESCRIPTION
    "leader election for Qt applications: desktop dashboard
The Baton dashboard shows the leases of stores and Kubernetes clusters,
the holders over time, the renewal timings and the failover history, and
lets an operator join an election or step down. Started by running baton
with no arguments on a desktop.")

set(CPACK_DEBIAN_LIBRARY_PACKAGE_NAME libbatoncluster${BATON_SOVERSION})
set(CPACK_DEBIAN_LIBRARY_PACKAGE_SECTION libs)
# A shlibs file lets packages built against the library depend on it.
# (Only the library has a SONAME: the other packages get no shlibs file.)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
# The loader's cache is refreshed by dpkg's ldconfig trigger (Debian policy
# 8.1.1; lintian: lacks-ldconfig-trigger).
set(CPACK_DEBIAN_LIBRARY_PACKAGE_CONTROL_EXTRA ${PROJECT_SOURCE_DIR}/cmake/debian-library-triggers/triggers)
set(CPACK_COMPONENT_LIBRARY_DESCRIPTION
    "leader election for Qt applications: shared library
libbatoncluster lets the instances of a Qt application elect one leader
through a shared store (a folder, etcd, Kubernetes Leases) and run
whenLeader() work on it only, with fencing tokens and a deadline by which
a leader that lost contact stops.")

set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_NAME libbatoncluster-dev)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SECTION libdevel)
# The headers include Qt's: building against them needs Qt's development files.
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_DEPENDS "qt6-base-dev (>= 6.4)")
set(CPACK_COMPONENT_DEVELOPMENT_DESCRIPTION
    "leader election for Qt applications: development files
Headers, the CMake package (find_package(Baton), Baton::Cluster) and the
pkg-config module (baton-cluster) to build Qt programs against
libbatoncluster.")

include(CPack)
cpack_add_component(library)
cpack_add_component(development DEPENDS library)
cpack_add_component(command DEPENDS library)
if(BATON_GUI)
  cpack_add_component(dashboard DEPENDS command)
endif()

# What Debian requires of every package: its copyright file and changelog
# in /usr/share/doc/<package>.
set(baton_packages command:baton library:libbatoncluster${BATON_SOVERSION}
    development:libbatoncluster-dev)
if(BATON_GUI)
  list(APPEND baton_packages dashboard:baton-dashboard)
endif()
string(TIMESTAMP baton_changelog_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
foreach(entry ${baton_packages})
  string(REPLACE ":" ";" entry ${entry})
  list(GET entry 0 component)
  list(GET entry 1 package)
  set(doc ${PROJECT_BINARY_DIR}/package-doc/${package})
  configure_file(${PROJECT_SOURCE_DIR}/cmake/debian-copyright.in ${doc}/copyright @ONLY)
  file(WRITE ${doc}/changelog
       "${package} (${PROJECT_VERSION}) unstable; urgency=medium\n\n"
       "  * Upstream release ${PROJECT_VERSION}.\n\n"
       " -- ${CPACK_PACKAGE_CONTACT}  ${baton_changelog_date}\n")
  add_custom_command(OUTPUT ${doc}/changelog.gz
                     COMMAND gzip -9nkf ${doc}/changelog
                     DEPENDS ${doc}/changelog VERBATIM)
  add_custom_target(baton_changelog_${component} ALL DEPENDS ${doc}/changelog.gz)
  install(FILES ${doc}/copyright ${doc}/changelog.gz
          DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${package} COMPONENT ${component})
endforeach()
