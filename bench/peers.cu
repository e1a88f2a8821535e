// Peer implementations of the benchmark workloads (bench/README.md):
// CUB with Thrust transform iterators, and hand-written fused CUDA kernels.
// Each run is timed with CUDA events (warm-up, then the median of --reps
// runs), checked against a float64 host reference, and printed as one JSON
// line. fuse's own implementations are timed by bench/bench_fuse.cpp with the
// same harness (bench/harness.h).
#include "harness.h"

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cfloat>

using namespace bench;

namespace {

struct Square {
  __host__ __device__ float operator()(float v) const { return v * v; }
};
struct ProductAt {
  const float *x, *y;
  __host__ __device__ float operator()(int64_t i) const { return x[i] * y[i]; }
};
struct Positive {
  __host__ __device__ bool operator()(float v) const { return v > 0.0f; }
};
struct SquaredDeviation {
  const float *mean;
  __host__ __device__ float operator()(float v) const {
    float d = v - *mean;
    return d * d;
  }
};

// ---- hand-written fused kernels --------------------------------------------

__global__ void copyKernel(const float4 *__restrict__ x, float4 *__restrict__ y,
                           int64_t n4) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n4;
       i += (int64_t)gridDim.x * blockDim.x)
    y[i] = x[i];
}

__device__ __forceinline__ float chainOp(float v) {
  float t = fmaxf(1.5f * v + 0.25f, 0.0f);
  return t * 0.5f + v;
}

__global__ void chainKernel(const float4 *__restrict__ x, float4 *__restrict__ y,
                            int64_t n4) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n4;
       i += (int64_t)gridDim.x * blockDim.x) {
    float4 v = x[i];
    y[i] = make_float4(chainOp(v.x), chainOp(v.y), chainOp(v.z), chainOp(v.w));
  }
}

template <int BLOCK>
__device__ float blockSum(float v) {
  __shared__ float warpSums[BLOCK / 32];
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0)
    warpSums[threadIdx.x >> 5] = v;
  __syncthreads();
  v = threadIdx.x < BLOCK / 32 ? warpSums[threadIdx.x] : 0.0f;
  if (threadIdx.x < 32)
    for (int o = 16; o > 0; o >>= 1)
      v += __shfl_xor_sync(0xffffffffu, v, o);
  __syncthreads();
  return v;
}

template <int BLOCK>
__device__ float blockMax(float v) {
  __shared__ float warpMax[BLOCK / 32];
  for (int o = 16; o > 0; o >>= 1)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  if ((threadIdx.x & 31) == 0)
    warpMax[threadIdx.x >> 5] = v;
  __syncthreads();
  v = threadIdx.x < BLOCK / 32 ? warpMax[threadIdx.x] : -INFINITY;
  if (threadIdx.x < 32)
    for (int o = 16; o > 0; o >>= 1)
      v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  __syncthreads();
  return v;
}

// One block per row of 4096 floats: the row stays in registers (16 per
// thread with 256 threads), read once, written once.
template <int BLOCK, int PER_THREAD>
__global__ void softmaxRowsKernel(const float *__restrict__ x,
                                  float *__restrict__ y, int64_t cols) {
  const float4 *row = reinterpret_cast<const float4 *>(x + blockIdx.x * cols);
  float4 *out = reinterpret_cast<float4 *>(y + blockIdx.x * cols);
  float4 v[PER_THREAD / 4];
  float m = -INFINITY;
#pragma unroll
  for (int k = 0; k < PER_THREAD / 4; ++k) {
    v[k] = row[k * BLOCK + threadIdx.x];
    m = fmaxf(m, fmaxf(fmaxf(v[k].x, v[k].y), fmaxf(v[k].z, v[k].w)));
  }
  m = blockMax<BLOCK>(m);
  __shared__ float bcast;
  if (threadIdx.x == 0)
    bcast = m;
  __syncthreads();
  m = bcast;
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < PER_THREAD / 4; ++k) {
    v[k].x = __expf(v[k].x - m);
    v[k].y = __expf(v[k].y - m);
    v[k].z = __expf(v[k].z - m);
    v[k].w = __expf(v[k].w - m);
    s += (v[k].x + v[k].y) + (v[k].z + v[k].w);
  }
  s = blockSum<BLOCK>(s);
  __syncthreads();
  if (threadIdx.x == 0)
    bcast = s;
  __syncthreads();
  float inv = 1.0f / bcast;
#pragma unroll
  for (int k = 0; k < PER_THREAD / 4; ++k)
    out[k * BLOCK + threadIdx.x] = make_float4(v[k].x * inv, v[k].y * inv,
                                               v[k].z * inv, v[k].w * inv);
}

/// __expf (ex2.approx, what hand-written kernels and torch.compile use) or
/// the accurate expf (what fuse generates): a diagnostic pair of peers.
template <bool FAST>
__device__ __forceinline__ float expOf(float x) {
  return FAST ? __expf(x) : expf(x);
}

template <int BLOCK, int PER_THREAD, bool FAST_EXP = true>
__global__ void logsumexpRowsKernel(const float *__restrict__ x,
                                    float *__restrict__ y, int64_t cols) {
  const float4 *row = reinterpret_cast<const float4 *>(x + blockIdx.x * cols);
  float4 v[PER_THREAD / 4];
  float m = -INFINITY;
#pragma unroll
  for (int k = 0; k < PER_THREAD / 4; ++k) {
    v[k] = row[k * BLOCK + threadIdx.x];
    m = fmaxf(m, fmaxf(fmaxf(v[k].x, v[k].y), fmaxf(v[k].z, v[k].w)));
  }
  m = blockMax<BLOCK>(m);
  __shared__ float bcast;
  if (threadIdx.x == 0)
    bcast = m;
  __syncthreads();
  m = bcast;
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < PER_THREAD / 4; ++k)
    s += (expOf<FAST_EXP>(v[k].x - m) + expOf<FAST_EXP>(v[k].y - m)) +
         (expOf<FAST_EXP>(v[k].z - m) + expOf<FAST_EXP>(v[k].w - m));
  s = blockSum<BLOCK>(s);
  if (threadIdx.x == 0)
    y[blockIdx.x] = logf(s) + m;
}

// Variance in one pass: per-block (count, mean, M2) by Chan's parallel
// combination, then one block combines the partials in a fixed order.
struct Welford {
  double n, mean, m2;
};
__device__ __host__ inline Welford combine(Welford a, Welford b) {
  if (a.n == 0)
    return b;
  if (b.n == 0)
    return a;
  double n = a.n + b.n, d = b.mean - a.mean;
  return {n, a.mean + d * (b.n / n), a.m2 + b.m2 + d * d * (a.n * b.n / n)};
}

template <int BLOCK>
__global__ void welfordPartials(const float4 *__restrict__ x, int64_t n4,
                                Welford *partials) {
  // Per thread: a float sum and sum of squares of a shifted value would be
  // faster; this hand kernel uses per-thread Welford in float then combines
  // in double.
  float cnt = 0, mean = 0, m2 = 0;
  for (int64_t i = blockIdx.x * (int64_t)BLOCK + threadIdx.x; i < n4;
       i += (int64_t)gridDim.x * BLOCK) {
    float4 v = x[i];
    float e[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      cnt += 1.0f;
      float d = e[k] - mean;
      mean += d / cnt;
      m2 += d * (e[k] - mean);
    }
  }
  __shared__ Welford s[BLOCK];
  s[threadIdx.x] = {cnt, mean, m2};
  __syncthreads();
  for (int w = BLOCK / 2; w > 0; w >>= 1) {
    if (threadIdx.x < w)
      s[threadIdx.x] = combine(s[threadIdx.x], s[threadIdx.x + w]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    partials[blockIdx.x] = s[0];
}

__global__ void welfordFinish(const Welford *partials, int count, float *out) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    Welford acc{0, 0, 0};
    for (int i = 0; i < count; ++i)
      acc = combine(acc, partials[i]);
    *out = acc.n > 0 ? (float)(acc.m2 / acc.n) : NAN;
  }
}

__global__ void divideBy(float *v, double n) { *v = (float)(*v / n); }

int gridFor(int64_t work, int block) {
  int64_t blocks = (work + block - 1) / block;
  int64_t cap = (int64_t)Device::get().smCount * 8;
  return (int)std::max<int64_t>(1, std::min(blocks, cap));
}

// ---- the workloads --------------------------------------------------------

void runCopy(Runner &r, const DeviceArray &x) {
  DeviceArray y(x.n);
  r.time("copy", "cudaMemcpy", 8.0 * x.n, [&] {
    check(cudaMemcpyAsync(y.p, x.p, 4 * x.n, cudaMemcpyDeviceToDevice));
  }, {{y.p, 4 * x.n}});
  r.verifyElementwise(y, x.host, 0.0);
  r.time("copy", "hand", 8.0 * x.n, [&] {
    copyKernel<<<gridFor(x.n / 4, 256), 256>>>((const float4 *)x.p,
                                               (float4 *)y.p, x.n / 4);
  }, {{y.p, 4 * x.n}});
  r.verifyElementwise(y, x.host, 0.0);
}

void runSumsq(Runner &r, const DeviceArray &x, const char *name) {
  DeviceScalar out;
  auto it = thrust::make_transform_iterator(x.p, Square());
  TempStorage tmp;
  size_t bytes = 0;
  check(cub::DeviceReduce::Sum(nullptr, bytes, it, out.p, x.n));
  tmp.ensure(bytes);
  r.time(name, "cub", 4.0 * x.n, [&] {
    check(cub::DeviceReduce::Sum(tmp.p, bytes, it, out.p, x.n));
  }, {{out.p, 4}});
  double ref = 0, scale = 0;
  for (int64_t i = 0; i < x.n; ++i) {
    double v = (double)x.host[i] * x.host[i];
    ref += v;
    scale += v;
  }
  r.verifyScalar(out.get(), ref, scale, 1e-4);
}

void runDot(Runner &r, const DeviceArray &x, const DeviceArray &y) {
  DeviceScalar out;
  auto it = thrust::make_transform_iterator(thrust::make_counting_iterator<int64_t>(0),
                                            ProductAt{x.p, y.p});
  TempStorage tmp;
  size_t bytes = 0;
  check(cub::DeviceReduce::Sum(nullptr, bytes, it, out.p, x.n));
  tmp.ensure(bytes);
  r.time("dot", "cub", 8.0 * x.n, [&] {
    check(cub::DeviceReduce::Sum(tmp.p, bytes, it, out.p, x.n));
  }, {{out.p, 4}});
  double ref = 0, scale = 0;
  for (int64_t i = 0; i < x.n; ++i) {
    double v = (double)x.host[i] * y.host[i];
    ref += v;
    scale += std::fabs(v);
  }
  r.verifyScalar(out.get(), ref, scale, 1e-4);
}

void runChain(Runner &r, const DeviceArray &x) {
  DeviceArray y(x.n);
  r.time("chain", "hand", 8.0 * x.n, [&] {
    chainKernel<<<gridFor(x.n / 4, 256), 256>>>((const float4 *)x.p,
                                                (float4 *)y.p, x.n / 4);
  }, {{y.p, 4 * x.n}});
  std::vector<double> ref(x.n);
  for (int64_t i = 0; i < x.n; ++i) {
    double v = x.host[i];
    ref[i] = std::max(1.5 * v + 0.25, 0.0) * 0.5 + v;
  }
  r.verifyElementwise(y, ref, 1e-6);
}

void runScan(Runner &r, const DeviceArray &x) {
  DeviceArray y(x.n);
  auto it = thrust::make_transform_iterator(x.p, Square());
  TempStorage tmp;
  size_t bytes = 0;
  check(cub::DeviceScan::InclusiveSum(nullptr, bytes, it, y.p, x.n));
  tmp.ensure(bytes);
  r.time("scan", "cub", 8.0 * x.n, [&] {
    check(cub::DeviceScan::InclusiveSum(tmp.p, bytes, it, y.p, x.n));
  }, {{y.p, 4 * x.n}});
  std::vector<double> ref(x.n);
  double acc = 0;
  for (int64_t i = 0; i < x.n; ++i)
    ref[i] = acc += (double)x.host[i] * x.host[i];
  // Terms are non-negative: the prefix itself is the error scale.
  r.verifyElementwise(y, ref, 1e-4);
}

void runSelect(Runner &r, const DeviceArray &x) {
  DeviceArray y(x.n);
  DeviceValue<int64_t> count;
  TempStorage tmp;
  size_t bytes = 0;
  check(cub::DeviceSelect::If(nullptr, bytes, x.p, y.p, count.p, x.n,
                              Positive()));
  tmp.ensure(bytes);
  std::vector<double> ref;
  for (int64_t i = 0; i < x.n; ++i)
    if (x.host[i] > 0)
      ref.push_back(x.host[i]);
  r.time("select", "cub", 4.0 * x.n + 4.0 * ref.size(), [&] {
    check(cub::DeviceSelect::If(tmp.p, bytes, x.p, y.p, count.p, x.n,
                                Positive()));
  }, {{y.p, 4 * x.n}, {count.p, 8}});
  r.verifySelect(y, count.get(), ref);
}

void runVariance(Runner &r, const DeviceArray &x) {
  double mean = 0;
  for (int64_t i = 0; i < x.n; ++i)
    mean += x.host[i];
  mean /= x.n;
  double ref = 0, scale = 0;
  for (int64_t i = 0; i < x.n; ++i) {
    double d = x.host[i] - mean;
    ref += d * d;
    scale += d * d;
  }
  ref /= x.n;
  scale /= x.n;

  // CUB: two passes (mean, then the squared deviations), 8n bytes.
  DeviceScalar sum, out;
  TempStorage tmp;
  size_t b1 = 0, b2 = 0;
  auto dev = thrust::make_transform_iterator(x.p, SquaredDeviation{sum.p});
  check(cub::DeviceReduce::Sum(nullptr, b1, x.p, sum.p, x.n));
  check(cub::DeviceReduce::Sum(nullptr, b2, dev, out.p, x.n));
  tmp.ensure(std::max(b1, b2));
  r.time("variance", "cub-2pass", 4.0 * x.n, [&] {
    check(cub::DeviceReduce::Sum(tmp.p, b1, x.p, sum.p, x.n));
    divideBy<<<1, 1>>>(sum.p, (double)x.n);
    check(cub::DeviceReduce::Sum(tmp.p, b2, dev, out.p, x.n));
    divideBy<<<1, 1>>>(out.p, (double)x.n);
  }, {{out.p, 4}});
  r.verifyScalar(out.get(), ref, scale, 1e-4);

  // Hand-written one-pass Welford.
  const int grid = Device::get().smCount * 4;
  DeviceValue<Welford> partials(grid);
  r.time("variance", "hand-welford", 4.0 * x.n, [&] {
    welfordPartials<256><<<grid, 256>>>((const float4 *)x.p, x.n / 4,
                                        partials.p);
    welfordFinish<<<1, 32>>>(partials.p, grid, out.p);
  }, {{out.p, 4}});
  r.verifyScalar(out.get(), ref, scale, 1e-4);
}

void runRows(Runner &r, const DeviceArray &m, int64_t rows, int64_t cols) {
  if (cols != 4096) {
    fprintf(stderr, "row kernels are written for 4096 columns\n");
    return;
  }
  DeviceArray y(m.n);
  r.time("softmax_rows", "hand", 8.0 * m.n, [&] {
    softmaxRowsKernel<256, 16><<<(unsigned)rows, 256>>>(m.p, y.p, cols);
  }, {{y.p, 4 * m.n}});
  std::vector<double> ref, lse;
  rowReferences(m.host.data(), rows, cols, &ref, lse);
  r.verifyElementwise(y, ref, 1e-5);

  DeviceArray out(rows);
  r.time("logsumexp_rows", "hand", 4.0 * m.n + 4.0 * rows, [&] {
    logsumexpRowsKernel<256, 16><<<(unsigned)rows, 256>>>(m.p, out.p, cols);
  }, {{out.p, 4 * rows}});
  r.verifyElementwise(out, lse, 1e-5);
  // The same kernel with the accurate expf (as fuse's code): shows how much
  // of the gap to the hand row is the exponential's cost.
  r.time("logsumexp_rows", "hand-accurate-exp", 4.0 * m.n + 4.0 * rows, [&] {
    logsumexpRowsKernel<256, 16, false>
        <<<(unsigned)rows, 256>>>(m.p, out.p, cols);
  }, {{out.p, 4 * rows}});
  r.verifyElementwise(out, lse, 1e-5);
}

void runSmall(Runner &r) {
  DeviceArray x(4096, /*seed=*/4);
  DeviceScalar out;
  auto it = thrust::make_transform_iterator(x.p, Square());
  TempStorage tmp;
  size_t bytes = 0;
  check(cub::DeviceReduce::Sum(nullptr, bytes, it, out.p, x.n));
  tmp.ensure(bytes);
  r.timeBackToBack("sumsq_small", "cub", 1000, [&] {
    check(cub::DeviceReduce::Sum(tmp.p, bytes, it, out.p, x.n));
  });
  check(cudaMemset(out.p, 0xFF, 4));
  check(cub::DeviceReduce::Sum(tmp.p, bytes, it, out.p, x.n));
  double ref = 0;
  for (float v : x.host)
    ref += (double)v * v;
  r.verifyScalar(out.get(), ref, ref, 1e-5);
}

} // namespace

int main(int argc, char **argv) {
  Options opt = Options::parse(argc, argv);
  Runner r(opt);
  const int64_t n = opt.n;
  DeviceArray x(n, /*seed=*/1), y(n, /*seed=*/2);
  if (r.wants("copy")) runCopy(r, x);
  if (r.wants("sumsq")) runSumsq(r, x, "sumsq");
  if (r.wants("dot")) runDot(r, x, y);
  if (r.wants("chain")) runChain(r, x);
  if (r.wants("scan")) runScan(r, x);
  if (r.wants("select")) runSelect(r, x);
  if (r.wants("variance")) runVariance(r, x);
  if (r.wants("softmax_rows") || r.wants("logsumexp_rows")) {
    DeviceArray m(opt.rows * opt.cols, /*seed=*/3);
    runRows(r, m, opt.rows, opt.cols);
  }
  if (r.wants("sumsq_small")) runSmall(r);
  return r.finish();
}
