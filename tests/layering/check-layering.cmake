# The layering of the library, checked on the sources (docs/architecture.md).
# Run as: cmake -DSOURCE_DIR=<repository> -P check-layering.cmake
#
# 1. core links Qt Core only: no QtNetwork header anywhere in it.
# 2. etcd and kube never see each other.
# 3. gui/, headless/ and app/ reach the library through its public headers
#    (<baton/...>) and its small internal API (<batoninternal/...>, marked
#    BATON_INTERNAL_EXPORT, never installed). A private header of
#    libcluster/src included there fails here; make the API public, or
#    internal, instead.
cmake_minimum_required(VERSION 3.22)

set(failures "")
function(includes_of file out)
  file(STRINGS ${file} lines REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
  set(${out} "${lines}" PARENT_SCOPE)
endfunction()

file(GLOB_RECURSE core_files ${SOURCE_DIR}/libcluster/src/core/*.h ${SOURCE_DIR}/libcluster/src/core/*.cpp)
foreach(file IN LISTS core_files)
  includes_of(${file} lines)
  foreach(line IN LISTS lines)
    if(line MATCHES "<(QtNetwork/|QNetwork|QSsl|QTcp|QUdp|QHostAddress|QLocalSocket|QAbstractSocket)")
      list(APPEND failures "${file}: core includes a QtNetwork header: ${line}")
    endif()
  endforeach()
endforeach()

foreach(pair "etcd;kube" "kube;etcd")
  list(GET pair 0 part)
  list(GET pair 1 other)
  file(GLOB other_headers RELATIVE ${SOURCE_DIR}/libcluster/src/${other} ${SOURCE_DIR}/libcluster/src/${other}/*.h)
  file(GLOB part_files ${SOURCE_DIR}/libcluster/src/${part}/*.h ${SOURCE_DIR}/libcluster/src/${part}/*.cpp)
  foreach(file IN LISTS part_files)
    includes_of(${file} lines)
    foreach(header IN LISTS other_headers)
      foreach(line IN LISTS lines)
        if(line MATCHES "\"${header}\"")
          list(APPEND failures "${file}: ${part} includes ${other}'s ${header}")
        endif()
      endforeach()
    endforeach()
  endforeach()
endforeach()

file(GLOB_RECURSE private_headers RELATIVE ${SOURCE_DIR}/libcluster/src ${SOURCE_DIR}/libcluster/src/*.h)
set(private_names "")
foreach(header IN LISTS private_headers)
  get_filename_component(name ${header} NAME)
  list(APPEND private_names ${name})
endforeach()
# gui/ and headless/ have subfolders (models/, exec/, ...) and include
# flat, so a folder's own headers are those anywhere beneath it.
foreach(dir gui headless app)
  file(GLOB_RECURSE files ${SOURCE_DIR}/${dir}/*.h ${SOURCE_DIR}/${dir}/*.cpp)
  file(GLOB_RECURSE own_headers ${SOURCE_DIR}/${dir}/*.h)
  set(own_names "")
  foreach(header IN LISTS own_headers)
    get_filename_component(name ${header} NAME)
    list(APPEND own_names ${name})
  endforeach()
  foreach(file IN LISTS files)
    includes_of(${file} lines)
    foreach(line IN LISTS lines)
      if(line MATCHES "\"([^\"/]+\\.h)\"")
        set(name ${CMAKE_MATCH_1})
        if(name IN_LIST private_names AND NOT name IN_LIST own_names)
          list(APPEND failures "${file}: ${dir}/ includes the library's private ${name}")
        endif()
      endif()
    endforeach()
  endforeach()
endforeach()

if(failures)
  list(JOIN failures "\n" text)
  message(FATAL_ERROR "layering broken:\n${text}")
endif()
message(STATUS "layering holds")
