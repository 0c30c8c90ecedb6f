# ctest helper: runs COMMAND (a ;-list) and fails unless it exits with EXIT and its standard
# error matches STDERR_REGEX (when given). Usage:
#   cmake -DCOMMAND="prog;--arg" -DEXIT=2 -DSTDERR_REGEX="^prog: " -P UnisonExpectExit.cmake
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE _code ERROR_VARIABLE _err OUTPUT_QUIET)
if(NOT _code STREQUAL "${EXIT}")
  message(FATAL_ERROR "exit code ${_code}, expected ${EXIT}; stderr: ${_err}")
endif()
if(DEFINED STDERR_REGEX AND NOT _err MATCHES "${STDERR_REGEX}")
  message(FATAL_ERROR "stderr does not match '${STDERR_REGEX}': ${_err}")
endif()
