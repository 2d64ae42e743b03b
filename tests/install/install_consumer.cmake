# CTest's install_find_package: `cmake --install` of this build into a scratch prefix, then a project
# outside the tree configured with find_package(msampler), built against both exported targets
# (msampler::msampler, msampler::msampler_static) and run; then the same program linked by
# `pkg-config --static --cflags --libs msampler` when pkg-config exists. Inputs: BUILD, SRC, DEST, CC.
file(REMOVE_RECURSE ${DEST})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${DEST}/prefix
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc}): ${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SRC}/tests/install/consumer -B ${DEST}/build
                        -DCMAKE_PREFIX_PATH=${DEST}/prefix -DCMAKE_C_COMPILER=${CC} -DCMAKE_BUILD_TYPE=Release
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring a consumer with find_package(msampler) failed (${rc}):\n${out}\n${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${DEST}/build RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the consumer failed (${rc}):\n${out}\n${err}")
endif()
foreach(exe use_shared use_static)
  execute_process(COMMAND ${DEST}/build/${exe} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${exe} (linked by find_package) exited ${rc}: ${out}${err}")
  endif()
  message(STATUS "${exe}: ${out}")
endforeach()
find_program(PKGCONF pkg-config)
if(PKGCONF)
  set(ENV{PKG_CONFIG_PATH} ${DEST}/prefix/lib/pkgconfig:${DEST}/prefix/lib64/pkgconfig)
  foreach(d lib lib64 lib/x86_64-linux-gnu)
    if(EXISTS ${DEST}/prefix/${d}/pkgconfig/msampler.pc)
      set(ENV{PKG_CONFIG_PATH} ${DEST}/prefix/${d}/pkgconfig)
    endif()
  endforeach()
  execute_process(COMMAND ${PKGCONF} --static --cflags --libs msampler RESULT_VARIABLE rc OUTPUT_VARIABLE flags
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config --static --libs msampler failed (${rc})")
  endif()
  separate_arguments(flags UNIX_COMMAND "${flags}")
  # the static library alone: hide the shared one so that the linker must resolve every dependency
  # from Libs.private
  file(GLOB shared ${DEST}/prefix/lib*/libmsampler.so* ${DEST}/prefix/lib/*/libmsampler.so*)
  if(shared)
    file(REMOVE ${shared})
  endif()
  execute_process(COMMAND ${CC} ${SRC}/tests/install/consumer/use.c -o ${DEST}/use_pc ${flags}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "linking with pkg-config --static's flags (${flags}) failed:\n${out}${err}")
  endif()
  execute_process(COMMAND ${DEST}/use_pc RESULT_VARIABLE rc OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "use_pc (linked by pkg-config --static) exited ${rc}: ${out}")
  endif()
  message(STATUS "use_pc: ${out}")
endif()
