# The Qt and standard headers that nearly every source includes, parsed once
# per build instead of once per source: they are half of what compiling a
# test costs, and CI builds the tree twice (docs/testing.md).
#
# One precompiled header serves every target that asks for it, so it is
# built with the flags they share. GCC uses it only where the flags agree
# and says so otherwise (-Winvalid-pch, which CMake adds: an error with
# BATON_WERROR), so a target that drifts is noticed, never miscompiled.
# Off for clang (the fuzz preset), which refuses a header built with any
# other macro on the command line, and for builds that define NDEBUG (the
# tests undefine it, so they would disagree with the library's parts).
option(BATON_PCH "Precompile the Qt and standard headers most sources include (GCC)" ON)

string(TOUPPER "${CMAKE_BUILD_TYPE}" _baton_type)
set(_baton_flags "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${_baton_type}}")
if(BATON_PCH AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND NOT _baton_flags MATCHES "NDEBUG")
  add_library(BatonPrecompiledHeaders OBJECT ${CMAKE_CURRENT_LIST_DIR}/precompiled.cpp)
  # Qt Core alone: GCC takes the header only where every macro it was
  # built with is defined alike (QT_NETWORK_LIB would exclude the parts
  # without Qt Network), and where no macro it tested differs.
  target_link_libraries(BatonPrecompiledHeaders PRIVATE Qt6::Core)
  set_target_properties(BatonPrecompiledHeaders PROPERTIES POSITION_INDEPENDENT_CODE ON)
  baton_set_warnings(BatonPrecompiledHeaders)
  target_precompile_headers(BatonPrecompiledHeaders PRIVATE
    <algorithm> <functional> <memory> <optional> <vector>
    <QByteArray> <QCoreApplication> <QDateTime> <QDir> <QFile> <QFileInfo> <QHash>
    <QJsonArray> <QJsonDocument> <QJsonObject> <QJsonValue> <QList> <QLoggingCategory>
    <QObject> <QPointer> <QProcess> <QRegularExpression> <QSet> <QString> <QStringList>
    <QTemporaryDir> <QTimer> <QUrl> <QUuid>)
endif()
unset(_baton_flags)
unset(_baton_type)

# Compiles TARGET with the shared precompiled header, where there is one.
function(baton_use_precompiled_headers target)
  if(TARGET BatonPrecompiledHeaders)
    target_precompile_headers(${target} REUSE_FROM BatonPrecompiledHeaders)
  endif()
endfunction()
