//===- cub_common.cuh - combiners and CUB wrappers ------------*- CUDA -*-===//
//
// Templates shared by the cub_*.cu translation units; each unit
// instantiates one dtype family so that ninja compiles them in parallel.
//
// Semantics (documented in docs/runtime.md):
//  - f16/bf16 accumulate in f32 and round once at the end (reduce) or per
//    output element (scan).
//  - Integer add/mul wrap around modulo 2^bits (computed in the unsigned
//    type, so signed overflow is defined).
//  - Floating min/max propagate NaN: any NaN input gives a NaN result.
//  - Identities: add 0, mul 1, min +inf / the type's max, max -inf / the
//    type's lowest.
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_RUNTIME_CUB_COMMON_CUH
#define FUSE_RUNTIME_CUB_COMMON_CUH

#include "internal.h"

#include <cub/block/block_load.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/transform_iterator.h>

#include <cuda/std/limits>
#include <cuda/std/type_traits>

namespace fuse_rt {

template <typename T> struct Wrap {
  using U = typename ::cuda::std::make_unsigned<T>::type;
};

template <typename T> struct AddOp {
  __host__ __device__ T operator()(const T &a, const T &b) const {
    if constexpr (::cuda::std::is_integral<T>::value) {
      using U = typename Wrap<T>::U;
      return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    } else {
      return a + b;
    }
  }
};

template <typename T> struct MulOp {
  __host__ __device__ T operator()(const T &a, const T &b) const {
    if constexpr (::cuda::std::is_integral<T>::value) {
      using U = typename Wrap<T>::U;
      // Promote to at least unsigned int: u16*u16 would go through int.
      using P =
          typename ::cuda::std::conditional<(sizeof(U) < sizeof(unsigned)),
                                            unsigned, U>::type;
      return static_cast<T>(static_cast<P>(static_cast<U>(a)) *
                            static_cast<P>(static_cast<U>(b)));
    } else {
      return a * b;
    }
  }
};

template <typename T> struct MinOp {
  __host__ __device__ T operator()(const T &a, const T &b) const {
    if constexpr (!::cuda::std::is_integral<T>::value) {
      if (a != a)
        return a;
      if (b != b)
        return b;
    }
    return b < a ? b : a;
  }
};

template <typename T> struct MaxOp {
  __host__ __device__ T operator()(const T &a, const T &b) const {
    if constexpr (!::cuda::std::is_integral<T>::value) {
      if (a != a)
        return a;
      if (b != b)
        return b;
    }
    return a < b ? b : a;
  }
};

template <typename T> T identity(fuse_reduce_op_t op) {
  using L = ::cuda::std::numeric_limits<T>;
  switch (op) {
  case FUSE_REDUCE_ADD:
    return T(0);
  case FUSE_REDUCE_MUL:
    return T(1);
  case FUSE_REDUCE_MIN:
    return L::has_infinity ? L::infinity() : L::max();
  default:
    return L::has_infinity ? -L::infinity() : L::lowest();
  }
}

// Converts a storage element (e.g. __half) to its accumulator (float).
template <typename T, typename Acc> struct ToAcc {
  __host__ __device__ Acc operator()(const T &x) const {
    return static_cast<Acc>(x);
  }
};

template <typename T, typename Acc, typename Op>
fuse_status_t reduceWith(const CubArgs &a, Op op) {
  const T *in = static_cast<const T *>(a.in);
  T *out = static_cast<T *>(a.out);
  Acc init = identity<Acc>(a.op);
  if constexpr (::cuda::std::is_same<T, Acc>::value) {
    return runCub(a.stream, a.api, "cub::DeviceReduce::Reduce",
                  [&](void *temp, size_t &bytes) {
                    return cub::DeviceReduce::Reduce(temp, bytes, in, out, a.n,
                                                     op, init, a.stream);
                  });
  } else {
    return runCub(a.stream, a.api, "cub::DeviceReduce::TransformReduce",
                  [&](void *temp, size_t &bytes) {
                    return cub::DeviceReduce::TransformReduce(
                        temp, bytes, in, out, a.n, op, ToAcc<T, Acc>(), init,
                        a.stream);
                  });
  }
}

template <typename T, typename Acc> fuse_status_t reduceT(const CubArgs &a) {
  switch (a.op) {
  case FUSE_REDUCE_ADD:
    return reduceWith<T, Acc>(a, AddOp<Acc>());
  case FUSE_REDUCE_MUL:
    return reduceWith<T, Acc>(a, MulOp<Acc>());
  case FUSE_REDUCE_MIN:
    return reduceWith<T, Acc>(a, MinOp<Acc>());
  default:
    return reduceWith<T, Acc>(a, MaxOp<Acc>());
  }
}

// ---- deterministic scan for floating types --------------------------------
//
// cub::DeviceScan's decoupled look-back combines a tile's predecessors in an
// order that depends on timing, so floating-point scans are not bitwise
// reproducible. Floating types use this three-phase
// scan instead: fixed tiles of kTile elements, (1) each tile's total with
// cub::BlockReduce, (2) an exclusive scan of the totals (recursively, by the
// same method), (3) each tile's scan with cub::BlockScan seeded with its
// prefix. Every combination happens in a fixed order: bitwise identical
// results run to run for a fixed n and GPU.

constexpr int kScanThreads = 256;
constexpr int kScanItems = 8;
constexpr long long kTile = kScanThreads * kScanItems;

template <typename InIt, typename Acc, typename Op>
__global__ void __launch_bounds__(kScanThreads)
    tileReduceKernel(InIt in, long long n, Acc *partials, Op op, Acc identity) {
  using Load = cub::BlockLoad<Acc, kScanThreads, kScanItems,
                              cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Reduce = cub::BlockReduce<Acc, kScanThreads>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Reduce::TempStorage reduce;
  } temp;
  long long base = static_cast<long long>(blockIdx.x) * kTile;
  int valid = static_cast<int>(n - base < kTile ? n - base : kTile);
  Acc items[kScanItems];
  Load(temp.load).Load(in + base, items, valid, identity);
  __syncthreads();
  Acc total = Reduce(temp.reduce).Reduce(items, op);
  if (threadIdx.x == 0)
    partials[blockIdx.x] = total;
}

template <typename InIt, typename OutT, typename Acc, typename Op>
__global__ void __launch_bounds__(kScanThreads)
    tileScanKernel(InIt in, OutT *out, long long n, const Acc *prefixes, Op op,
                   Acc identity, bool exclusive) {
  using Load = cub::BlockLoad<Acc, kScanThreads, kScanItems,
                              cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Scan = cub::BlockScan<Acc, kScanThreads>;
  using Store = cub::BlockStore<OutT, kScanThreads, kScanItems,
                                cub::BLOCK_STORE_WARP_TRANSPOSE>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Scan::TempStorage scan;
    typename Store::TempStorage store;
  } temp;
  long long base = static_cast<long long>(blockIdx.x) * kTile;
  int valid = static_cast<int>(n - base < kTile ? n - base : kTile);
  Acc items[kScanItems];
  Load(temp.load).Load(in + base, items, valid, identity);
  __syncthreads();
  Acc prefix = prefixes ? prefixes[blockIdx.x] : identity;
  if (exclusive) {
    Scan(temp.scan).ExclusiveScan(items, items, prefix, op);
  } else {
    Scan(temp.scan).InclusiveScan(items, items, op);
    for (int i = 0; i < kScanItems; ++i)
      items[i] = op(prefix, items[i]);
  }
  __syncthreads();
  OutT outItems[kScanItems];
  for (int i = 0; i < kScanItems; ++i)
    outItems[i] = static_cast<OutT>(items[i]);
  Store(temp.store).Store(out + base, outItems, valid);
}

template <typename InIt, typename OutT, typename Acc, typename Op>
fuse_status_t deterministicScan(InIt in, OutT *out, long long n, bool exclusive,
                                Op op, Acc identity, cudaStream_t stream,
                                const char *api) {
  long long tiles = (n + kTile - 1) / kTile;
  const Acc *prefixes = nullptr;
  TempBuffer partials(stream);
  if (tiles > 1) {
    if (fuse_status_t s = partials.allocate(tiles * sizeof(Acc), api))
      return s;
    Acc *p = static_cast<Acc *>(partials.get());
    tileReduceKernel<<<static_cast<unsigned>(tiles), kScanThreads, 0, stream>>>(
        in, n, p, op, identity);
    if (cudaError_t err = cudaGetLastError())
      return cudaFail(err, api, "launch of the scan's tile reduction");
    // In place: each block reads its tile before writing it.
    if (fuse_status_t s = deterministicScan<const Acc *, Acc, Acc, Op>(
            p, p, tiles, true, op, identity, stream, api))
      return s;
    prefixes = p;
  }
  tileScanKernel<<<static_cast<unsigned>(tiles), kScanThreads, 0, stream>>>(
      in, out, n, prefixes, op, identity, exclusive);
  if (cudaError_t err = cudaGetLastError())
    return cudaFail(err, api, "launch of the scan's tile scan");
  return afterLaunch(stream, api, "deterministic scan");
}

template <typename T, typename Acc, typename Op>
fuse_status_t scanWithCub(const CubArgs &a, Op op);

template <typename T, typename Acc, typename Op>
fuse_status_t scanWith(const CubArgs &a, Op op) {
  if constexpr (!::cuda::std::is_integral<T>::value) {
    const T *in = static_cast<const T *>(a.in);
    T *out = static_cast<T *>(a.out);
    Acc init = identity<Acc>(a.op);
    if constexpr (::cuda::std::is_same<T, Acc>::value)
      return deterministicScan(in, out, a.n, a.exclusive != 0, op, init,
                               a.stream, a.api);
    else
      return deterministicScan(
          thrust::make_transform_iterator(in, ToAcc<T, Acc>()), out, a.n,
          a.exclusive != 0, op, init, a.stream, a.api);
  } else {
    return scanWithCub<T, Acc>(a, op);
  }
}

// Integer scans are exact whatever the order: cub::DeviceScan.
template <typename T, typename Acc, typename Op>
fuse_status_t scanWithCub(const CubArgs &a, Op op) {
  const T *in = static_cast<const T *>(a.in);
  T *out = static_cast<T *>(a.out);
  Acc init = identity<Acc>(a.op);
  auto run = [&](auto input) {
    if (a.exclusive)
      return runCub(a.stream, a.api, "cub::DeviceScan::ExclusiveScan",
                    [&](void *temp, size_t &bytes) {
                      return cub::DeviceScan::ExclusiveScan(
                          temp, bytes, input, out, op, init, a.n, a.stream);
                    });
    return runCub(a.stream, a.api, "cub::DeviceScan::InclusiveScan",
                  [&](void *temp, size_t &bytes) {
                    return cub::DeviceScan::InclusiveScan(
                        temp, bytes, input, out, op, a.n, a.stream);
                  });
  };
  if constexpr (::cuda::std::is_same<T, Acc>::value)
    return run(in);
  else
    return run(thrust::make_transform_iterator(in, ToAcc<T, Acc>()));
}

template <typename T, typename Acc> fuse_status_t scanT(const CubArgs &a) {
  switch (a.op) {
  case FUSE_REDUCE_ADD:
    return scanWith<T, Acc>(a, AddOp<Acc>());
  case FUSE_REDUCE_MUL:
    return scanWith<T, Acc>(a, MulOp<Acc>());
  case FUSE_REDUCE_MIN:
    return scanWith<T, Acc>(a, MinOp<Acc>());
  default:
    return scanWith<T, Acc>(a, MaxOp<Acc>());
  }
}

} // namespace fuse_rt

#endif // FUSE_RUNTIME_CUB_COMMON_CUH
