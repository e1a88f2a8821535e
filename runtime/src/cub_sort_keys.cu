//===- cub_sort_keys.cu - radix sort of keys -------------------*- CUDA -*-===//
#include "sort_common.cuh"

namespace fuse_rt {
fuse_status_t sortKeys(fuse_dtype_t keyDtype, const void *keysIn, void *keysOut,
                       int64_t n, cudaStream_t stream, const char *api) {
  return withKeyType(keyDtype, [&](auto key) {
    using K = decltype(key);
    const K *ki = static_cast<const K *>(keysIn);
    K *ko = static_cast<K *>(keysOut);
    return runCub(stream, api, "cub::DeviceRadixSort::SortKeys",
                  [&](void *temp, size_t &bytes) {
                    return cub::DeviceRadixSort::SortKeys(
                        temp, bytes, ki, ko, n, 0, int(sizeof(K) * 8), stream);
                  });
  });
}
} // namespace fuse_rt
