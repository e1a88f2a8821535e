//===- internal.h - shared internals of the fuse runtime --------*- C++ -*-===//
//
// Error reporting, context poisoning, argument checks and the allocator
// interface shared by the host code (runtime.cpp, module.cpp,
// allocator.cpp) and the CUB translation units (cub_*.cu).
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_RUNTIME_INTERNAL_H
#define FUSE_RUNTIME_INTERNAL_H

#include "fuse_runtime.h"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#if defined(FUSE_RUNTIME_BUILDING)
#define FUSE_API extern "C" __attribute__((visibility("default")))
#else
#define FUSE_API extern "C"
#endif

namespace fuse_rt {

// Records `message` (printf-style) as this thread's last error and returns
// `status`.
fuse_status_t fail(fuse_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

// Maps a failed CUDA runtime call to a status, records a message naming the
// API function, the call and the CUDA error, clears non-sticky errors and
// poisons the context on sticky ones.
fuse_status_t cudaFail(cudaError_t err, const char *api, const char *what);

// Clears this thread's last error message (called on entry of each API
// function so that a success leaves "" behind).
void clearError();

// FUSE_SUCCESS if the runtime is initialised and not poisoned, and makes
// the device current on this thread; otherwise the failing status.
fuse_status_t enter(const char *api);

// True when FUSE_LAUNCH_BLOCKING=1.
bool launchBlocking();

// Resolves the NULL stream to the per-thread default stream.
inline cudaStream_t toStream(fuse_stream_t s) {
  return s ? static_cast<cudaStream_t>(s) : cudaStreamPerThread;
}

// Whether `stream` is being captured into a graph (an error status if
// CUDA cannot say).
fuse_status_t captureState(cudaStream_t stream, const char *api,
                           bool &capturing);
// FUSE_ERROR_NOT_PERMITTED if `stream` is being captured into a graph.
fuse_status_t checkNotCapturing(cudaStream_t stream, const char *api);

// Synchronises `stream` when FUSE_LAUNCH_BLOCKING=1 and attributes a fault
// to `what`.
fuse_status_t afterLaunch(cudaStream_t stream, const char *api,
                          const char *what);

// Size of one element, 0 for an unknown dtype.
size_t dtypeSize(fuse_dtype_t dtype);
const char *dtypeName(fuse_dtype_t dtype);

// Checks that `p` is non-null and aligned to `align` when `needed`.
fuse_status_t checkPointer(const void *p, size_t align, const char *api,
                           const char *name);
fuse_status_t checkCount(int64_t n, const char *api);

// Whether [a, a+abytes) and [b, b+bbytes) overlap.
bool overlaps(const void *a, size_t abytes, const void *b, size_t bbytes);

// Caching allocator (allocator.cpp).
fuse_status_t allocate(void **ptr, size_t bytes, cudaStream_t stream,
                       const char *api);
fuse_status_t deallocate(void *ptr, cudaStream_t stream, const char *api);
void releaseStream(cudaStream_t stream);

// A temporary device buffer freed (into the cache) on scope exit.
class TempBuffer {
public:
  TempBuffer(cudaStream_t stream) : stream_(stream) {}
  ~TempBuffer() {
    if (ptr_)
      deallocate(ptr_, stream_, "temporary");
  }
  TempBuffer(const TempBuffer &) = delete;
  TempBuffer &operator=(const TempBuffer &) = delete;
  fuse_status_t allocate(size_t bytes, const char *api) {
    return fuse_rt::allocate(&ptr_, bytes, stream_, api);
  }
  void *get() const { return ptr_; }

private:
  cudaStream_t stream_;
  void *ptr_ = nullptr;
};

// Per-dtype-family CUB entry points (cub_*.cu). Arguments are validated by
// the caller; each returns a status with the message already recorded.
struct CubArgs {
  fuse_reduce_op_t op;
  fuse_dtype_t dtype;
  const void *in;
  void *out;
  int64_t n;
  int exclusive;
  cudaStream_t stream;
  const char *api;
};
fuse_status_t reduceF16(const CubArgs &a);
fuse_status_t reduceBF16(const CubArgs &a);
fuse_status_t reduceF32(const CubArgs &a);
fuse_status_t reduceF64(const CubArgs &a);
fuse_status_t reduceInt32(const CubArgs &a); // i32 and u32
fuse_status_t reduceInt64(const CubArgs &a); // i64 and u64
fuse_status_t scanF16(const CubArgs &a);
fuse_status_t scanBF16(const CubArgs &a);
fuse_status_t scanF32(const CubArgs &a);
fuse_status_t scanF64(const CubArgs &a);
fuse_status_t scanInt32(const CubArgs &a);
fuse_status_t scanInt64(const CubArgs &a);

fuse_status_t selectFlagged(size_t elemSize, const void *in,
                            const uint8_t *flags, void *out,
                            int64_t *countDevice, int64_t n,
                            cudaStream_t stream, const char *api);

// Radix sort (cub_sort_keys.cu, cub_sort_pairs_*.cu): CUB's DeviceRadixSort
// SortKeys/SortPairs or their Descending forms, stable. valueSize 0 sorts
// keys alone; values are moved as 1/2/4/8-byte words. With temp == NULL,
// sets `bytes` to the temporary storage the sort needs (host arithmetic
// only: no allocation, no launch, no synchronisation); otherwise sorts with
// the `bytes` bytes at `temp`. Arguments are validated by the caller (n > 0
// for a sort; keys and values do not overlap the outputs or temp).
struct SortArgs {
  fuse_dtype_t keyDtype;
  bool descending;
  const void *keysIn;
  void *keysOut;
  size_t valueSize; // 0: keys only
  const void *valuesIn;
  void *valuesOut;
  int64_t n;
  cudaStream_t stream;
  const char *api;
};
fuse_status_t sortKeys(const SortArgs &a, void *temp, size_t &bytes);
fuse_status_t sortPairsAscending(const SortArgs &a, void *temp, size_t &bytes);
fuse_status_t sortPairsDescending(const SortArgs &a, void *temp, size_t &bytes);
// Argsort's kernels (argsort.cu): p[i] = i for i < n, as 4-byte words
// (wide == false) or 8-byte ones; out[i] = in[i] widened from 4 to 8 bytes.
fuse_status_t launchPositions(void *p, bool wide, int64_t n,
                              cudaStream_t stream, const char *api);
fuse_status_t launchWidenPositions(const uint32_t *in, int64_t *out, int64_t n,
                                   cudaStream_t stream, const char *api);
// *dst = clamp(*src, 0, capacity), one thread (argsort.cu).
fuse_status_t launchCountClamp(int64_t *dst, const int64_t *src,
                               int64_t capacity, cudaStream_t stream,
                               const char *api);
inline fuse_status_t radixSort(const SortArgs &a, void *temp, size_t &bytes) {
  if (a.valueSize == 0)
    return sortKeys(a, temp, bytes);
  return a.descending ? sortPairsDescending(a, temp, bytes)
                      : sortPairsAscending(a, temp, bytes);
}

// Runs a CUB call twice (size query, then the real call) with temporary
// storage from the caching allocator. `call(void *temp, size_t &bytes)`.
template <typename Call>
fuse_status_t runCub(cudaStream_t stream, const char *api, const char *what,
                     Call &&call) {
  size_t bytes = 0;
  cudaError_t err = call(nullptr, bytes);
  if (err != cudaSuccess)
    return cudaFail(err, api, what);
  TempBuffer temp(stream);
  if (fuse_status_t s = temp.allocate(bytes ? bytes : 1, api))
    return s;
  err = call(temp.get(), bytes);
  if (err != cudaSuccess)
    return cudaFail(err, api, what);
  return afterLaunch(stream, api, what);
}

} // namespace fuse_rt

#endif // FUSE_RUNTIME_INTERNAL_H
