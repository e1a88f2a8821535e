//===- AOTRunner.h - run an AOT-compiled fuse entry on the GPU --*- C++ -*-===//
//
// The runner behind fuse-run-aot and `fuse-run --gpu`: loads a shared
// library and its signature manifest made by `fuse-compile --emit=shared`
// (tools/fuse-compile/AOTCompile.h documents the manifest), checks the
// --arg specs against the entry's signature, then, through the fuse
// runtime, copies the inputs to the device, calls the entry, copies the
// results back (a filter's result: its first `count` elements) and prints,
// saves and/or times them exactly like fuse-run does on the CPU.
//
// Every argument error is reported before the GPU is touched; every
// runtime error (fuse_init without a device, out of memory, a failed
// launch) is reported with fuse_last_error_message() and exit status 1.
// Needs only the runtime (no LLVM or MLIR): library FuseAOTRunner
// (tools/support), built where the runtime is.
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_TOOLSUPPORT_AOTRUNNER_H
#define FUSE_TOOLSUPPORT_AOTRUNNER_H

#include <cstdint>
#include <string>
#include <vector>

namespace fuse {
namespace run {

struct AOTRunOptions {
  std::string manifest; // path of the .json manifest
  std::string library;  // path of the .so; empty: the manifest's "library"
                        // in the manifest's folder
  std::string entry;    // empty: the only entry
  std::vector<std::string> args;
  uint64_t seed = 0;
  std::string outDir;
  bool saveInputs = false;
  bool print = false;
  unsigned repeat = 0;
  /// Also capture one call into a CUDA graph, replay it and check its
  /// bits against the eager call (--graph).
  bool graph = false;
};

/// Runs the entry; returns 0 (errors exit through fail()).
int runAOT(const AOTRunOptions &options);

} // namespace run
} // namespace fuse

#endif // FUSE_TOOLSUPPORT_AOTRUNNER_H
