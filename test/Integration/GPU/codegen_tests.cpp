// codegen_tests.cpp - runs fuse's AOT-compiled pipelines on the GPU and
// checks them against float64 host references.
//
// Built by scripts/gpu/run-codegen-tests.sh from a folder of artifacts made
// by scripts/gpu/prepare-artifacts.sh (NAME.o + NAME.h per example); every
// example's header is included, so one that did not compile fails the
// build (and run-codegen-tests.sh names it): never skipped. Sizes: 0, 1, 31,
// 1000003 and 2^28 (FUSE_TEST_MAX_LOG2 lowers the largest), random inputs in
// [-1, 1) without zeros. Tolerances: 1e-4 relative for sums, 1e-6 per
// element for maps; reductions must be bitwise identical over 10 runs.
// A misaligned (offset by one element) input checks the scalar path.
// Entry points carry the `fx_` prefix (fuse-compile --prefix=fx_): `select`
// would clash with POSIX select(), `fuse_scan` with the runtime's.
// Arguments name the pipelines to run (all without arguments); the GPU
// script runs each in its own process so that a faulting kernel, which
// poisons its CUDA context, cannot fail the others.
// The last line is "N passed, N failed".
#include "fuse_runtime.h"

#include "copy.h"
#include "chain.h"
#include "sumsq.h"
#include "sumsq_small.h"
#include "dot.h"
#include "variance.h"
#include "scan.h"
#include "select.h"
#include "softmax_rows.h"
#include "logsumexp_rows.h"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

int passed = 0, failed = 0;
std::vector<std::string> only; // pipelines named on the command line
/// Runs per determinism check (10; 2 under compute-sanitizer, see main).
int repeats = 10;

/// Whether pipeline `name` runs: all of them without arguments.
bool selected(const std::string &name) {
  if (only.empty())
    return true;
  for (const std::string &o : only)
    if (o == name)
      return true;
  return false;
}

void report(bool ok, const std::string &what, const std::string &detail) {
  (ok ? passed : failed)++;
  std::printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", what.c_str(),
              detail.empty() ? "" : ": ", detail.c_str());
  std::fflush(stdout);
}

bool checkStatus(fuse_status_t st, const std::string &what) {
  if (st == FUSE_SUCCESS)
    return true;
  report(false, what,
         "status " + std::to_string(st) + " " + fuse_last_error_message());
  return false;
}

std::vector<float> randomInput(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto &x : v) {
    do
      x = dist(rng);
    while (x == 0.0f);
  }
  return v;
}

struct Device {
  void *p = nullptr;
  size_t bytes = 0;
  explicit Device(size_t b) : bytes(b) {
    if (b && fuse_malloc(&p, b, nullptr) != FUSE_SUCCESS)
      p = nullptr;
  }
  ~Device() {
    if (p)
      fuse_free(p, nullptr);
  }
  bool ok() const { return bytes == 0 || p; }
  float *f() const { return static_cast<float *>(p); }
};

bool upload(Device &d, const std::vector<float> &h) {
  return h.empty() || fuse_memcpy_htod(d.p, h.data(), h.size() * 4,
                                       nullptr) == FUSE_SUCCESS;
}
std::vector<float> download(const Device &d, size_t n) {
  std::vector<float> h(n);
  if (n)
    fuse_memcpy_dtoh(h.data(), d.p, n * 4, nullptr);
  fuse_stream_synchronize(nullptr);
  return h;
}

using MapFn = std::function<fuse_status_t(const float *, int64_t, float *)>;
using RefMap = std::function<double(double)>;

/// An elementwise pipeline y = f(x): every element within 1e-6 (relative
/// to max(1, |ref|)).
void testMap(const char *name, const MapFn &fn, const RefMap &ref,
             int64_t n, int64_t offset) {
  if (!selected(name))
    return;
  std::string what = std::string(name) + " n=" + std::to_string(n) +
                     (offset ? " misaligned" : "");
  std::vector<float> x = randomInput(n + offset, 1234u + (uint32_t)n);
  Device dx((n + offset) * 4), dy((n + offset) * 4);
  if (!dx.ok() || !dy.ok())
    return report(false, what, "fuse_malloc failed");
  if (!upload(dx, x))
    return report(false, what, "upload failed");
  if (!checkStatus(fn(dx.f() + offset, n, dy.f() + offset), what))
    return;
  if (!checkStatus(fuse_stream_synchronize(nullptr), what))
    return;
  std::vector<float> y = download(dy, n + offset);
  int64_t bad = 0, firstBad = -1;
  for (int64_t i = 0; i < n; ++i) {
    double r = ref(x[i + offset]);
    double err = std::fabs(y[i + offset] - r) / std::max(1.0, std::fabs(r));
    if (!(err <= 1e-6)) {
      if (firstBad < 0)
        firstBad = i;
      ++bad;
    }
  }
  report(bad == 0, what,
         bad ? std::to_string(bad) + " bad elements, first at " +
                   std::to_string(firstBad)
             : "");
}

using RedFn = std::function<fuse_status_t(const float *, const float *,
                                          int64_t, float *)>;
using RefRed = std::function<double(const std::vector<float> &,
                                    const std::vector<float> &, int64_t)>;

/// A reduction to one float: 1e-4 relative, bitwise identical over 10 runs.
/// `shift` is added to every element of x (in float) before the call and
/// the reference: a variance of 1000 + uniform[-1, 1) checks that the
/// kernels do not lose the small spread to the large offset.
void testReduce(const char *name, const RedFn &fn, const RefRed &ref, int64_t n,
                int64_t offset, bool twoInputs, float shift = 0.0f) {
  if (!selected(name))
    return;
  std::string what =
      std::string(name) + " n=" + std::to_string(n) +
      (offset ? " misaligned" : "") +
      (shift != 0.0f ? " shift=" + std::to_string((long long)shift) : "");
  std::vector<float> x = randomInput(n + offset, 99u + (uint32_t)n);
  if (shift != 0.0f)
    for (float &v : x)
      v += shift;
  std::vector<float> y =
      twoInputs ? randomInput(n + offset, 7u + (uint32_t)n)
                : std::vector<float>();
  Device dx((n + offset) * 4), dy(twoInputs ? (n + offset) * 4 : 0),
      dout(4);
  if (!dx.ok() || !dy.ok() || !dout.ok())
    return report(false, what, "fuse_malloc failed");
  if (!upload(dx, x) || (twoInputs && !upload(dy, y)))
    return report(false, what, "upload failed");
  std::vector<float> xs(x.begin() + offset, x.end());
  std::vector<float> ys =
      twoInputs ? std::vector<float>(y.begin() + offset, y.end())
                : std::vector<float>();
  double r = ref(xs, ys, n);
  uint32_t firstBits = 0;
  for (int run = 0; run < repeats; ++run) {
    if (!checkStatus(fn(dx.f() + offset,
                        twoInputs ? dy.f() + offset : nullptr, n, dout.f()),
                     what))
      return;
    if (!checkStatus(fuse_stream_synchronize(nullptr), what))
      return;
    float got = download(dout, 1)[0];
    uint32_t bits;
    std::memcpy(&bits, &got, 4);
    if (run == 0) {
      firstBits = bits;
      double err = std::fabs(got - r) / std::max(std::fabs(r), 1e-30);
      bool ok = (n == 0 && std::isnan(r)) ? std::isnan(got)
                                          : (r == 0 ? got == 0 : err <= 1e-4);
      if (!ok) {
        char buf[128];
        std::snprintf(buf, sizeof buf, "got %.9g, want %.9g (rel %.3g)", got,
                      r, err);
        return report(false, what, buf);
      }
    } else if (bits != firstBits) {
      return report(false, what, "not bitwise deterministic (run " +
                                     std::to_string(run) + ")");
    }
  }
  report(true, what, "");
}

/// Back-to-back calls of a small reduction: microseconds per call.
void timeSmall(const char *name, const RedFn &fn, int64_t n) {
  if (!selected(name))
    return;
  std::vector<float> x = randomInput(n, 5);
  Device dx(n * 4), dout(4);
  if (!dx.ok() || !dout.ok() || !upload(dx, x))
    return report(false, name, "setup failed");
  for (int i = 0; i < 100; ++i)
    fn(dx.f(), nullptr, n, dout.f());
  fuse_stream_synchronize(nullptr);
  const int iters = 2000;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i)
    fn(dx.f(), nullptr, n, dout.f());
  fuse_stream_synchronize(nullptr);
  double us = std::chrono::duration<double, std::micro>(
                  std::chrono::steady_clock::now() - t0)
                  .count() /
              iters;
  std::printf("INFO %s n=%lld: %.2f us per call back to back\n", name,
              (long long)n, us);
}

using RowFn =
    std::function<fuse_status_t(const float *, int64_t, int64_t, float *)>;

/// A row-wise pipeline over a rows x cols matrix: softmax (perRow = false,
/// rows x cols outputs) or logsumexp (perRow = true, one per row). Every
/// output within 1e-5 relative of the float64 reference; the outputs must be
/// bitwise identical over 10 runs. `offset` misaligns input and output by
/// one element (scalar path); cols % 4 != 0 also takes the scalar path.
void testRows(const char *name, const RowFn &fn, bool perRow, int64_t rows,
              int64_t cols, int64_t offset) {
  if (!selected(name))
    return;
  std::string what = std::string(name) + " " + std::to_string(rows) + "x" +
                     std::to_string(cols) + (offset ? " misaligned" : "");
  int64_t n = rows * cols, outN = perRow ? rows : n;
  std::vector<float> x = randomInput(n + offset, 4321u + (uint32_t)n);
  Device dx((n + offset) * 4), dy((outN + offset) * 4);
  if (!dx.ok() || !dy.ok())
    return report(false, what, "fuse_malloc failed");
  if (!upload(dx, x))
    return report(false, what, "upload failed");
  std::vector<double> ref(outN);
  for (int64_t r = 0; r < rows; ++r) {
    const float *row = x.data() + offset + r * cols;
    double m = -INFINITY, sum = 0;
    for (int64_t c = 0; c < cols; ++c)
      m = std::max(m, double(row[c]));
    for (int64_t c = 0; c < cols; ++c)
      sum += std::exp(double(row[c]) - m);
    if (perRow)
      ref[r] = std::log(sum) + m;
    else
      for (int64_t c = 0; c < cols; ++c)
        ref[r * cols + c] = std::exp(double(row[c]) - m) / sum;
  }
  std::vector<float> first;
  for (int run = 0; run < repeats; ++run) {
    if (!checkStatus(fn(dx.f() + offset, rows, cols, dy.f() + offset), what))
      return;
    if (!checkStatus(fuse_stream_synchronize(nullptr), what))
      return;
    std::vector<float> y = download(dy, outN + offset);
    y.erase(y.begin(), y.begin() + offset);
    if (run == 0) {
      int64_t bad = 0, firstBad = -1;
      for (int64_t i = 0; i < outN; ++i) {
        double r = ref[i];
        bool ok;
        if (std::isinf(r))
          ok = y[i] == r;
        else
          ok = std::fabs(y[i] - r) /
                   std::max(std::fabs(r), perRow ? 1.0 : 1e-30) <=
               1e-5;
        if (!ok) {
          if (firstBad < 0)
            firstBad = i;
          ++bad;
        }
      }
      if (bad) {
        char buf[160];
        std::snprintf(buf, sizeof buf,
                      "%lld bad, first at %lld: got %.9g, want %.9g",
                      (long long)bad, (long long)firstBad, y[firstBad],
                      ref[firstBad]);
        return report(false, what, buf);
      }
      first = y;
    } else if (std::memcmp(first.data(), y.data(), outN * 4) != 0) {
      return report(false, what, "not bitwise deterministic (run " +
                                     std::to_string(run) + ")");
    }
  }
  report(true, what, "");
}

/// scan: y = inclusive prefix sum of x*x. Every element within 1e-4
/// (relative to max(1, |ref|)) of the float64 prefix; bitwise identical
/// over 10 runs.
void testScan(int64_t n, int64_t offset) {
  if (!selected("scan"))
    return;
  std::string what = "scan n=" + std::to_string(n) +
                     (offset ? " misaligned" : "");
  std::vector<float> x = randomInput(n + offset, 4321u + (uint32_t)n);
  // The output has `tail` more elements than n: the items of a partial
  // last tile past n must not be stored.
  const int64_t tail = 64;
  Device dx((n + offset) * 4), dy((n + offset + tail) * 4);
  if (!dx.ok() || !dy.ok())
    return report(false, what, "fuse_malloc failed");
  if (!upload(dx, x))
    return report(false, what, "upload failed");
  // A sentinel: nothing is written outside [0, n) (n = 0 writes nothing).
  if (fuse_memset(dy.p, 0x7f, (n + offset + tail) * 4, nullptr) !=
      FUSE_SUCCESS)
    return report(false, what, "memset failed");
  std::vector<float> first;
  for (int run = 0; run < repeats; ++run) {
    if (!checkStatus(fx_scan(dx.f() + offset, n, dy.f() + offset, nullptr),
                     what))
      return;
    if (!checkStatus(fuse_stream_synchronize(nullptr), what))
      return;
    std::vector<float> y = download(dy, n + offset + tail);
    if (run == 0) {
      for (int64_t i = n + offset; i < n + offset + tail; ++i) {
        uint32_t bits;
        std::memcpy(&bits, &y[i], 4);
        if (bits != 0x7f7f7f7fu)
          return report(false, what,
                        "wrote past the end at " + std::to_string(i - offset));
      }
      double acc = 0;
      int64_t bad = 0, firstBad = -1;
      for (int64_t i = 0; i < n; ++i) {
        double v = x[i + offset];
        acc += v * v;
        double err = std::fabs(y[i + offset] - acc) / std::max(1.0, acc);
        if (!(err <= 1e-4)) {
          if (firstBad < 0)
            firstBad = i;
          ++bad;
        }
      }
      if (offset) {
        uint32_t bits;
        std::memcpy(&bits, &y[0], 4);
        if (bits != 0x7f7f7f7fu)
          return report(false, what, "wrote before the output");
      }
      if (bad)
        return report(false, what,
                      std::to_string(bad) + " bad elements, first at " +
                          std::to_string(firstBad));
      first = y;
    } else if (std::memcmp(first.data(), y.data(), y.size() * 4) != 0) {
      return report(false, what, "not bitwise deterministic (run " +
                                     std::to_string(run) + ")");
    }
  }
  report(true, what, "");
}

/// select: the x > 0 in order and their count, exactly; elements past the
/// count are untouched.
void testSelect(int64_t n, int64_t offset) {
  if (!selected("select"))
    return;
  std::string what = "select n=" + std::to_string(n) +
                     (offset ? " misaligned" : "");
  std::vector<float> x = randomInput(n + offset, 777u + (uint32_t)n);
  Device dx((n + offset) * 4), dy((n + offset) * 4);
  if (!dx.ok() || !dy.ok())
    return report(false, what, "fuse_malloc failed");
  if (!upload(dx, x))
    return report(false, what, "upload failed");
  if (n + offset > 0 &&
      fuse_memset(dy.p, 0x7f, (n + offset) * 4, nullptr) != FUSE_SUCCESS)
    return report(false, what, "memset failed");
  std::vector<float> want;
  for (int64_t i = 0; i < n; ++i)
    if (x[i + offset] > 0)
      want.push_back(x[i + offset]);
  for (int run = 0; run < 3; ++run) {
    int64_t count = -1;
    if (!checkStatus(fx_select(dx.f() + offset, n, dy.f() + offset, &count,
                            nullptr),
                     what))
      return;
    if (count != (int64_t)want.size())
      return report(false, what,
                    "count " + std::to_string(count) + ", want " +
                        std::to_string(want.size()));
    std::vector<float> y = download(dy, n + offset);
    for (int64_t i = 0; i < count; ++i)
      if (y[i + offset] != want[i])
        return report(false, what, "element " + std::to_string(i) +
                                       " differs");
    for (int64_t i = count + offset; i < n + offset; ++i) {
      uint32_t bits;
      std::memcpy(&bits, &y[i], 4);
      if (run == 0 && bits != 0x7f7f7f7fu)
        return report(false, what, "wrote past the count at " +
                                       std::to_string(i - offset));
    }
  }
  // A NULL count pointer is accepted.
  if (!checkStatus(fx_select(dx.f() + offset, n, dy.f() + offset, nullptr,
                          nullptr),
                   what))
    return;
  report(true, what, "");
}

fuse_status_t varianceFn(const float *x, const float *, int64_t n, float *o) {
  return fx_variance(x, n, o, nullptr);
}

/// Population variance, float64 two-pass; NaN for n = 0 (as numpy.var).
double varianceRef(const std::vector<float> &x, const std::vector<float> &,
                   int64_t n) {
  if (n == 0)
    return std::nan("");
  double m = 0;
  for (int64_t i = 0; i < n; ++i)
    m += x[i];
  m /= n;
  double s = 0;
  for (int64_t i = 0; i < n; ++i)
    s += (x[i] - m) * (x[i] - m);
  return s / n;
}

/// sumsq over 2^31 + 17 elements (8.6 GB): the generated kernels' 64-bit
/// indexing. Every byte is 0x3c (each float 0x3c3c3c3c), so the reference
/// is n * v * v exactly in float64; the tolerance (1e-3) is looser than the
/// random-data tests' because a constant input is the worst case for f32
/// partial sums, and this test is about reaching every element once.
void testHugeSumsq() {
  const int64_t n = (int64_t(1) << 31) + 17;
  std::string what = "sumsq n=" + std::to_string(n);
  Device dx(size_t(n) * 4), dout(4);
  if (!dx.ok() || !dout.ok())
    return report(false, what, "fuse_malloc failed (needs 8.6 GB)");
  if (fuse_memset(dx.p, 0x3c, size_t(n) * 4, nullptr) != FUSE_SUCCESS)
    return report(false, what, "memset failed");
  uint32_t bits = 0x3c3c3c3cu;
  float v;
  std::memcpy(&v, &bits, 4);
  double want = double(n) * double(v) * double(v);
  uint32_t first = 0;
  for (int run = 0; run < 2; ++run) {
    if (!checkStatus(fx_sumsq(dx.f(), n, dout.f(), nullptr), what) ||
        !checkStatus(fuse_stream_synchronize(nullptr), what))
      return;
    float got = download(dout, 1)[0];
    uint32_t gb;
    std::memcpy(&gb, &got, 4);
    double err = std::fabs(got - want) / want;
    if (err > 1e-3) {
      char buf[128];
      std::snprintf(buf, sizeof buf, "got %.9g, want %.9g (rel %.3g)", got,
                    want, err);
      return report(false, what, buf);
    }
    if (run == 0)
      first = gb;
    else if (gb != first)
      return report(false, what, "not bitwise deterministic");
  }
  report(true, what, "");
}

} // namespace

/// Sizes that break an equality the pipeline implies (dot's x and y are
/// zipped): the entry returns FUSE_ERROR_INVALID_ARGUMENT with both sizes
/// in the message before it touches the device, leaves the output as it
/// was, and the next call with matching sizes works (the context is not
/// poisoned). 10^8 against 1 once ended in cudaErrorIllegalAddress.
void testSizeMismatch() {
  if (!selected("dot"))
    return;
  const int64_t n = 1000;
  Device x(n * 4), y(n * 4), o(4);
  std::vector<float> hx = randomInput(n, 7), hy = randomInput(n, 8);
  const float poison = 12345.0f;
  if (!x.ok() || !y.ok() || !o.ok() || !upload(x, hx) || !upload(y, hy) ||
      !upload(o, {poison})) {
    report(false, "dot size mismatch", "allocation or upload failed");
    return;
  }
  struct Case {
    int64_t nx, ny;
    const char *want;
  } cases[] = {
      {1000, 10, "dot: size mismatch: in1 dimension 0 is 10 but in0 "
                 "dimension 0 is 1000; the pipeline combines them, so they "
                 "must be equal"},
      {10, 1000, "dot: size mismatch: in1 dimension 0 is 1000 but in0 "
                 "dimension 0 is 10;"},
      {100000000, 1, "dot: size mismatch: in1 dimension 0 is 1 but in0 "
                     "dimension 0 is 100000000;"},
  };
  for (const Case &c : cases) {
    std::string what = "dot size mismatch " + std::to_string(c.nx) + " vs " +
                       std::to_string(c.ny);
    fuse_status_t st = fx_dot(x.f(), c.nx, y.f(), c.ny, o.f(), nullptr);
    std::string msg = fuse_last_error_message();
    float out = download(o, 1)[0];
    bool ok = st == FUSE_ERROR_INVALID_ARGUMENT &&
              msg.find(c.want) != std::string::npos && out == poison;
    report(ok, what,
           ok ? "" : "status " + std::to_string(st) + " message '" + msg +
                         "' output " + std::to_string(out));
  }
  // The context is healthy: the same buffers, matching sizes.
  fuse_status_t st = fx_dot(x.f(), n, y.f(), n, o.f(), nullptr);
  float got = download(o, 1)[0];
  double ref = 0;
  for (int64_t i = 0; i < n; ++i)
    ref += double(hx[i]) * hy[i];
  bool ok = st == FUSE_SUCCESS &&
            fuse_stream_synchronize(nullptr) == FUSE_SUCCESS &&
            std::fabs(got - ref) <= 1e-4 * std::max(1.0, std::fabs(ref));
  report(ok, "dot after rejected sizes",
         ok ? "" : "status " + std::to_string(st) + " got " +
                       std::to_string(got) + " want " + std::to_string(ref));
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    only.push_back(argv[i]);
  if (fuse_init() != FUSE_SUCCESS) {
    std::printf("fuse_init failed: %s\n0 passed, 1 failed\n",
                fuse_last_error_message());
    return 1;
  }
  int maxLog2 = 28;
  if (const char *e = std::getenv("FUSE_TEST_MAX_LOG2"))
    maxLog2 = std::atoi(e);
  // FUSE_TEST_SANITIZER=1: small sizes and 2 runs per determinism check,
  // for runs under compute-sanitizer (memcheck, racecheck).
  const char *san = std::getenv("FUSE_TEST_SANITIZER");
  bool sanitizer = san && *san && std::strcmp(san, "0") != 0;
  std::vector<int64_t> sizes = {0, 1, 31, 1000003};
  sizes.push_back(int64_t(1) << maxLog2);
  if (sanitizer) {
    repeats = 2;
    maxLog2 = 12;
    sizes = {0, 1, 31, 4099, 70001};
  }

  for (int64_t n : sizes) {
    for (int64_t off : {int64_t(0), int64_t(1)}) {
      if (off && n > 1000003)
        continue;
      testMap(
          "copy",
          [](const float *x, int64_t n, float *y) {
            return fx_copy(x, n, y, nullptr);
          },
          [](double a) { return a; }, n, off);
      testMap(
          "chain",
          [](const float *x, int64_t n, float *y) {
            return fx_chain(x, n, y, nullptr);
          },
          [](double a) {
            double t = std::max(0.0, 1.5 * a + 0.25);
            return t * 0.5 + a;
          },
          n, off);
      testReduce(
          "sumsq",
          [](const float *x, const float *, int64_t n, float *o) {
            return fx_sumsq(x, n, o, nullptr);
          },
          [](const std::vector<float> &x, const std::vector<float> &,
             int64_t n) {
            double s = 0;
            for (int64_t i = 0; i < n; ++i)
              s += double(x[i]) * x[i];
            return s;
          },
          n, off, false);
      testReduce(
          "dot",
          [](const float *x, const float *y, int64_t n, float *o) {
            return fx_dot(x, n, y, n, o, nullptr);
          },
          [](const std::vector<float> &x, const std::vector<float> &y,
             int64_t n) {
            double s = 0;
            for (int64_t i = 0; i < n; ++i)
              s += double(x[i]) * y[i];
            return s;
          },
          n, off, true);
      testScan(n, off);
      testSelect(n, off);
      testReduce("variance", varianceFn, varianceRef, n, off, false);
    }
  }
  // Variance of data with a large offset (1000 + uniform[-1, 1)): the
  // spread is 1e-3 of the values, so means rounded near 1000 or a naive
  // sum of squares would miss the 1e-4 bound.
  {
    std::vector<int64_t> varSizes = {1, 31, 1000003};
    if (maxLog2 >= 24)
      varSizes.push_back(int64_t(1) << 24);
    if (maxLog2 > 24)
      varSizes.push_back(int64_t(1) << maxLog2);
    for (int64_t n : varSizes)
      for (int64_t off : {int64_t(0), int64_t(1)}) {
        if (off && n > 1000003)
          continue;
        testReduce("variance", varianceFn, varianceRef, n, off, false, 1000.0f);
      }
  }
  // Row shapes: empty (rows = 0, cols = 0), tiny, odd (scalar path),
  // narrow rows (groups of 1-128 threads, several rows per block: 4 and
  // 12 one thread a row, 20 two, 36 and 64 four (36: a partial chunk), 100
  // eight, 256 sixteen, 512 one warp a row, 513 and 1024 two warps, 2048
  // four; logsumexp's groups are half as wide (down to one thread), 4096
  // in groups of 128; row counts that leave groups past the last row, 70001 rows over
  // 2^16 groups; odd widths (31, 33, 63, 77) and offset bases take the
  // scalar narrow kernel, softmax there in groups of at least 8 and, off
  // the vector path, of up to 256 threads: 11 x 4095 and 4096 with an
  // offset base in groups of 256),
  // registers (cols <= 4096; logsumexp, 32 floats a thread, <= 8192:
  // 33 x 8192 and 5 x 5001 there), long rows (tiled walks, then single steps; 16384: whole tiles only; rows
  // of up to 57856 floats staged in shared memory, 16-byte copies when
  // aligned, 4-byte cp.async for 5001 or an offset base; up to 28928
  // floats with the group's 256 threads, 28929 and over with 1024 (one
  // block an SM: 30000 aligned, 50257 unaligned); 57857 past the staging
  // limit), the benchmark size.
  std::vector<std::pair<int64_t, int64_t>> shapes = {
      {0, 4096},   {5, 0},     {1, 1},       {31, 31},     {9, 33},
      {333, 512},  {100, 513}, {4099, 1024}, {50, 2048},   {1, 1000003},
      {3, 1000003}, {977, 1027}, {1000, 4096}, {1000003, 4}, {17, 16384},
      {33, 8192},   {5, 5001},  {7, 24576},   {4, 28928},  {3, 28929},
      {5, 30000},   {3, 50257}, {2, 57856},   {2, 57857}, {300, 12},
      {77, 20},     {1000, 36}, {4097, 64},   {70001, 100}, {4099, 256},
      {999, 63},    {3001, 77}, {70001, 77}, {11, 4095}};
  if (maxLog2 >= 28)
    shapes.push_back({65536, 4096});
  if (sanitizer)
    shapes = {{0, 4096}, {5, 0},    {1, 1},    {31, 31},   {9, 33},
              {5, 1024}, {3, 5001}, {7, 4096}, {3, 8192}, {2, 30000},
              {2, 50257}, {77, 20}, {13, 64}, {9, 256}, {13, 77}};
  for (auto [rows, cols] : shapes) {
    for (int64_t off : {int64_t(0), int64_t(1)}) {
      if (off && rows * cols > 4100000)
        continue;
      testRows(
          "softmax_rows",
          [](const float *x, int64_t r, int64_t c, float *y) {
            return fx_softmax_rows(x, r, c, y, nullptr);
          },
          false, rows, cols, off);
      testRows(
          "logsumexp_rows",
          [](const float *x, int64_t r, int64_t c, float *y) {
            return fx_logsumexp_rows(x, r, c, y, nullptr);
          },
          true, rows, cols, off);
    }
  }
  testReduce(
      "sumsq_small",
      [](const float *x, const float *, int64_t n, float *o) {
        return fx_sumsq_small(x, n, o, nullptr);
      },
      [](const std::vector<float> &x, const std::vector<float> &, int64_t n) {
        double s = 0;
        for (int64_t i = 0; i < n; ++i)
          s += double(x[i]) * x[i];
        return s;
      },
      4096, 0, false);
  timeSmall(
      "sumsq_small",
      [](const float *x, const float *, int64_t n, float *o) {
        return fx_sumsq_small(x, n, o, nullptr);
      },
      4096);
  if (maxLog2 >= 28 && selected("sumsq"))
    testHugeSumsq();
  testSizeMismatch();
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
