//===- Defaults.h - the GPU code generator's default tiling -----*- C++ -*-===//
//
// The tiling convert-fuse-to-gpu gives a group that fuse-tile did not tile
// (the GPU pipelines with fusion off), and the defaults of the options that
// set it (convert-fuse-to-gpu's block-threads, unroll, blocks-per-sm and
// small-reduce; FuseToGPUOptions' block-threads and unroll): one source.
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_CONVERSION_FUSETOGPU_DEFAULTS_H
#define FUSE_CONVERSION_FUSETOGPU_DEFAULTS_H

#include <cstdint>

namespace fuse {

/// Threads per block.
inline constexpr int64_t kDefaultBlockThreads = 256;
/// Vector loads in flight per thread.
inline constexpr int64_t kDefaultUnroll = 4;
/// Resident blocks per SM for persistent grids.
inline constexpr int64_t kDefaultBlocksPerSM = 8;
/// Reductions over at most this many elements run as one block.
inline constexpr int64_t kDefaultSmallReduce = 32768;

} // namespace fuse

#endif // FUSE_CONVERSION_FUSETOGPU_DEFAULTS_H
