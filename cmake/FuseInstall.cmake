# Install rules and the CMake package (find_package(Fuse)) for embedders.
#
# add_mlir_library already installs each library file; here the fuse
# libraries are also put into the FuseTargets export set so that an
# installed tree exports imported targets Fuse::<name>, with their
# dependency on MLIR's shared library expressed through find_dependency.
include(CMakePackageConfigHelpers)

set(FUSE_INSTALL_CMAKE_DIR lib${LLVM_LIBDIR_SUFFIX}/cmake/fuse)

# Every fuse library target (built with add_mlir_library) that exists.
set(FUSE_EXPORTED_LIBS)
foreach(lib MLIRFuse FuseUtils FuseTransforms FuseToLoops FuseToGPU
            FusePipelines FuseInitAll)
  if(TARGET ${lib})
    list(APPEND FUSE_EXPORTED_LIBS ${lib})
  endif()
endforeach()

install(TARGETS ${FUSE_EXPORTED_LIBS}
  EXPORT FuseTargets
  ARCHIVE DESTINATION lib${LLVM_LIBDIR_SUFFIX}
  LIBRARY DESTINATION lib${LLVM_LIBDIR_SUFFIX}
  INCLUDES DESTINATION include)
install(EXPORT FuseTargets
  NAMESPACE Fuse::
  DESTINATION ${FUSE_INSTALL_CMAKE_DIR})

# Public headers: the sources and the generated .inc files.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/fuse
  DESTINATION include
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/fuse
  DESTINATION include
  FILES_MATCHING PATTERN "*.inc")

configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/FuseConfig.cmake.in
  ${PROJECT_BINARY_DIR}/FuseConfig.cmake
  INSTALL_DESTINATION ${FUSE_INSTALL_CMAKE_DIR})
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/FuseConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/FuseConfig.cmake
  ${PROJECT_BINARY_DIR}/FuseConfigVersion.cmake
  DESTINATION ${FUSE_INSTALL_CMAKE_DIR})
