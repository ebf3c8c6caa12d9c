# Installs the built project into a temporary prefix, then configures and builds examples/consumer against
# it with find_package(mixgraph), and runs the consumer.
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix
  RESULT_VARIABLE r OUTPUT_QUIET)
if(NOT r EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${r})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/consumer -B ${WORK_DIR}/build
  -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_BUILD_TYPE=Release RESULT_VARIABLE r)
if(NOT r EQUAL 0)
  message(FATAL_ERROR "configuring the consumer with find_package(mixgraph) failed (${r})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build RESULT_VARIABLE r)
if(NOT r EQUAL 0)
  message(FATAL_ERROR "building the consumer failed (${r})")
endif()
execute_process(COMMAND ${WORK_DIR}/build/consumer RESULT_VARIABLE r OUTPUT_VARIABLE out)
message(STATUS "consumer printed: ${out}")
if(NOT r EQUAL 0 OR NOT out MATCHES "pow2 n=64 max_cache=[0-9]+")
  message(FATAL_ERROR "the consumer failed or printed something unexpected (${r}): ${out}")
endif()
