//===- cub_select.cu - stream compaction -----------------------*- CUDA -*-===//
//
// Selection moves bits, so it is instantiated once per element size (1, 2,
// 4, 8 bytes) rather than once per dtype.
//
//===----------------------------------------------------------------------===//
#include "internal.h"

#include <cub/device/device_select.cuh>

namespace fuse_rt {
namespace {
template <typename U>
fuse_status_t selectT(const void *in, const uint8_t *flags, void *out,
                      int64_t *count, int64_t n, cudaStream_t stream,
                      const char *api) {
  const U *i = static_cast<const U *>(in);
  U *o = static_cast<U *>(out);
  return runCub(stream, api, "cub::DeviceSelect::Flagged",
                [&](void *temp, size_t &bytes) {
                  return cub::DeviceSelect::Flagged(temp, bytes, i, flags, o,
                                                    count, n, stream);
                });
}
} // namespace

fuse_status_t selectFlagged(size_t elemSize, const void *in,
                            const uint8_t *flags, void *out,
                            int64_t *countDevice, int64_t n,
                            cudaStream_t stream, const char *api) {
  switch (elemSize) {
  case 1:
    return selectT<uint8_t>(in, flags, out, countDevice, n, stream, api);
  case 2:
    return selectT<uint16_t>(in, flags, out, countDevice, n, stream, api);
  case 4:
    return selectT<uint32_t>(in, flags, out, countDevice, n, stream, api);
  default:
    return selectT<uint64_t>(in, flags, out, countDevice, n, stream, api);
  }
}
} // namespace fuse_rt
