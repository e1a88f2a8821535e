//===- cub_sort_pairs.cu - key/value pairs, ascending ----------*- CUDA -*-===//
//
// Values are moved as bits: one instantiation per value size (1, 2, 4, 8
// bytes) and key type. The descending sorts are in cub_sort_pairs_desc.cu,
// compiled in parallel with this file.
//
//===----------------------------------------------------------------------===//
#include "sort_common.cuh"

namespace fuse_rt {
fuse_status_t sortPairsAscending(const SortArgs &a, void *temp, size_t &bytes) {
  return withKeyType(a.keyDtype, [&](auto key) {
    return sortPairsT<false, decltype(key)>(a, temp, bytes);
  });
}
} // namespace fuse_rt
