//===- argsort.cu - the runtime's own small kernels ------------*- CUDA -*-===//
//
// fuse_argsort_ws (sort.cpp) sorts each key with its position: these
// kernels write the positions 0..n-1 for CUB to move, and widen the moved
// 4-byte positions into the caller's int64 array. Grid-stride loops with
// 64-bit indices, so any n launches one bounded grid.
// fuse_count_clamp (runtime.cpp) copies a count clamped to a capacity.
//
//===----------------------------------------------------------------------===//
#include "internal.h"

#include <cuda_runtime.h>

namespace fuse_rt {
namespace {

constexpr int kThreads = 256;

template <typename T> __global__ void positionsKernel(T *p, int64_t n) {
  int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    p[i] = static_cast<T>(i);
}

__global__ void widenKernel(const uint32_t *in, int64_t *out, int64_t n) {
  int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    out[i] = static_cast<int64_t>(in[i]);
}

// Blocks for n elements: one element a thread up to a bound that keeps
// every SM busy (the loops stride past it).
unsigned blocksFor(int64_t n) {
  int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 65536 ? (b > 0 ? b : 1) : 65536);
}

fuse_status_t launched(cudaStream_t stream, const char *api, const char *what) {
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess)
    return cudaFail(err, api, what);
  return afterLaunch(stream, api, what);
}

__global__ void clampKernel(int64_t *dst, const int64_t *src,
                            int64_t capacity) {
  int64_t n = *src;
  *dst = n < 0 ? 0 : (n > capacity ? capacity : n);
}

} // namespace

fuse_status_t launchCountClamp(int64_t *dst, const int64_t *src,
                               int64_t capacity, cudaStream_t stream,
                               const char *api) {
  clampKernel<<<1, 1, 0, stream>>>(dst, src, capacity);
  return launched(stream, api, "the count clamp kernel");
}

fuse_status_t launchPositions(void *p, bool wide, int64_t n,
                              cudaStream_t stream, const char *api) {
  if (wide)
    positionsKernel<int64_t>
        <<<blocksFor(n), kThreads, 0, stream>>>(static_cast<int64_t *>(p), n);
  else
    positionsKernel<uint32_t>
        <<<blocksFor(n), kThreads, 0, stream>>>(static_cast<uint32_t *>(p), n);
  return launched(stream, api, "the positions kernel");
}

fuse_status_t launchWidenPositions(const uint32_t *in, int64_t *out, int64_t n,
                                   cudaStream_t stream, const char *api) {
  widenKernel<<<blocksFor(n), kThreads, 0, stream>>>(in, out, n);
  return launched(stream, api, "the position widening kernel");
}

} // namespace fuse_rt
