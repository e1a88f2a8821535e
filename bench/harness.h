// The benchmark harness shared by every implementation (bench/README.md):
// deterministic random inputs in [-1, 1) (never zero), CUDA-event timing
// (warm-up, then median and min of --reps runs), a final run on poisoned
// outputs that is checked against a float64 host reference, and one JSON
// line per (workload, implementation) on stdout.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace bench {

inline void check(cudaError_t e, const char *what = "CUDA call") {
  if (e != cudaSuccess) {
    fprintf(stderr, "bench: %s failed: %s (%s)\n", what, cudaGetErrorName(e),
            cudaGetErrorString(e));
    std::exit(2); // a benchmark executable, not a library
  }
}

struct Options {
  int64_t n = int64_t(1) << 28;
  int64_t rows = 65536, cols = 4096;
  int reps = 30;
  /// Calls of the implementation between a rep's two events (the time is
  /// divided by it): above 1, each call's host work before its first
  /// launch overlaps the previous call's kernels.
  int calls = 1;
  std::vector<std::string> only;
  static Options parse(int argc, char **argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      auto val = [&](const char *flag) -> const char * {
        size_t l = strlen(flag);
        if (a.compare(0, l, flag) == 0 && a.size() > l && a[l] == '=')
          return argv[i] + l + 1;
        return nullptr;
      };
      if (const char *v = val("--n"))
        o.n = std::atoll(v);
      else if (const char *v = val("--rows"))
        o.rows = std::atoll(v);
      else if (const char *v = val("--cols"))
        o.cols = std::atoll(v);
      else if (const char *v = val("--reps"))
        o.reps = std::atoi(v);
      else if (const char *v = val("--calls"))
        o.calls = std::max(1, std::atoi(v));
      else if (const char *v = val("--only"))
        o.only.push_back(v);
      else {
        fprintf(stderr,
                "usage: %s [--n=N] [--rows=R] [--cols=C] [--reps=K] "
                "[--calls=K] [--only=WORKLOAD]...\n",
                argv[0]);
        std::exit(2);
      }
    }
    return o;
  }
};

struct Device {
  int smCount = 0;
  std::string name;
  static Device &get() {
    static Device d = [] {
      Device d;
      cudaDeviceProp p;
      check(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
      d.smCount = p.multiProcessorCount;
      d.name = p.name;
      return d;
    }();
    return d;
  }
};

/// Runs body(begin, end) over [0, n) split across the host's cores (the
/// float64 references of the row workloads, seconds a run at 2^28
/// elements on one core).
inline void parallelFor(int64_t n,
                        const std::function<void(int64_t, int64_t)> &body) {
  int64_t workers = std::max<int64_t>(
      1, std::min<int64_t>(std::thread::hardware_concurrency(), 64));
  workers = std::min(workers, std::max<int64_t>(n, 1));
  int64_t step = (n + workers - 1) / workers;
  std::vector<std::thread> pool;
  for (int64_t b = 0; b < n; b += step)
    pool.emplace_back(body, b, std::min(n, b + step));
  for (std::thread &t : pool)
    t.join();
}

/// The float64 references of the row workloads over a rows x cols matrix:
/// each row's log-sum-exp into `lse` (rows entries) and, when `softmax` is
/// given, the row's softmax into it (rows * cols entries).
inline void rowReferences(const float *x, int64_t rows, int64_t cols,
                          std::vector<double> *softmax,
                          std::vector<double> &lse) {
  lse.assign(rows, 0.0);
  if (softmax)
    softmax->assign(rows * cols, 0.0);
  parallelFor(rows, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const float *row = x + i * cols;
      double mx = -INFINITY, s = 0;
      for (int64_t j = 0; j < cols; ++j)
        mx = std::max(mx, (double)row[j]);
      for (int64_t j = 0; j < cols; ++j)
        s += std::exp(row[j] - mx);
      if (softmax)
        for (int64_t j = 0; j < cols; ++j)
          (*softmax)[i * cols + j] = std::exp(row[j] - mx) / s;
      lse[i] = std::log(s) + mx;
    }
  });
}

/// Per element of got against ref: |got - ref| <= tol * max(|ref|, 1)
/// (NaN fails). Returns the worst finite error; firstBad is the smallest
/// failing index, -1 when every element passes. Split across the host's
/// cores.
template <typename Ref>
double checkElements(const float *got, const Ref &ref, double tol,
                     int64_t &firstBad) {
  std::vector<std::pair<int64_t, double>> parts; // (first bad, worst)
  std::mutex mu;
  parallelFor((int64_t)ref.size(), [&](int64_t begin, int64_t end) {
    double worst = 0;
    int64_t bad = -1;
    for (int64_t i = begin; i < end; ++i) {
      double r = ref[i];
      double e = std::fabs((double)got[i] - r) / std::max(std::fabs(r), 1.0);
      if (!(e <= tol) && bad < 0)
        bad = i;
      if (std::isfinite(e))
        worst = std::max(worst, e);
    }
    std::lock_guard<std::mutex> lock(mu);
    parts.push_back({bad, worst});
  });
  double worst = 0;
  firstBad = -1;
  for (const auto &[bad, w] : parts) {
    worst = std::max(worst, w);
    if (bad >= 0 && (firstBad < 0 || bad < firstBad))
      firstBad = bad;
  }
  return worst;
}

__host__ __device__ inline float randomValue(uint64_t i, uint64_t seed) {
  uint64_t z = i * 0x9E3779B97F4A7C15ull + seed * 0xBF58476D1CE4E5B9ull + 1;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  float u = (float)(z >> 40) * (1.0f / 16777216.0f); // [0, 1)
  float v = 2.0f * u - 1.0f;                          // [-1, 1)
  return v == 0.0f ? 0.5f : v;
}

static __global__ void fillRandom(float *p, int64_t n, uint64_t seed) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    p[i] = randomValue(i, seed);
}

/// A float32 device array with a host copy of its initial contents.
struct DeviceArray {
  float *p = nullptr;
  int64_t n = 0;
  std::vector<float> host;
  explicit DeviceArray(int64_t n, uint64_t seed = 0) : n(n) {
    check(cudaMalloc(&p, std::max<int64_t>(n, 1) * 4), "cudaMalloc");
    if (seed) {
      fillRandom<<<1024, 256>>>(p, n, seed);
      check(cudaGetLastError(), "fillRandom");
      host.resize(n);
      check(cudaMemcpy(host.data(), p, n * 4, cudaMemcpyDeviceToHost),
            "cudaMemcpy");
    }
  }
  DeviceArray(const DeviceArray &) = delete;
  ~DeviceArray() { cudaFree(p); }
  std::vector<float> download(int64_t count = -1) const {
    std::vector<float> h(count < 0 ? n : count);
    check(cudaMemcpy(h.data(), p, h.size() * 4, cudaMemcpyDeviceToHost),
          "cudaMemcpy");
    return h;
  }
};

template <typename T> struct DeviceValue {
  T *p = nullptr;
  explicit DeviceValue(int64_t count = 1) {
    check(cudaMalloc(&p, sizeof(T) * count), "cudaMalloc");
  }
  DeviceValue(const DeviceValue &) = delete;
  ~DeviceValue() { cudaFree(p); }
  T get() const {
    T v;
    check(cudaMemcpy(&v, p, sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return v;
  }
};
using DeviceScalar = DeviceValue<float>;

struct TempStorage {
  void *p = nullptr;
  size_t bytes = 0;
  void ensure(size_t b) {
    if (b <= bytes)
      return;
    cudaFree(p);
    check(cudaMalloc(&p, b), "cudaMalloc");
    bytes = b;
  }
  ~TempStorage() { cudaFree(p); }
};

/// Times implementations and checks their results.
class Runner {
public:
  explicit Runner(Options o) : opt_(std::move(o)) {
    check(cudaEventCreate(&start_), "cudaEventCreate");
    check(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  bool wants(const std::string &w) const {
    return opt_.only.empty() ||
           std::find(opt_.only.begin(), opt_.only.end(), w) != opt_.only.end();
  }
  const Options &options() const { return opt_; }

  /// Warm-up, then the median of reps runs, each timed with events. Then
  /// poisons `outs` (NaN bytes) and runs once more: the verify* call that
  /// follows checks that run's output.
  void time(const std::string &workload, const std::string &impl, double bytes,
            const std::function<void()> &run,
            std::vector<std::pair<void *, size_t>> outs = {}) {
    for (int i = 0; i < 3; ++i)
      run();
    check(cudaDeviceSynchronize(), (workload + "/" + impl + " warm-up").c_str());
    std::vector<float> ms;
    std::vector<double> hostUs; // the host's time in the rep's first call
    for (int i = 0; i < opt_.reps; ++i) {
      check(cudaEventRecord(start_));
      auto h0 = std::chrono::steady_clock::now();
      run();
      hostUs.push_back(std::chrono::duration<double, std::micro>(
                           std::chrono::steady_clock::now() - h0)
                           .count());
      for (int c = 1; c < opt_.calls; ++c)
        run();
      check(cudaEventRecord(stop_));
      check(cudaEventSynchronize(stop_), (workload + "/" + impl).c_str());
      float t;
      check(cudaEventElapsedTime(&t, start_, stop_));
      ms.push_back(t / opt_.calls);
    }
    std::sort(hostUs.begin(), hostUs.end());
    for (auto &o : outs)
      check(cudaMemset(o.first, 0xFF, o.second), "poison");
    run();
    check(cudaDeviceSynchronize(), (workload + "/" + impl).c_str());
    std::sort(ms.begin(), ms.end());
    cur_ = Record{workload, impl, ms[ms.size() / 2], ms.front(), bytes, 0,
                  hostUs[hostUs.size() / 2], opt_.calls};
  }

  /// Back-to-back calls (launch-bound regime): microseconds per call.
  void timeBackToBack(const std::string &workload, const std::string &impl,
                      int calls, const std::function<void()> &run) {
    for (int i = 0; i < 10; ++i)
      run();
    check(cudaDeviceSynchronize());
    std::vector<float> us;
    for (int rep = 0; rep < opt_.reps; ++rep) {
      check(cudaEventRecord(start_));
      for (int i = 0; i < calls; ++i)
        run();
      check(cudaEventRecord(stop_));
      check(cudaEventSynchronize(stop_), (workload + "/" + impl).c_str());
      float t;
      check(cudaEventElapsedTime(&t, start_, stop_));
      us.push_back(t * 1000.0f / calls);
    }
    std::sort(us.begin(), us.end());
    cur_ = Record{workload, impl, us[us.size() / 2] / 1000.0,
                  us.front() / 1000.0, 0, calls, 0, 1};
  }

  void verifyScalar(double got, double ref, double scale, double tol) {
    double err = std::fabs(got - ref) / std::max(scale, 1e-30);
    emit(std::isfinite(got) && err <= tol, err);
  }

  /// Per element: |got - ref| <= tol * max(|ref|, 1) (tol 0: exact).
  template <typename Ref>
  void verifyElementwise(const DeviceArray &y, const Ref &ref, double tol) {
    std::vector<float> got = y.download((int64_t)ref.size());
    int64_t firstBad = -1;
    double worst = checkElements(got.data(), ref, tol, firstBad);
    if (firstBad >= 0 && firstBad_ < 0)
      firstBad_ = firstBad;
    emit(firstBad < 0, worst);
  }

  void verifySelect(const DeviceArray &y, int64_t count,
                    const std::vector<double> &ref) {
    bool ok = count == (int64_t)ref.size();
    if (ok) {
      std::vector<float> got = y.download(count);
      for (int64_t i = 0; i < count && ok; ++i)
        ok = (double)got[i] == ref[i];
    }
    emit(ok, ok ? 0.0 : 1.0);
  }

  int finish() {
    fprintf(stderr, "bench: %d checks failed\n", failures_);
    return failures_ ? 1 : 0;
  }

private:
  struct Record {
    std::string workload, impl;
    double medianMs, minMs, bytes;
    int calls;     // back-to-back calls a rep (0: one call timed alone)
    double hostUs; // median host time of one call (0: not measured)
    int callsPerRep;
  };
  void emit(bool ok, double err) {
    const Device &d = Device::get();
    std::string extra;
    if (cur_.hostUs > 0) {
      char buf[96];
      snprintf(buf, sizeof buf, "\"host_us\":%.2f,\"calls_per_rep\":%d,",
               cur_.hostUs, cur_.callsPerRep);
      extra = buf;
    }
    double gibs = cur_.bytes > 0 ? cur_.bytes / (cur_.medianMs * 1e-3) /
                                       (1024.0 * 1024.0 * 1024.0)
                                 : 0;
    printf("{\"workload\":\"%s\",\"impl\":\"%s\",\"median_ms\":%.6f,"
           "\"min_ms\":%.6f,\"bytes\":%.0f,\"gib_s\":%.1f,%s\"ok\":%s,"
           "\"rel_err\":%.3g,\"reps\":%d,%s\"gpu\":\"%s\"}\n",
           cur_.workload.c_str(), cur_.impl.c_str(), cur_.medianMs, cur_.minMs,
           cur_.bytes, gibs,
           cur_.calls ? ("\"us_per_call\":" +
                         std::to_string(cur_.medianMs * 1000.0) + ",")
                            .c_str()
                      : "",
           ok ? "true" : "false", err, opt_.reps, extra.c_str(),
           d.name.c_str());
    fflush(stdout);
    if (!ok) {
      ++failures_;
      fprintf(stderr, "bench: %s/%s FAILED its check (error %.3g, first bad "
                      "index %lld)\n",
              cur_.workload.c_str(), cur_.impl.c_str(), err,
              (long long)firstBad_);
    }
    firstBad_ = -1;
  }

  Options opt_;
  cudaEvent_t start_, stop_;
  Record cur_;
  int failures_ = 0;
  int64_t firstBad_ = -1;
};

} // namespace bench
