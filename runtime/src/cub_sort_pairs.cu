//===- cub_sort_pairs.cu - radix sort of key/value pairs -------*- CUDA -*-===//
//
// Values are moved as bits: one instantiation per value size (1, 2, 4, 8
// bytes) and key type.
//
//===----------------------------------------------------------------------===//
#include "sort_common.cuh"

namespace fuse_rt {
namespace {
template <typename K, typename V>
fuse_status_t pairsT(const void *keysIn, void *keysOut, const void *valuesIn,
                     void *valuesOut, int64_t n, cudaStream_t stream,
                     const char *api) {
  const K *ki = static_cast<const K *>(keysIn);
  K *ko = static_cast<K *>(keysOut);
  const V *vi = static_cast<const V *>(valuesIn);
  V *vo = static_cast<V *>(valuesOut);
  return runCub(stream, api, "cub::DeviceRadixSort::SortPairs",
                [&](void *temp, size_t &bytes) {
                  return cub::DeviceRadixSort::SortPairs(
                      temp, bytes, ki, ko, vi, vo, n, 0, int(sizeof(K) * 8),
                      stream);
                });
}
} // namespace

fuse_status_t sortPairs(fuse_dtype_t keyDtype, const void *keysIn,
                        void *keysOut, size_t valueSize, const void *valuesIn,
                        void *valuesOut, int64_t n, cudaStream_t stream,
                        const char *api) {
  return withKeyType(keyDtype, [&](auto key) {
    using K = decltype(key);
    switch (valueSize) {
    case 1:
      return pairsT<K, uint8_t>(keysIn, keysOut, valuesIn, valuesOut, n, stream,
                                api);
    case 2:
      return pairsT<K, uint16_t>(keysIn, keysOut, valuesIn, valuesOut, n,
                                 stream, api);
    case 4:
      return pairsT<K, uint32_t>(keysIn, keysOut, valuesIn, valuesOut, n,
                                 stream, api);
    default:
      return pairsT<K, uint64_t>(keysIn, keysOut, valuesIn, valuesOut, n,
                                 stream, api);
    }
  });
}
} // namespace fuse_rt
