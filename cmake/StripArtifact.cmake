# Copies a built artifact into the staging directory and strips it, keeping
# its debug information apart (run with cmake -P at build time):
#
#   cmake -DIN=built -DOUT=staged -DKIND=shared|static|program
#         -DOBJCOPY=objcopy -DSTRIP=strip -P StripArtifact.cmake
#
# shared and program: OUT.debug gets the debug sections (objcopy
# --only-keep-debug), OUT loses them and its symbol table (strip
# --strip-unneeded for a shared library, whose dynamic symbols stay;
# --strip-all for a program) and gets a .gnu_debuglink to OUT.debug, so
# gdb finds it in the same directory or in .debug/ next to OUT.
# static: strip --strip-debug only (the archive's symbols are its
# interface); its debug information is the unstripped build in cargo's
# target directory.
# Without OBJCOPY or STRIP (no binutils), OUT is an unstripped copy.
foreach(_v IN ITEMS IN OUT KIND)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "StripArtifact.cmake: ${_v} is not set")
  endif()
endforeach()

execute_process(COMMAND "${CMAKE_COMMAND}" -E copy "${IN}" "${OUT}.tmp" RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "StripArtifact.cmake: cannot copy ${IN}")
endif()
if(NOT STRIP OR NOT OBJCOPY)
  file(RENAME "${OUT}.tmp" "${OUT}")
  return()
endif()

function(_run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "StripArtifact.cmake: `${ARGV}` failed (${_rc})")
  endif()
endfunction()

get_filename_component(_name "${OUT}" NAME)
if(KIND STREQUAL "static")
  _run("${STRIP}" --strip-debug "${OUT}.tmp")
elseif(KIND STREQUAL "shared" OR KIND STREQUAL "program")
  _run("${OBJCOPY}" --only-keep-debug "${OUT}.tmp" "${OUT}.debug")
  if(KIND STREQUAL "shared")
    _run("${STRIP}" --strip-unneeded "${OUT}.tmp")
  else()
    _run("${STRIP}" --strip-all "${OUT}.tmp")
  endif()
  # The link names the file gdb looks for: the installed name plus .debug.
  get_filename_component(_dir "${OUT}" DIRECTORY)
  execute_process(COMMAND "${OBJCOPY}" "--add-gnu-debuglink=${_name}.debug" "${_name}.tmp"
                  WORKING_DIRECTORY "${_dir}" RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "StripArtifact.cmake: objcopy --add-gnu-debuglink failed (${_rc})")
  endif()
else()
  message(FATAL_ERROR "StripArtifact.cmake: KIND must be shared, static or program, not '${KIND}'")
endif()
file(RENAME "${OUT}.tmp" "${OUT}")
