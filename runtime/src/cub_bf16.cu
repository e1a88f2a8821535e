//===- cub_bf16.cu - reduce and scan over bf16 (f32 accumulator) ----------===//
#include "cub_common.cuh"

#include <cuda_bf16.h>

namespace fuse_rt {
fuse_status_t reduceBF16(const CubArgs &a) {
  return reduceT<__nv_bfloat16, float>(a);
}
fuse_status_t scanBF16(const CubArgs &a) {
  return scanT<__nv_bfloat16, float>(a);
}
} // namespace fuse_rt
