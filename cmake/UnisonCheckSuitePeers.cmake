# ctest helper: runs unison-bench with its peers (-DCOMMAND, a ;-list; its stdout and stderr go to
# -DLOG) and fails unless it exits with 0 and its CSV (-DCSV=file) has, for every workload of
# -DWORKLOADS (a ;-list) and every peer of -DPEERS (a ;-list), at least one row whose check
# passed, and no row of those peers whose check failed. Usage:
#   cmake "-DCOMMAND=unison-bench;--scale=0.001" -DLOG=run.log -DCSV=out/unison_bench.csv
#         "-DWORKLOADS=elementwise;rowwise" "-DPEERS=numba_cpu;numpy" -P UnisonCheckSuitePeers.cmake
file(REMOVE "${CSV}")
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE _code OUTPUT_FILE "${LOG}" ERROR_FILE "${LOG}.err")
file(READ "${LOG}.err" _err)
if(NOT _code STREQUAL "0")
  message(FATAL_ERROR "exit code ${_code}, expected 0 (output in ${LOG}); stderr:\n${_err}")
endif()
string(REGEX MATCHALL "unison-bench: peers: [^\n]*" _said "${_err}")
string(REPLACE ";" "\n" _said "${_said}")
file(STRINGS "${CSV}" _lines)
list(FILTER _lines EXCLUDE REGEX "^#")  # the run's context
set(_summary "")
foreach(_workload IN LISTS WORKLOADS)
  foreach(_peer IN LISTS PEERS)
    set(_passed 0)
    foreach(_line IN LISTS _lines)
      # "workload","case","backend",median_s,...,"check",error,tolerance,"note",...
      if(NOT _line MATCHES "^\"${_workload}\",\"([^\"]*)\",\"${_peer}\",([0-9.e+-]+),")
        continue()
      endif()
      set(_case "${CMAKE_MATCH_1}")
      if(NOT CMAKE_MATCH_2 GREATER 0)
        message(FATAL_ERROR "${CSV}: no time in '${_line}'")
      endif()
      if(NOT _line MATCHES ",\"pass\",[^,]*,[^,]*,\"[^\"]*\",")
        message(FATAL_ERROR "${CSV}: ${_case} on ${_peer}: no passed check in '${_line}'")
      endif()
      math(EXPR _passed "${_passed} + 1")
    endforeach()
    if(_passed EQUAL 0)
      message(FATAL_ERROR "${CSV}: no ${_peer} row in ${_workload}; what unison-bench said of the peers:\n${_said}")
    endif()
    string(APPEND _summary " ${_workload}/${_peer} ${_passed}")
  endforeach()
endforeach()
message(STATUS "${CSV}: the peers' rows passed their checks (workload/peer rows):${_summary}")
