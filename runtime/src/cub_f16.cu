//===- cub_f16.cu - reduce and scan over f16 (f32 accumulator) -*- CUDA -*-===//
#include "cub_common.cuh"

#include <cuda_fp16.h>

namespace fuse_rt {
fuse_status_t reduceF16(const CubArgs &a) { return reduceT<__half, float>(a); }
fuse_status_t scanF16(const CubArgs &a) { return scanT<__half, float>(a); }
} // namespace fuse_rt
