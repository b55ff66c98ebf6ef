# cmake -DCMD="prog;args" -DMESSAGE=regex [-DNO_FILE=path] -P expect_failure.cmake
# Passes when CMD exits non-zero, its output matches MESSAGE, and NO_FILE
# (the --out it was given) was not written.
if(NO_FILE)
  file(REMOVE ${NO_FILE})
endif()
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("exit status ${rc}\n${out}${err}")
if(rc EQUAL 0)
  message(FATAL_ERROR "expected a non-zero exit status")
endif()
if(NOT "${out}${err}" MATCHES "${MESSAGE}")
  message(FATAL_ERROR "expected the message '${MESSAGE}'")
endif()
if(NO_FILE AND EXISTS ${NO_FILE})
  message(FATAL_ERROR "a failed run left ${NO_FILE}")
endif()
