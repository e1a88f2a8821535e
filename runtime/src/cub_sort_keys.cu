//===- cub_sort_keys.cu - radix sort of keys -------------------*- CUDA -*-===//
#include "sort_common.cuh"

namespace fuse_rt {
fuse_status_t sortKeys(const SortArgs &a, void *temp, size_t &bytes) {
  return withKeyType(a.keyDtype, [&](auto key) {
    using K = decltype(key);
    return a.descending ? radixSortT<K, void, true>(a, temp, bytes)
                        : radixSortT<K, void, false>(a, temp, bytes);
  });
}
} // namespace fuse_rt
