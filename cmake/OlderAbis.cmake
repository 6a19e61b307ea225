# The older ABIs, built and installed next to the 3.3 library when asked
# (included by the top-level CMakeLists.txt, after its cargo_build target):
#
#   -DBLOSC2_ABI_V2=ON   the C-Blosc2 2.23 ABI (Cargo feature abi-v2):
#       P/lib/libblosc2.so.2.23.1, P/lib/libblosc2.so.7 -> libblosc2.so.2.23.1
#       (SONAME libblosc2.so.7), P/include/v2/{blosc2.h,b2nd.h,blosc2/*.h},
#       P/lib/blosc2-v2/libblosc2.so -> ../libblosc2.so.7 (so that
#       `-L P/lib/blosc2-v2 -lblosc2` links the 2.23 library) and
#       P/lib/pkgconfig/blosc2-v2.pc (`pkg-config blosc2-v2`).
#   -DBLOSC1_ABI=ON      the c-blosc 1.21 ABI (Cargo feature abi-blosc1):
#       P/lib/libblosc.so.1.21.x, P/lib/libblosc.so.1 -> it (SONAME
#       libblosc.so.1), P/lib/libblosc.so -> libblosc.so.1, P/include/blosc.h.
#
# Both default to OFF: the default install is the 3.3 library only. Each is
# a `cargo build --profile release --lib --features ...` in its own target
# directory under BLOSC2_CARGO_TARGET_DIR (abi-v2/, abi-blosc1/), so the
# three builds never overwrite each other. P/lib/libblosc2.so, the link
# `-lblosc2` finds, stays libblosc2.so.9.
option(BLOSC2_ABI_V2 "Also install libblosc2.so.7, the C-Blosc2 2.23 ABI, with its headers under include/v2." OFF)
option(BLOSC1_ABI "Also install libblosc.so.1, the c-blosc 1.21 ABI, with include/blosc.h." OFF)
# The cargo profile of these builds: `release`, or `dev` to reuse the debug
# builds `cargo test` leaves in <target>/abi-v2 and <target>/abi-blosc1
# (.ci/install_consumers.sh checks names and SONAMEs that way, without two
# more release builds).
set(BLOSC2_OLDER_ABIS_PROFILE "release" CACHE STRING "cargo profile of the older-ABI libraries (release or dev)")
if(BLOSC2_OLDER_ABIS_PROFILE STREQUAL "dev")
  set(_older_abis_out "debug")
else()
  set(_older_abis_out "${BLOSC2_OLDER_ABIS_PROFILE}")
endif()

# blosc2_abi_library(NAME FEATURE): cargo build of FEATURE into
# <target>/NAME/<profile dir>, run after the main build (one cargo at a time on
# small machines), staging the library as ${NAME}_REAL with the link
# ${NAME}_SONAME -> it (and the extra links ${NAME}_LINKS, "link=target"
# pairs relative to the stage directory).
function(blosc2_abi_library name feature)
  set(_stage "${CMAKE_CURRENT_BINARY_DIR}/stage-${name}")
  set(_built "${_cargo_target_dir}/${name}/${_older_abis_out}/libblosc2.so")
  set(_links_cmds "")
  foreach(_pair IN LISTS ${name}_LINKS)
    string(REPLACE "=" ";" _pair "${_pair}")
    list(GET _pair 0 _link)
    list(GET _pair 1 _to)
    get_filename_component(_dir "${_stage}/${_link}" DIRECTORY)
    list(APPEND _links_cmds COMMAND ${CMAKE_COMMAND} -E make_directory "${_dir}"
                            COMMAND ${CMAKE_COMMAND} -E create_symlink "${_to}" "${_stage}/${_link}")
  endforeach()
  add_custom_target(cargo_build_${name} ALL
    COMMAND ${CMAKE_COMMAND} -E env "CARGO_TARGET_DIR=${_cargo_target_dir}/${name}"
            "${CARGO_EXECUTABLE}" build --profile ${BLOSC2_OLDER_ABIS_PROFILE} --lib --features ${feature} ${_cargo_flags}
    COMMAND ${CMAKE_COMMAND} -E make_directory "${_stage}"
    COMMAND ${CMAKE_COMMAND} -E copy_if_different "${_built}" "${_stage}/${${name}_REAL}"
    COMMAND ${CMAKE_COMMAND} -E create_symlink "${${name}_REAL}" "${_stage}/${${name}_SONAME}"
    ${_links_cmds}
    WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
    USES_TERMINAL
    COMMENT "cargo build --profile ${BLOSC2_OLDER_ABIS_PROFILE} --features ${feature} (CARGO_TARGET_DIR=${_cargo_target_dir}/${name})")
  add_dependencies(cargo_build_${name} cargo_build)
  install(FILES "${_stage}/${${name}_REAL}"
          PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE
          DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT LIB)
  install(FILES "${_stage}/${${name}_SONAME}" DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT LIB)
  foreach(_pair IN LISTS ${name}_LINKS)
    string(REPLACE "=" ";" _pair "${_pair}")
    list(GET _pair 0 _link)
    get_filename_component(_subdir "${_link}" DIRECTORY)
    install(FILES "${_stage}/${_link}" DESTINATION "${CMAKE_INSTALL_LIBDIR}/${_subdir}" COMPONENT DEV)
  endforeach()
endfunction()

if(BLOSC2_ABI_V2)
  file(READ "${CMAKE_CURRENT_SOURCE_DIR}/include/v2/blosc2.h" _v2_h)
  string(REGEX REPLACE ".*#define[ \t]+BLOSC2_VERSION_STRING[ \t]+\"([-0-9A-Za-z.]+)\".*" "\\1" BLOSC2_V2_VERSION
         "${_v2_h}")
  unset(_v2_h)
  message(STATUS "Also installing the C-Blosc2 ${BLOSC2_V2_VERSION} ABI (libblosc2.so.7)")
  set(abi-v2_REAL "libblosc2.so.${BLOSC2_V2_VERSION}")
  set(abi-v2_SONAME "libblosc2.so.7")
  set(abi-v2_LINKS "blosc2-v2/libblosc2.so=../libblosc2.so.7")
  blosc2_abi_library(abi-v2 abi-v2)
  install(DIRECTORY include/v2/ DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/v2" COMPONENT DEV)
  # pkg-config, written at install time for the prefix installed to.
  set(_pc_out "${CMAKE_CURRENT_BINARY_DIR}/pkgconfig/blosc2-v2.pc")
  install(CODE "
    set(BLOSC2_V2_VERSION \"${BLOSC2_V2_VERSION}\")
    set(BLOSC2_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
    set(BLOSC2_PC_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")
    set(BLOSC2_PC_INCLUDEDIR \"${CMAKE_INSTALL_INCLUDEDIR}\")
    if(NOT IS_ABSOLUTE \"\${BLOSC2_PC_LIBDIR}\")
      set(BLOSC2_PC_LIBDIR \"\\\${prefix}/\${BLOSC2_PC_LIBDIR}\")
    endif()
    if(NOT IS_ABSOLUTE \"\${BLOSC2_PC_INCLUDEDIR}\")
      set(BLOSC2_PC_INCLUDEDIR \"\\\${prefix}/\${BLOSC2_PC_INCLUDEDIR}\")
    endif()
    configure_file(\"${CMAKE_CURRENT_SOURCE_DIR}/cmake/blosc2-v2.pc.in\" \"${_pc_out}\" @ONLY)
  " COMPONENT DEV)
  install(FILES "${_pc_out}" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig" COMPONENT DEV)
endif()

if(BLOSC1_ABI)
  set(_blosc_h "${CMAKE_CURRENT_SOURCE_DIR}/include/blosc1/blosc.h")
  if(NOT EXISTS "${_blosc_h}")
    message(FATAL_ERROR "BLOSC1_ABI: ${_blosc_h} not found")
  endif()
  file(READ "${_blosc_h}" _blosc1_h)
  string(REGEX REPLACE ".*#define[ \t]+BLOSC_VERSION_STRING[ \t]+\"([-0-9A-Za-z.]+)\".*" "\\1" BLOSC1_VERSION
         "${_blosc1_h}")
  unset(_blosc1_h)
  message(STATUS "Also installing the c-blosc ${BLOSC1_VERSION} ABI (libblosc.so.1)")
  set(abi-blosc1_REAL "libblosc.so.${BLOSC1_VERSION}")
  set(abi-blosc1_SONAME "libblosc.so.1")
  set(abi-blosc1_LINKS "libblosc.so=libblosc.so.1")
  blosc2_abi_library(abi-blosc1 abi-blosc1)
  install(DIRECTORY include/blosc1/ DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" COMPONENT DEV
          FILES_MATCHING PATTERN "*.h")
endif()
