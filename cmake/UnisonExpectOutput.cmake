# ctest helper: runs COMMAND (a ;-list) and fails unless it exits with 0 and its standard output
# matches every regular expression of MATCH (a ;-list; each may match anywhere). The verdict
# depends on what the command printed, not on how long it took.
#
# For the thread-placement tests, with THREADS set: the command runs in a clean environment
# (OMP_PROC_BIND, OMP_PLACES, OMP_NUM_THREADS, OMP_THREAD_LIMIT, OPENBLAS_CORETYPE and unison-bench's own
# variables removed), then with ENV (a ;-list of NAME=VALUE) set, behind PREFIX (a ;-list: a
# command such as "taskset;-c;0"); its standard error must then say "unison-bench: CPUs: <CPUS>
# available" and "unison-bench: OpenMP threads: <THREADS> ", and carry a "unison-bench: WARNING: "
# line exactly when the two differ. THREADS and CPUS are numbers, or "nproc": the CPUs this test
# may use (nproc without OMP_NUM_THREADS).
#   cmake "-DCOMMAND=prog;--arg" "-DMATCH=regex1;regex2" -P UnisonExpectOutput.cmake
set(_command ${COMMAND})
set(_match ${MATCH})
if(DEFINED THREADS)
  execute_process(COMMAND env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc
                  OUTPUT_VARIABLE _nproc OUTPUT_STRIP_TRAILING_WHITESPACE)
  foreach(_v THREADS CPUS)
    if(${_v} STREQUAL "nproc")
      set(${_v} ${_nproc})
    endif()
  endforeach()
  set(_command env -u OMP_PROC_BIND -u OMP_PLACES -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT -u OPENBLAS_CORETYPE
               -u UNISON_BENCH_PLACED -u UNISON_BENCH_BLAS_FALLBACK -u UNISON_BENCH_REEXEC
               -u UNISON_BENCH_THREADS_LIMITED -u UNISON_BENCH_CGROUP_ROOT ${ENV} ${PREFIX} ${COMMAND})
  set(_threads_match "(^|\n)unison-bench: CPUs: ${CPUS} available"
                     "(^|\n)unison-bench: OpenMP threads: ${THREADS} ")
endif()
execute_process(COMMAND ${_command} RESULT_VARIABLE _code OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
if(NOT _code STREQUAL "0")
  message(FATAL_ERROR "exit code ${_code}, expected 0; stdout:\n${_out}\nstderr:\n${_err}")
endif()
foreach(_regex IN LISTS _match)
  if(NOT _out MATCHES "${_regex}")
    message(FATAL_ERROR "the output does not match '${_regex}':\n${_out}\nstderr:\n${_err}")
  endif()
endforeach()
if(DEFINED THREADS)
  foreach(_regex IN LISTS _threads_match)
    if(NOT _err MATCHES "${_regex}")
      message(FATAL_ERROR "the standard error does not match '${_regex}':\n${_err}")
    endif()
  endforeach()
  if(THREADS EQUAL CPUS AND _err MATCHES "(^|\n)unison-bench: WARNING: ")
    message(FATAL_ERROR "a warning where the threads and CPUs agree:\n${_err}")
  elseif(NOT THREADS EQUAL CPUS AND NOT _err MATCHES "(^|\n)unison-bench: WARNING: the OpenMP backend runs")
    message(FATAL_ERROR "no warning where ${THREADS} threads run on ${CPUS} CPUs:\n${_err}")
  endif()
endif()
message(STATUS "every expected line found")
