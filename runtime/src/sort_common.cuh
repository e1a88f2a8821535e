//===- sort_common.cuh - radix sort dispatch -------------------*- CUDA -*-===//
//
// The key types CUB sorts and the one template that calls it; each
// cub_sort_*.cu instantiates its share (keys alone, pairs ascending, pairs
// descending) so that they compile in parallel.
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_RUNTIME_SORT_COMMON_CUH
#define FUSE_RUNTIME_SORT_COMMON_CUH

#include "internal.h"

#include <cub/device/device_radix_sort.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <string>
#include <type_traits>

namespace fuse_rt {

// Calls f(K{}) with K the key type of `dtype`. bool sorts as u8. bf16
// sorts as f16: CUB's order of a floating-point key depends only on its bit
// pattern (sign bit, then the bits above it, -0.0 taken as +0.0), which is
// the same for every 16-bit sign-magnitude format, so the two give the
// same permutation and one instantiation serves both.
template <typename F> fuse_status_t withKeyType(fuse_dtype_t dtype, F &&f) {
  switch (dtype) {
  case FUSE_F16:
  case FUSE_BF16:
    return f(__half());
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
  case FUSE_U16:
    return f(uint16_t());
  default: // FUSE_U8, FUSE_BOOL
    return f(uint8_t());
  }
}

// One CUB radix sort of K keys, with V values (V = void: keys alone), in
// ascending or descending order; see radixSort in internal.h for `temp`
// and `bytes`. The element count goes to CUB as int64_t (64-bit offsets).
template <typename K, typename V, bool Descending>
fuse_status_t radixSortT(const SortArgs &a, void *temp, size_t &bytes) {
  const K *ki = static_cast<const K *>(a.keysIn);
  K *ko = static_cast<K *>(a.keysOut);
  const int64_t n = a.n;
  constexpr int endBit = int(sizeof(K) * 8);
  cudaError_t err;
  const char *what;
  if constexpr (std::is_void<V>::value) {
    if constexpr (Descending) {
      what = "cub::DeviceRadixSort::SortKeysDescending";
      err = cub::DeviceRadixSort::SortKeysDescending(temp, bytes, ki, ko, n, 0,
                                                     endBit, a.stream);
    } else {
      what = "cub::DeviceRadixSort::SortKeys";
      err = cub::DeviceRadixSort::SortKeys(temp, bytes, ki, ko, n, 0, endBit,
                                           a.stream);
    }
  } else {
    const V *vi = static_cast<const V *>(a.valuesIn);
    V *vo = static_cast<V *>(a.valuesOut);
    if constexpr (Descending) {
      what = "cub::DeviceRadixSort::SortPairsDescending";
      err = cub::DeviceRadixSort::SortPairsDescending(
          temp, bytes, ki, ko, vi, vo, n, 0, endBit, a.stream);
    } else {
      what = "cub::DeviceRadixSort::SortPairs";
      err = cub::DeviceRadixSort::SortPairs(temp, bytes, ki, ko, vi, vo, n, 0,
                                            endBit, a.stream);
    }
  }
  if (err != cudaSuccess)
    return cudaFail(err, a.api,
                    temp ? what
                         : (std::string(what) + " (size query)").c_str());
  return FUSE_SUCCESS;
}

// Pairs of K keys and values of `valueSize` bytes, moved as unsigned words
// of that size (values are never compared).
template <bool Descending, typename K>
fuse_status_t sortPairsT(const SortArgs &a, void *temp, size_t &bytes) {
  switch (a.valueSize) {
  case 1:
    return radixSortT<K, uint8_t, Descending>(a, temp, bytes);
  case 2:
    return radixSortT<K, uint16_t, Descending>(a, temp, bytes);
  case 4:
    return radixSortT<K, uint32_t, Descending>(a, temp, bytes);
  default:
    return radixSortT<K, uint64_t, Descending>(a, temp, bytes);
  }
}

} // namespace fuse_rt

#endif
