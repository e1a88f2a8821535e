//===- sort_common.cuh - radix sort dispatch -------------------*- CUDA -*-===//
#ifndef FUSE_RUNTIME_SORT_COMMON_CUH
#define FUSE_RUNTIME_SORT_COMMON_CUH

#include "internal.h"

#include <cub/device/device_radix_sort.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace fuse_rt {

// Calls f(K{}) with K the key type of `dtype` (bool sorts as u8).
template <typename F> fuse_status_t withKeyType(fuse_dtype_t dtype, F &&f) {
  switch (dtype) {
  case FUSE_F16:
    return f(__half());
  case FUSE_BF16:
    return f(__nv_bfloat16());
  case FUSE_F32:
    return f(float());
  case FUSE_F64:
    return f(double());
  case FUSE_I32:
    return f(int32_t());
  case FUSE_I64:
    return f(int64_t());
  case FUSE_U32:
    return f(uint32_t());
  case FUSE_U64:
    return f(uint64_t());
  case FUSE_I8:
    return f(int8_t());
  case FUSE_I16:
    return f(int16_t());
  default: // FUSE_U8, FUSE_BOOL
    return f(uint8_t());
  }
}

} // namespace fuse_rt

#endif
