# Tools started once per compile or run (fuse-compile, fuse-run) link MLIR's
# static libraries instead of libMLIR.so: binding libMLIR.so's symbols is
# half of their start-up (fuse-compile --version 17 -> 10 ms), and calls
# into MLIR no longer go through the PLT (fuse-compile copy 62 -> 45 ms,
# scan 216 -> 204). libLLVM.so stays shared, as MLIR's static libraries
# expect. Nothing else in those processes loads MLIR, so passes and
# dialects register once. Everything else (fuse-opt, which can load
# plugins, the libraries, embedding) uses libMLIR.so.
option(FUSE_STATIC_MLIR_TOOLS
  "Link fuse-compile and fuse-run against MLIR's static libraries" ON)
set(FUSE_MLIR_STATIC_LIBS)
if(FUSE_STATIC_MLIR_TOOLS)
  file(GLOB FUSE_MLIR_STATIC_LIBS "${LLVM_LIBRARY_DIR}/libMLIR*.a")
  list(FILTER FUSE_MLIR_STATIC_LIBS EXCLUDE
    REGEX "libMLIR(CAPI[^/]*|[^/]*Test[^/]*)[.]a$")
  if(NOT FUSE_MLIR_STATIC_LIBS)
    message(STATUS "fuse: no static MLIR libraries in ${LLVM_LIBRARY_DIR}; "
                   "the tools link libMLIR.so")
  endif()
endif()

# fuse's libraries a tool needs, all of them (they are linked as files, not
# targets, when MLIR is static: their link interface names libMLIR.so).
set(FUSE_TOOL_LIBS FuseAOTCompile FuseInitAll FuseToGPU FuseTransforms
  FusePipelines FuseToLoops FuseUtils MLIRFuse)

# fuse-compile links LLVM's static component libraries too, where they are
# installed: binding libLLVM.so's symbols at start-up and calling through
# its PLT cost ~9 ms of every compile (A/B on the same objects, median of
# 7 on 2 cores: --version 15 -> 7 ms, copy 53 -> 44, logsumexp_rows 98 ->
# 89, softmax_rows 122 -> 112, scan 212 -> 201). fuse-run keeps libLLVM.so
# (its JIT resolves symbols in shared libraries it loads).
option(FUSE_STATIC_LLVM_COMPILER
  "Link fuse-compile against LLVM's static libraries as well" ON)
set(FUSE_LLVM_STATIC_LIBS)
if(FUSE_MLIR_STATIC_LIBS AND FUSE_STATIC_LLVM_COMPILER)
  # The component archives as files (their exported targets' link
  # interfaces reach archives this install lacks, e.g. Polly), and the
  # system libraries they use.
  file(GLOB FUSE_LLVM_STATIC_LIBS "${LLVM_LIBRARY_DIR}/libLLVM*.a")
  # Tools' libraries, and those that name archives or packages this
  # install may lack (Polly, CURL).
  set(skip "TableGen|Exegesis|CFIVerify|Diff|Fuzz|OrcDebugging|Debuginfod")
  list(FILTER FUSE_LLVM_STATIC_LIBS EXCLUDE REGEX
    "libLLVM(${skip}|Extensions|LTO|gold)[^/]*[.]a$")
  if(FUSE_LLVM_STATIC_LIBS)
    list(APPEND FUSE_LLVM_STATIC_LIBS ${CMAKE_DL_LIBS} rt m pthread)
    foreach(t ZLIB::ZLIB zstd::libzstd_shared)
      if(TARGET ${t})
        list(APPEND FUSE_LLVM_STATIC_LIBS ${t})
      endif()
    endforeach()
    # LLVM built with zstd names the package's target, which exists only
    # where zstd's headers are installed (libzstd-dev); the archives need
    # the library either way: the runtime package's libzstd.so.1.
    if(LLVM_ENABLE_ZSTD AND NOT TARGET zstd::libzstd_shared)
      find_library(FUSE_ZSTD_LIBRARY NAMES zstd libzstd.so.1)
      if(FUSE_ZSTD_LIBRARY)
        list(APPEND FUSE_LLVM_STATIC_LIBS ${FUSE_ZSTD_LIBRARY})
      else()
        message(FATAL_ERROR "fuse: LLVM was built with zstd but no zstd "
                "library was found (install libzstd-dev, or configure with "
                "-DFUSE_STATIC_LLVM_COMPILER=OFF)")
      endif()
    endif()
  else()
    message(STATUS "fuse: no static LLVM libraries; fuse-compile links "
                   "libLLVM.so")
  endif()
endif()

# With MLIR (and LLVM) linked in, a position-independent executable carries
# ~270,000 relative relocations that the dynamic loader applies at every
# start: 14.5M of the loader's 15M cycles (LD_DEBUG=statistics). Linked as
# a fixed-address executable (-no-pie; the archives' PIC code links
# unchanged) the loader takes 1.5M cycles: fuse-compile --version 14 ->
# 10.6 ms, copy 66 -> 60 ms (medians of 11, interleaved, 2 cores).
option(FUSE_TOOLS_NO_PIE
  "Link the statically linked tools as fixed-address executables" ON)
set(FUSE_NO_PIE_FLAG)
if(FUSE_MLIR_STATIC_LIBS AND FUSE_TOOLS_NO_PIE)
  include(CheckLinkerFlag)
  check_linker_flag(CXX -no-pie FUSE_LINKER_HAS_NO_PIE)
  if(FUSE_LINKER_HAS_NO_PIE)
    set(FUSE_NO_PIE_FLAG -no-pie)
  endif()
endif()

# fuse_link_tool(TARGET [STATIC_LLVM] MLIR_LIBS...): links TARGET with
# FUSE_TOOL_LIBS and MLIR, statically when FUSE_MLIR_STATIC_LIBS is set,
# else with the given MLIR libraries through libMLIR.so; with STATIC_LLVM
# (and FUSE_LLVM_STATIC_LIBS found) LLVM statically too.
function(fuse_link_tool target)
  cmake_parse_arguments(ARG "STATIC_LLVM" "" "" ${ARGN})
  if(FUSE_MLIR_STATIC_LIBS)
    add_dependencies(${target} ${FUSE_TOOL_LIBS})
    set(files)
    foreach(lib ${FUSE_TOOL_LIBS})
      list(APPEND files "$<TARGET_FILE:${lib}>")
      target_include_directories(${target} PRIVATE
        "$<TARGET_PROPERTY:${lib},INTERFACE_INCLUDE_DIRECTORIES>")
    endforeach()
    if(FUSE_NO_PIE_FLAG)
      target_link_options(${target} PRIVATE ${FUSE_NO_PIE_FLAG})
    endif()
    if(ARG_STATIC_LLVM AND FUSE_LLVM_STATIC_LIBS)
      target_link_libraries(${target} PRIVATE -Wl,--start-group ${files}
        ${FUSE_MLIR_STATIC_LIBS} ${FUSE_LLVM_STATIC_LIBS} -Wl,--end-group)
    else()
      target_link_libraries(${target} PRIVATE -Wl,--start-group ${files}
        ${FUSE_MLIR_STATIC_LIBS} -Wl,--end-group LLVM)
    endif()
  else()
    mlir_target_link_libraries(${target} PRIVATE ${ARG_UNPARSED_ARGUMENTS})
    target_link_libraries(${target} PRIVATE ${FUSE_TOOL_LIBS})
  endif()
endfunction()
