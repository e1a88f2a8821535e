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

# fuse_link_tool(TARGET MLIR_LIBS...): links TARGET with FUSE_TOOL_LIBS and
# MLIR, statically when FUSE_MLIR_STATIC_LIBS is set, else with the given
# MLIR libraries through libMLIR.so.
function(fuse_link_tool target)
  if(FUSE_MLIR_STATIC_LIBS)
    add_dependencies(${target} ${FUSE_TOOL_LIBS})
    set(files)
    foreach(lib ${FUSE_TOOL_LIBS})
      list(APPEND files "$<TARGET_FILE:${lib}>")
      target_include_directories(${target} PRIVATE
        "$<TARGET_PROPERTY:${lib},INTERFACE_INCLUDE_DIRECTORIES>")
    endforeach()
    target_link_libraries(${target} PRIVATE -Wl,--start-group ${files}
      ${FUSE_MLIR_STATIC_LIBS} -Wl,--end-group LLVM)
  else()
    mlir_target_link_libraries(${target} PRIVATE ${ARGN})
    target_link_libraries(${target} PRIVATE ${FUSE_TOOL_LIBS})
  endif()
endfunction()
