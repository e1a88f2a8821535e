// Probe: how the shape of a streaming copy kernel (y = x, f32) affects
// bandwidth on this GPU; the findings decide the flat elementwise kernels'
// tiling (docs/performance.md). Every variant is checked against x.
// Build: nvcc -O3 -arch=sm_90 -o stream stream.cu; run: ./stream [log2 n]
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                               \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e));             \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

enum Hint { Plain, Streaming, NoAlloc };

template <Hint H> __device__ __forceinline__ float4 ld(const float4 *p) {
  if (H == Streaming)
    return __ldcs(p);
  if (H == NoAlloc) {
    float4 v;
    asm volatile("ld.global.nc.L1::no_allocate.v4.f32 {%0,%1,%2,%3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(p));
    return v;
  }
  return *p;
}
template <Hint H> __device__ __forceinline__ void st(float4 *p, float4 v) {
  if (H == Plain)
    *p = v;
  else
    __stcs(p, v);
}

// Grid-stride, U vectors in flight per thread (fuse's flat kernel shape).
template <int U, Hint H>
__global__ void gridStride(const float4 *__restrict__ x, float4 *__restrict__ y,
                           long long n4) {
  long long stride = (long long)gridDim.x * blockDim.x;
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + (U - 1) * stride < n4; i += U * stride) {
    float4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u)
      v[u] = ld<H>(x + i + u * stride);
#pragma unroll
    for (int u = 0; u < U; ++u)
      st<H>(y + i + u * stride, v[u]);
  }
  for (; i < n4; i += stride)
    st<H>(y + i, ld<H>(x + i));
}

// One tile per block: U vectors per thread at a stride of blockDim.
template <int U, Hint H>
__global__ void tiled(const float4 *__restrict__ x, float4 *__restrict__ y,
                      long long n4) {
  long long base = (long long)blockIdx.x * blockDim.x * U + threadIdx.x;
  float4 v[U];
#pragma unroll
  for (int u = 0; u < U; ++u)
    if (base + u * blockDim.x < n4)
      v[u] = ld<H>(x + base + u * blockDim.x);
#pragma unroll
  for (int u = 0; u < U; ++u)
    if (base + u * blockDim.x < n4)
      st<H>(y + base + u * blockDim.x, v[u]);
}

int main(int argc, char **argv) {
  int lg = argc > 1 ? std::atoi(argv[1]) : 28;
  long long n = 1LL << lg, n4 = n / 4;
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  float *x, *y;
  CHECK(cudaMalloc(&x, n * 4));
  CHECK(cudaMalloc(&y, n * 4));
  std::vector<float> h(n);
  for (long long i = 0; i < n; ++i)
    h[i] = float((i * 2654435761u) % 1000003) * 1e-3f - 500.f;
  CHECK(cudaMemcpy(x, h.data(), n * 4, cudaMemcpyHostToDevice));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  auto run = [&](const char *name, auto launch) {
    CHECK(cudaMemset(y, 0, n * 4));
    for (int i = 0; i < 3; ++i)
      launch();
    CHECK(cudaGetLastError());
    std::vector<float> ms;
    for (int r = 0; r < 30; ++r) {
      CHECK(cudaEventRecord(a));
      launch();
      CHECK(cudaEventRecord(b));
      CHECK(cudaEventSynchronize(b));
      float t;
      CHECK(cudaEventElapsedTime(&t, a, b));
      ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    std::vector<float> out(n);
    CHECK(cudaMemcpy(out.data(), y, n * 4, cudaMemcpyDeviceToHost));
    bool good = true;
    for (long long i = 0; i < n && good; ++i)
      good = out[i] == h[i];
    double gib = 8.0 * n / (1u << 30) / (ms[15] * 1e-3);
    std::printf("%-36s %7.1f GiB/s %s\n", name, gib, good ? "ok" : "WRONG");
  };
  run("cudaMemcpy", [&] { cudaMemcpyAsync(y, x, n * 4, cudaMemcpyDeviceToDevice); });
  const float4 *x4 = (const float4 *)x;
  float4 *y4 = (float4 *)y;
#define GS(U, H, BT, BPS)                                                      \
  run("gridStride U=" #U " " #H " bt=" #BT " bps=" #BPS, [&] {                 \
    gridStride<U, H><<<sms * BPS, BT>>>(x4, y4, n4);                           \
  })
#define TL(U, H, BT)                                                           \
  run("tiled U=" #U " " #H " bt=" #BT, [&] {                                   \
    tiled<U, H><<<(n4 + BT * U - 1) / (BT * U), BT>>>(x4, y4, n4);             \
  })
  GS(4, Plain, 256, 8);
  GS(4, Streaming, 256, 8);
  GS(4, NoAlloc, 256, 8);
  GS(2, Plain, 256, 8);
  GS(8, Plain, 256, 8);
  GS(4, Plain, 512, 4);
  GS(4, Plain, 1024, 2);
  GS(4, Plain, 256, 16);
  GS(1, Plain, 256, 8);
  TL(1, Plain, 256);
  TL(4, Plain, 256);
  TL(4, Streaming, 256);
  TL(4, NoAlloc, 256);
  TL(2, Plain, 256);
  TL(8, Plain, 256);
  TL(4, Plain, 512);
  TL(4, Plain, 128);
  return 0;
}
