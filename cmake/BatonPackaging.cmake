# A Debian package of everything `cmake --install` installs: the library, its
# headers, CMake package and pkg-config module, the `baton` executable, its
# desktop integration and the systemd unit.
#
#   cpack -G DEB --config <build>/CPackConfig.cmake
#
# dpkg-shlibdeps (package dpkg-dev) reads the binaries and writes Depends
# (Qt, yaml-cpp, the C++ runtime) from the libraries they link, so the list
# never drifts from the build.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME baton)
set(CPACK_PACKAGE_VENDOR "Baton")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_DESCRIPTION
    "Baton runs the work that must happen once for a whole Qt application (cron
ticks, pollers, clean-ups) on one leader only. It ships the libcluster
library for Qt programs (find_package(Baton), Baton::Cluster), the baton
command (join an election and run a command while leading, show the
leases) and a desktop dashboard for operators.")
set(CPACK_PACKAGE_CONTACT "Baton maintainers <baton@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CPACK_PACKAGE_CONTACT}")
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The package carries libbatoncluster itself: a shlibs file lets packages
# built against it depend on it in turn.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
include(CPack)
