# find_package(pt2c): compile PyTorch models into model libraries as part of a CMake
# build. Installed by tools/install.sh into PREFIX/lib/cmake/pt2c; point
# CMAKE_PREFIX_PATH (or pt2c_DIR) at the install.
#
#   find_package(pt2c REQUIRED)
#   pt2c_add_model(classifier SOURCE model.py [DEVICE cpu|cuda|cuda:sm_90]
#                  [FLAGS --cpu x86-64-v3 ...] [DEPENDS files model.py reads])
#   target_link_libraries(app PRIVATE classifier)       # linked: call pt2c.h directly
#   target_link_libraries(host PRIVATE pt2c::headers)   # or open it with pt2c.hpp:
#   ... $<TARGET_PROPERTY:classifier,PT2C_LIBRARY>      # the library's path
#
# Defines:
#   pt2c::headers    INTERFACE target: pt2c/pt2c.h and pt2c/pt2c.hpp (-ldl for dlopen)
#   PT2C_EXECUTABLE  the pt2c compiler
#   pt2c_add_model() an INTERFACE target NAME that links lib<NAME>.so (built in the
#                    current binary dir by `pt2c SOURCE -o lib<NAME>.so`, again whenever
#                    SOURCE or DEPENDS change) and carries the headers; its property
#                    PT2C_LIBRARY holds the library's path. One linked model per program:
#                    every model library defines the same pt2c_* symbols (open several
#                    with pt2c.hpp instead).
get_filename_component(_pt2c_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

find_program(PT2C_EXECUTABLE pt2c PATHS "${_pt2c_prefix}/bin" NO_DEFAULT_PATH)
if(NOT PT2C_EXECUTABLE)
  set(pt2c_FOUND FALSE)
  set(pt2c_NOT_FOUND_MESSAGE "pt2c: no bin/pt2c under ${_pt2c_prefix} (run tools/install.sh)")
  return()
endif()

if(NOT TARGET pt2c::headers)
  add_library(pt2c::headers INTERFACE IMPORTED)
  set_target_properties(pt2c::headers PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${_pt2c_prefix}/include"
    INTERFACE_LINK_LIBRARIES "${CMAKE_DL_LIBS}")
endif()

function(pt2c_add_model name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "SOURCE;DEVICE" "FLAGS;DEPENDS")
  if(NOT ARG_SOURCE)
    message(FATAL_ERROR "pt2c_add_model(${name}): SOURCE model.py is required")
  endif()
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "pt2c_add_model(${name}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_DEVICE)
    set(ARG_DEVICE cpu)
  endif()
  get_filename_component(source "${ARG_SOURCE}" ABSOLUTE)
  set(library "${CMAKE_CURRENT_BINARY_DIR}/lib${name}.so")
  add_custom_command(
    OUTPUT "${library}"
    COMMAND "${PT2C_EXECUTABLE}" "${source}" -o "${library}" --target "${ARG_DEVICE}" --quiet
            ${ARG_FLAGS}
    DEPENDS "${source}" ${ARG_DEPENDS} "${PT2C_EXECUTABLE}"
    COMMENT "pt2c: compiling ${ARG_SOURCE} for ${ARG_DEVICE}"
    VERBATIM)
  add_custom_target(${name}_library DEPENDS "${library}")
  add_library(${name} INTERFACE)
  add_dependencies(${name} ${name}_library)
  target_link_libraries(${name} INTERFACE "${library}" pt2c::headers)
  set_target_properties(${name} PROPERTIES PT2C_LIBRARY "${library}")
endfunction()
