# Results independent of the number of PoCL threads: test_charmm_half --hash
# (half lists, coloured blocks, single and double precision) under 1 and 3
# threads must print the same force hashes. -DTEST=path of test_charmm_half.
foreach(n 1 3)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env POCL_MAX_PTHREAD_COUNT=${n}
                          POCL_CPU_MAX_CU_NUM=${n} ${TEST} --hash
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${TEST} --hash with ${n} PoCL threads failed (${rc}):\n${out}\n${err}")
  endif()
  string(REGEX MATCHALL "hash (single|double) [0-9a-f]+" hashes "${out}")
  list(LENGTH hashes count)
  if(NOT count EQUAL 2)
    message(FATAL_ERROR "expected two hashes with ${n} threads, got:\n${out}")
  endif()
  message(STATUS "${n} thread(s): ${hashes}")
  set(hashes_${n} "${hashes}")
endforeach()
if(NOT hashes_1 STREQUAL hashes_3)
  message(FATAL_ERROR "forces depend on the thread count: 1 thread ${hashes_1}, 3 threads ${hashes_3}")
endif()
