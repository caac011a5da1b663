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
# 4. Every header of libcluster/include (baton/, batoninternal/) belongs to
#    one part: it is listed in that part's baton_add_part() in
#    libcluster/CMakeLists.txt.
# 5. A part includes the headers of libcluster/include of its own and of the
#    parts it builds on (its LINKS, directly or through others) only: the
#    layering the build enforces on private headers, for the public ones.
#    Its public headers themselves count as its files.
# 6. In particular, core includes nothing of application's.
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

# The parts as the build declares them: their links and their headers.
file(READ ${SOURCE_DIR}/libcluster/CMakeLists.txt build_text)
string(REGEX MATCHALL "baton_add_part\\([a-z]+[^)]*\\)" part_calls "${build_text}")
set(parts "")
foreach(call IN LISTS part_calls)
  string(REGEX MATCH "^baton_add_part\\(([a-z]+)" ignored "${call}")
  set(part ${CMAKE_MATCH_1})
  list(APPEND parts ${part})
  string(REGEX MATCHALL "BatonPart_[a-z]+" links "${call}")
  list(TRANSFORM links REPLACE "^BatonPart_" "")
  set(links_${part} ${links})
  string(REGEX MATCHALL "include/(baton|batoninternal)/[a-z_]+\\.h" headers "${call}")
  set(headers_${part} ${headers})
  foreach(header IN LISTS headers)
    if(DEFINED owner_${header})
      list(APPEND failures "${header} is listed in two parts: ${owner_${header}} and ${part}")
    endif()
    set(owner_${header} ${part})
  endforeach()
endforeach()
if(NOT "core" IN_LIST parts OR NOT "application" IN_LIST parts)
  list(APPEND failures "no parts core and application found in libcluster/CMakeLists.txt")
endif()
foreach(part IN LISTS parts)
  set(below "")
  set(todo ${links_${part}})
  while(todo)
    list(POP_FRONT todo next)
    if(NOT next IN_LIST below)
      list(APPEND below ${next})
      list(APPEND todo ${links_${next}})
    endif()
  endwhile()
  set(below_${part} ${below})
endforeach()

file(GLOB library_headers RELATIVE ${SOURCE_DIR}/libcluster
     ${SOURCE_DIR}/libcluster/include/baton/*.h ${SOURCE_DIR}/libcluster/include/batoninternal/*.h)
foreach(header IN LISTS library_headers)
  if(NOT DEFINED owner_${header})
    list(APPEND failures "${header} belongs to no part: list it in a baton_add_part() of libcluster/CMakeLists.txt")
  endif()
endforeach()

file(GLOB application_private RELATIVE ${SOURCE_DIR}/libcluster/src/application
     ${SOURCE_DIR}/libcluster/src/application/*.h)
foreach(part IN LISTS parts)
  file(GLOB part_files ${SOURCE_DIR}/libcluster/src/${part}/*.h ${SOURCE_DIR}/libcluster/src/${part}/*.cpp)
  foreach(header IN LISTS headers_${part})
    list(APPEND part_files ${SOURCE_DIR}/libcluster/${header})
  endforeach()
  foreach(file IN LISTS part_files)
    includes_of(${file} lines)
    foreach(line IN LISTS lines)
      if(line MATCHES "<((baton|batoninternal)/[a-z_]+\\.h)>")
        set(named ${CMAKE_MATCH_1})
        set(header include/${named})
        if(header MATCHES "_export\\.h$")
          continue() # generated, below every part
        endif()
        set(owner ${owner_${header}})
        if(part STREQUAL "core" AND owner STREQUAL "application")
          list(APPEND failures "${file}: core includes application's <${named}>")
        elseif(NOT owner STREQUAL part AND NOT owner IN_LIST below_${part})
          list(APPEND failures "${file}: ${part} includes <${named}> of ${owner}, a part it does not build on")
        endif()
      elseif(part STREQUAL "core" AND line MATCHES "\"([^\"/]+\\.h)\"")
        if(CMAKE_MATCH_1 IN_LIST application_private)
          list(APPEND failures "${file}: core includes application's ${CMAKE_MATCH_1}")
        endif()
      endif()
    endforeach()
  endforeach()
endforeach()

if(failures)
  list(JOIN failures "\n" text)
  message(FATAL_ERROR "layering broken:\n${text}")
endif()
list(LENGTH parts part_count)
list(LENGTH library_headers header_count)
message(STATUS "layering holds: ${part_count} parts, ${header_count} headers of libcluster/include")
