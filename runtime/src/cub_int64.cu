//===- cub_int64.cu - reduce and scan over i64 and u64 ---------*- CUDA -*-===//
#include "cub_common.cuh"

namespace fuse_rt {
fuse_status_t reduceInt64(const CubArgs &a) {
  return a.dtype == FUSE_I64 ? reduceT<int64_t, int64_t>(a)
                             : reduceT<uint64_t, uint64_t>(a);
}
fuse_status_t scanInt64(const CubArgs &a) {
  return a.dtype == FUSE_I64 ? scanT<int64_t, int64_t>(a)
                             : scanT<uint64_t, uint64_t>(a);
}
} // namespace fuse_rt
