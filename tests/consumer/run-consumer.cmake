# Installs the build into a fresh prefix, then builds and runs the consumer
# against it twice: through find_package(Baton), and through pkg-config; then
# runs the installed `baton join --listen`, which loads a module.
# Arguments: -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DCXX_FLAGS=...
# CXX_FLAGS are the library build's own: a consumer of a library built with
# sanitizers must be built with them too (the asan preset), as users would.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("$ ${ARGN}\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc})")
  endif()
endfunction()

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
file(GLOB_RECURSE installed RELATIVE ${prefix} ${prefix}/*)
list(SORT installed)
string(REPLACE ";" "\n  " listing "${installed}")
message("installed:\n  ${listing}")

run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build -G Ninja
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}")
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
# The library folder: lib, or lib/<multiarch> on Debian (CMakeLists.txt).
file(GLOB_RECURSE pc_file ${prefix}/lib/*baton-cluster.pc)
list(GET pc_file 0 pc_file)
get_filename_component(pc_dir ${pc_file} DIRECTORY)
get_filename_component(libdir ${pc_dir} DIRECTORY)
set(ENV{LD_LIBRARY_PATH} "${libdir}:$ENV{LD_LIBRARY_PATH}")
set(ENV{BATON_DATA_DIR} ${WORK_DIR}/data-cmake)
run(${WORK_DIR}/build/consumer)

set(ENV{PKG_CONFIG_PATH} "${pc_dir}")
execute_process(COMMAND pkg-config --cflags --libs baton-cluster
                OUTPUT_VARIABLE flags OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config does not know baton-cluster")
endif()
separate_arguments(flags UNIX_COMMAND "${CXX_FLAGS} ${flags}")
run(c++ -std=c++20 -fPIC ${SOURCE_DIR}/main.cpp ${flags} -o ${WORK_DIR}/consumer-pkgconfig)
set(ENV{BATON_DATA_DIR} ${WORK_DIR}/data-pkgconfig)
run(${WORK_DIR}/consumer-pkgconfig)
unset(ENV{BATON_DATA_DIR})

# The installed `baton` finds its status module relative to itself (one place
# only, headless/modulepath.h): `join --listen` serves, and exits 0 at SIGTERM.
# --foreground: one SIGTERM to baton only. Without it timeout signals the
# child and then its whole process group, and a second SIGTERM that arrives
# while baton is stopping cleanly ends it at once (exit 143), as documented.
file(WRITE ${WORK_DIR}/listen.json "{\"services\": {
  \"Registry\": {\"type\": \"Webda/FileStore\", \"folder\": \"${WORK_DIR}/registry-listen\"},
  \"cluster\": {\"type\": \"StoreClusterService\", \"leaseName\": \"listen\",
                \"leaseDuration\": 3000, \"renewInterval\": 1000}}}")
execute_process(COMMAND timeout --foreground --preserve-status --signal=TERM 3 ${prefix}/bin/baton join --config ${WORK_DIR}/listen.json
                        --listen 127.0.0.1:0
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("$ baton join --config listen.json --listen 127.0.0.1:0 (installed, SIGTERM after 3 s)\n${out}${err}")
if(NOT rc EQUAL 0 OR NOT err MATCHES "serving /metrics[^\n]* on http://127\\.0\\.0\\.1:[1-9]")
  message(FATAL_ERROR "the installed baton join --listen did not serve (${rc})")
endif()
