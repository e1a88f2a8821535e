//===- cub_f32.cu - reduce and scan over f32 -------------------*- CUDA -*-===//
#include "cub_common.cuh"

namespace fuse_rt {
fuse_status_t reduceF32(const CubArgs &a) { return reduceT<float, float>(a); }
fuse_status_t scanF32(const CubArgs &a) { return scanT<float, float>(a); }
} // namespace fuse_rt
