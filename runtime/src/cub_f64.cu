//===- cub_f64.cu - reduce and scan over f64 -------------------*- CUDA -*-===//
#include "cub_common.cuh"

namespace fuse_rt {
fuse_status_t reduceF64(const CubArgs &a) { return reduceT<double, double>(a); }
fuse_status_t scanF64(const CubArgs &a) { return scanT<double, double>(a); }
} // namespace fuse_rt
