# The shared library exports its public API and the executables' internal
# API only: a private class of libcluster/src is hidden (docs/architecture.md).
# Run as: cmake -DLIBRARY=<libbatoncluster.so> -P check-exports.cmake
cmake_minimum_required(VERSION 3.22)

find_program(NM nm REQUIRED)
execute_process(COMMAND ${NM} -DC --defined-only ${LIBRARY}
                OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm failed on ${LIBRARY}")
endif()

# A few private classes of every part; none of them may leave the library.
set(private_classes Elector Registrations ServiceHost LocalLeaseProtocol LeaseObserverPrivate StoreLeaseProtocol StoreLeaseWatch
    FileStore MemoryStore EtcdStore EtcdWatch HttpClient KubeApiClient KubernetesLeaseProtocol KubeLeaseWatch
    ParameterReader)
set(failures "")
foreach(class ${private_classes})
  string(REGEX MATCH "[^\n]* baton::${class}::[^\n]*" leaked "${symbols}")
  if(leaked)
    list(APPEND failures "baton::${class} is exported: ${leaked}")
  endif()
endforeach()
# ...while the public API is there.
foreach(public "baton::LeaseObserver::open" "baton::Application::loadConfigFile" "baton::Application::addCluster"
       "baton::Clock::system")
  string(FIND "${symbols}" "${public}" at)
  if(at EQUAL -1)
    list(APPEND failures "${public} is not exported")
  endif()
endforeach()

if(failures)
  list(JOIN failures "\n" text)
  message(FATAL_ERROR "exports wrong:\n${text}")
endif()
string(REGEX MATCHALL "\n" lines "${symbols}")
list(LENGTH lines count)
message(STATUS "${count} symbols exported, no private class among them")
