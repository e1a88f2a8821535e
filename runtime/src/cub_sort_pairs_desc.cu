//===- cub_sort_pairs_desc.cu - key/value pairs, descending ----*- CUDA -*-===//
//
// cub_sort_pairs.cu's instantiations for the descending order.
//
//===----------------------------------------------------------------------===//
#include "sort_common.cuh"

namespace fuse_rt {
fuse_status_t sortPairsDescending(const SortArgs &a, void *temp,
                                  size_t &bytes) {
  return withKeyType(a.keyDtype, [&](auto key) {
    return sortPairsT<true, decltype(key)>(a, temp, bytes);
  });
}
} // namespace fuse_rt
