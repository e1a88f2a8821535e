//===- cub_int32.cu - reduce and scan over i32 and u32 ---------*- CUDA -*-===//
#include "cub_common.cuh"

namespace fuse_rt {
fuse_status_t reduceInt32(const CubArgs &a) {
  return a.dtype == FUSE_I32 ? reduceT<int32_t, int32_t>(a)
                             : reduceT<uint32_t, uint32_t>(a);
}
fuse_status_t scanInt32(const CubArgs &a) {
  return a.dtype == FUSE_I32 ? scanT<int32_t, int32_t>(a)
                             : scanT<uint32_t, uint32_t>(a);
}
} // namespace fuse_rt
