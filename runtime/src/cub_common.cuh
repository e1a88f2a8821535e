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
      using P = typename ::cuda::std::conditional<(sizeof(U) < sizeof(unsigned)),
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

template <typename T, typename Acc, typename Op>
fuse_status_t scanWith(const CubArgs &a, Op op) {
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
                    return cub::DeviceScan::InclusiveScan(temp, bytes, input,
                                                          out, op, a.n,
                                                          a.stream);
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
