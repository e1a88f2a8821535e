# Sourced by the GPU scripts that need libfuse_runtime.so alone (the Python
# suite, the random sweep). find_or_build_runtime ROOT BUILD sets `rtlib`:
# the library run-codegen-tests.sh built under ROOT/.device/build-codegen if
# there, else one built here from ROOT/runtime into BUILD/runtime. On a
# failure it calls the caller's `fail` with the reason and the log to read.
find_or_build_runtime() {
  local root="$1" build="$2"
  rtlib=""
  if [ -d "$root/.device/build-codegen/runtime" ]; then
    rtlib="$(find "$root/.device/build-codegen/runtime" -name 'libfuse_runtime.so*' -type f | head -1)"
  fi
  if [ -z "$rtlib" ]; then
    command -v nvcc > /dev/null 2>&1 || export PATH="$PATH:/usr/local/cuda/bin"
    cmake -S "$root/runtime" -B "$build/runtime" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_ARCHITECTURES=90 -DFUSE_RUNTIME_BUILD_TESTS=OFF \
      > "$build/runtime-cmake.log" 2>&1 || fail "runtime: cmake failed (see $build/runtime-cmake.log)"
    cmake --build "$build/runtime" -j "$(nproc)" --target fuse_runtime \
      > "$build/runtime-build.log" 2>&1 || fail "runtime: build failed (see $build/runtime-build.log)"
    rtlib="$(find "$build/runtime" -name 'libfuse_runtime.so*' -type f | head -1)"
  fi
  [ -n "$rtlib" ] || fail "runtime: libfuse_runtime.so not found"
}
