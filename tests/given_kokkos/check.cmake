# ctest helper: configures the project beside this file (a Kokkos with the execution spaces
# SPACES, a ,-list) in BUILD, with ARGS (a ;-list of more -D options), and fails unless the
# configuration ends as EXPECT says (error or success) with a message matching MATCH, read with
# its lines joined (CMake wraps messages).
#   cmake -DUNISON_SOURCE_DIR=... -DBUILD=... -DSPACES=SERIAL,SYCL -DEXPECT=error
#         "-DMATCH=enables SYCL" -P check.cmake
string(REPLACE "," ";" _spaces "${SPACES}")
file(REMOVE_RECURSE "${BUILD}")
execute_process(
  COMMAND ${CMAKE_COMMAND} -S "${CMAKE_CURRENT_LIST_DIR}" -B "${BUILD}" "-DFAKE_SPACES=${_spaces}"
          "-DUNISON_SOURCE_DIR=${UNISON_SOURCE_DIR}" ${ARGS}
  RESULT_VARIABLE _code OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
string(REGEX REPLACE "[ \t\r\n]+" " " _all "${_out} ${_err}")
if(EXPECT STREQUAL "error" AND _code EQUAL 0)
  message(FATAL_ERROR "the configuration succeeded, expected an error:\n${_out}\n${_err}")
elseif(EXPECT STREQUAL "success" AND NOT _code EQUAL 0)
  message(FATAL_ERROR "the configuration failed (${_code}):\n${_out}\n${_err}")
endif()
if(NOT _all MATCHES "${MATCH}")
  message(FATAL_ERROR "no message matches '${MATCH}':\n${_out}\n${_err}")
endif()
message(STATUS "${EXPECT} as expected: '${MATCH}'")
