# Included by the top-level CMakeLists.txt before fuse's libraries when
# FUSE_BUILD_FUZZER is ON. Instruments everything fuse compiles for
# libFuzzer coverage, AddressSanitizer and UndefinedBehaviorSanitizer (use a
# separate build directory: scripts/fuzz.sh makes one with clang). Sets
# FUSE_FUZZER_SUPPORTED; when the compiler cannot build a libFuzzer target
# the fuzzer is skipped with a warning and the rest builds as usual.
include(CheckCXXSourceCompiles)
set(CMAKE_REQUIRED_FLAGS "-fsanitize=fuzzer")
check_cxx_source_compiles([[
#include <cstddef>
#include <cstdint>
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *, size_t) { return 0; }
]] FUSE_COMPILER_HAS_LIBFUZZER)
unset(CMAKE_REQUIRED_FLAGS)

if(FUSE_COMPILER_HAS_LIBFUZZER)
  set(FUSE_FUZZER_SUPPORTED ON)
  # Recoverable UBSan reports would only print; make every report fatal so
  # libFuzzer records the input. vptr needs RTTI, which LLVM builds without.
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined
                      -fno-sanitize=vptr -fno-sanitize-recover=all
                      -fno-omit-frame-pointer -g1)
  add_link_options(-fsanitize=address,undefined)
else()
  set(FUSE_FUZZER_SUPPORTED OFF)
  message(WARNING "FUSE_BUILD_FUZZER: ${CMAKE_CXX_COMPILER} cannot build "
                  "libFuzzer targets (-fsanitize=fuzzer); use clang. "
                  "fuse-fuzz is not built.")
endif()
