//===- gpu_test.cu - the runtime's GPU test suite -------------------------===//
//
// Usage: fuse_runtime_gpu_test MODE IMAGE_DIR
//   MODE small   every op and dtype at sizes 0, 1, 31 (+ API checks); the
//                compute-sanitizer run uses this
//   MODE full    small + 1000003 + 2^28 (f32), determinism, modules,
//                allocator, graphs, 8 host threads, out of memory
//   MODE huge    reductions over 2^31 + 17 f32 elements (8.6 GB)
//   MODE fault   a kernel writes out of bounds: the context is poisoned and
//                later calls fail fast (run in its own process)
//   MODE badenv  fuse_init must reject FUSE_ALLOCATOR=<bad value>
// IMAGE_DIR holds test_kernels_sm<ARCH>.{cubin,ptx} (built by CMake).
// Prints PASS/FAIL lines and "N passed, N failed" last; exit 1 on failure.
//
// References are computed on the host, in float64 for floating types and in
// wrap-around unsigned arithmetic for integers.
//
//===----------------------------------------------------------------------===//
#include "fuse_runtime.h"
#include "fuse_runtime.hpp"
#include "gpu_test.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

static std::atomic<int> passed{0}, failed{0};
static std::mutex printMutex;

void check(bool ok, const std::string &what, const std::string &detail) {
  std::lock_guard<std::mutex> lock(printMutex);
  if (ok) {
    ++passed;
    std::printf("PASS %s\n", what.c_str());
  } else {
    ++failed;
    std::printf("FAIL %s %s\n", what.c_str(), detail.c_str());
  }
  std::fflush(stdout);
}

std::string msg() { return fuse_last_error_message(); }

// Checks a status; on failure records it with the runtime's message.
bool ok(fuse_status_t s, const std::string &what) {
  if (s == FUSE_SUCCESS)
    return true;
  check(false, what,
        std::string(fuse_status_name(s)) + ": " + fuse_last_error_message());
  return false;
}

void expectStatus(fuse_status_t got, fuse_status_t want,
                  const std::string &what,
                  std::initializer_list<const char *> needles) {
  std::string m = msg();
  bool good = got == want;
  for (const char *n : needles)
    good = good && m.find(n) != std::string::npos;
  check(good, what,
        std::string("got ") + fuse_status_name(got) + " want " +
            fuse_status_name(want) + "; message: '" + m + "'");
}

// ---- random data ------------------------------------------------------------

struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return (next() >> 11) * (1.0 / 9007199254740992.0); }
};

// ---- dtype traits
// --------------------------------------------------------------

template <typename T> struct Traits;
#define FLOAT_TRAITS(T, DT, NAME, OUTREL, ACCEPS, TOD, FROMD)                  \
  template <> struct Traits<T> {                                               \
    static constexpr fuse_dtype_t dtype = DT;                                  \
    static constexpr bool isFloat = true;                                      \
    static const char *name() { return NAME; }                                 \
    static double outRel() { return OUTREL; }                                  \
    static double accEps() { return ACCEPS; }                                  \
    static double toD(T x) { return TOD; }                                     \
    static T fromD(double x) { return FROMD; }                                 \
  };
FLOAT_TRAITS(__half, FUSE_F16, "f16", std::ldexp(1.0, -11),
             std::ldexp(1.0, -24), (double)__half2float(x), __double2half(x))
FLOAT_TRAITS(__nv_bfloat16, FUSE_BF16, "bf16", std::ldexp(1.0, -8),
             std::ldexp(1.0, -24), (double)__bfloat162float(x),
             __double2bfloat16(x))
FLOAT_TRAITS(float, FUSE_F32, "f32", std::ldexp(1.0, -24), std::ldexp(1.0, -24),
             (double)x, (float)x)
FLOAT_TRAITS(double, FUSE_F64, "f64", std::ldexp(1.0, -53),
             std::ldexp(1.0, -53), x, x)
#define INT_TRAITS(T, DT, NAME)                                                \
  template <> struct Traits<T> {                                               \
    static constexpr fuse_dtype_t dtype = DT;                                  \
    static constexpr bool isFloat = false;                                     \
    static const char *name() { return NAME; }                                 \
  };
INT_TRAITS(int32_t, FUSE_I32, "i32")
INT_TRAITS(int64_t, FUSE_I64, "i64")
INT_TRAITS(uint32_t, FUSE_U32, "u32")
INT_TRAITS(uint64_t, FUSE_U64, "u64")
INT_TRAITS(int8_t, FUSE_I8, "i8")
INT_TRAITS(uint8_t, FUSE_U8, "u8")
INT_TRAITS(int16_t, FUSE_I16, "i16")
INT_TRAITS(uint16_t, FUSE_U16, "u16")

static const char *opName(fuse_reduce_op_t op) {
  static const char *n[] = {"add", "mul", "min", "max"};
  return n[op];
}

// Products: for n <= 1000, values near 1 (rounding is checked against the
// worst-case bound n*eps); for larger n, 1 with rare 2, 0.5 and -1, so every
// partial product is exact and a dropped or repeated element shows.
template <typename T>
static T genValue(Rng &r, fuse_reduce_op_t op, bool exactProducts = false) {
  if constexpr (Traits<T>::isFloat) {
    if (op == FUSE_REDUCE_MUL && exactProducts) {
      uint64_t k = r.next() % (sizeof(T) >= 4 ? 10000 : 100000);
      return Traits<T>::fromD(k == 0   ? 2.0
                              : k == 1 ? 0.5
                              : k == 2 ? -1.0
                                       : 1.0);
    }
    if (op == FUSE_REDUCE_MUL) {
      // Products of many values stay in range: values close to 1.
      double step =
          std::is_same<T, float>::value || std::is_same<T, double>::value
              ? 1e-3 * (2 * r.uniform() - 1)
              : Traits<T>::outRel() * 2 * double(int(r.next() % 3) - 1);
      return Traits<T>::fromD(1.0 + step);
    }
    double v = 2 * r.uniform() - 1; // [-1, 1), never exactly 0 below
    if (v == 0)
      v = 0.5;
    return Traits<T>::fromD(v);
  } else {
    T v = static_cast<T>(r.next());
    if (op == FUSE_REDUCE_MUL)
      v = static_cast<T>(v | 1); // odd: products never collapse to 0
    return v;
  }
}

// Host reference combiner. Floats: double; ints: wrap-around.
template <typename T> struct Ref {
  using A = typename std::conditional<Traits<T>::isFloat, double, T>::type;
  static A conv(T x) {
    if constexpr (Traits<T>::isFloat)
      return Traits<T>::toD(x);
    else
      return x;
  }
  static A identity(fuse_reduce_op_t op) {
    if constexpr (Traits<T>::isFloat) {
      switch (op) {
      case FUSE_REDUCE_ADD:
        return 0;
      case FUSE_REDUCE_MUL:
        return 1;
      case FUSE_REDUCE_MIN:
        return INFINITY;
      default:
        return -INFINITY;
      }
    } else {
      switch (op) {
      case FUSE_REDUCE_ADD:
        return 0;
      case FUSE_REDUCE_MUL:
        return 1;
      case FUSE_REDUCE_MIN:
        return std::numeric_limits<T>::max();
      default:
        return std::numeric_limits<T>::lowest();
      }
    }
  }
  static A apply(fuse_reduce_op_t op, A a, A b) {
    using U = typename std::make_unsigned<
        typename std::conditional<Traits<T>::isFloat, int, T>::type>::type;
    switch (op) {
    case FUSE_REDUCE_ADD:
      if constexpr (Traits<T>::isFloat)
        return a + b;
      else
        return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    case FUSE_REDUCE_MUL:
      if constexpr (Traits<T>::isFloat)
        return a * b;
      else
        return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
    case FUSE_REDUCE_MIN:
      return b < a ? b : a;
    default:
      return a < b ? b : a;
    }
  }
};

// Whether `got` matches the float64 reference `ref`; absSum is the sum of
// |inputs| that went into it, count their number.
template <typename T>
static bool closeEnough(fuse_reduce_op_t op, T gotT, double ref, double absSum,
                        double count, double *tolOut) {
  double got = Traits<T>::toD(gotT);
  double tol = 0;
  if (op == FUSE_REDUCE_ADD)
    tol =
        Traits<T>::outRel() * std::fabs(ref) +
        8 * Traits<T>::accEps() * std::max(1.0, std::log2(count + 1)) * absSum;
  else if (op == FUSE_REDUCE_MUL)
    tol = (Traits<T>::outRel() +
           (count <= 1000 ? count * Traits<T>::accEps() : 0)) *
          std::fabs(ref);
  *tolOut = tol;
  if (std::isinf(ref) || tol == 0)
    return got == ref;
  return std::fabs(got - ref) <= tol;
}


// ---- reduce and scan
// ---------------------------------------------------------------

template <typename T>
static void testReduceScan(int64_t n, fuse_reduce_op_t op, uint64_t seed) {
  std::string tag = std::string(Traits<T>::name()) + " " + opName(op) +
                    " n=" + std::to_string(n);
  Rng r(seed);
  std::vector<T> h(n);
  for (auto &x : h)
    x = genValue<T>(r, op, n > 1000);
  DeviceArray<T> in, out, one;
  if (!in.alloc(n + 1) || !out.alloc(n + 1) || !one.alloc(1))
    return;
  if (n && !ok(fuse_memcpy_htod(in.p, h.data(), n * sizeof(T), nullptr),
               "upload " + tag))
    return;

  using R = Ref<T>;
  // reduce
  typename R::A acc = R::identity(op);
  double absSum = 0;
  for (int64_t i = 0; i < n; ++i) {
    acc = R::apply(op, acc, R::conv(h[i]));
    if constexpr (Traits<T>::isFloat)
      absSum += std::fabs(Traits<T>::toD(h[i]));
  }
  T got;
  std::memset(&got, 0x5a, sizeof got);
  if (ok(fuse_reduce(op, Traits<T>::dtype, in.p, one.p, n, nullptr),
         "reduce " + tag) &&
      ok(fuse_memcpy_dtoh(&got, one.p, sizeof(T), nullptr), "download")) {
    if constexpr (Traits<T>::isFloat) {
      double tol;
      bool good = closeEnough<T>(op, got, acc, absSum, double(n), &tol);
      char d[160];
      snprintf(d, sizeof d, "got %.17g want %.17g tol %.3g",
               Traits<T>::toD(got), acc, tol);
      check(good, "reduce " + tag, d);
    } else {
      check(got == acc, "reduce " + tag,
            "got " + std::to_string(got) + " want " + std::to_string(acc));
    }
  }

  // inclusive and exclusive scans (skipped for the 2^28 run of mul: the
  // reference walk is the same as add's)
  for (int exclusive = 0; exclusive < 2; ++exclusive) {
    std::string stag =
        std::string(exclusive ? "exclusive" : "inclusive") + " scan " + tag;
    if (!ok(fuse_scan(op, Traits<T>::dtype, exclusive, in.p, out.p, n, nullptr),
            stag))
      continue;
    std::vector<T> res(n);
    if (n && !ok(fuse_memcpy_dtoh(res.data(), out.p, n * sizeof(T), nullptr),
                 "download"))
      continue;
    typename R::A run = R::identity(op);
    double abs = 0;
    int64_t bad = -1;
    double badTol = 0;
    for (int64_t i = 0; i < n; ++i) {
      typename R::A before = run;
      double absBefore = abs;
      run = R::apply(op, run, R::conv(h[i]));
      if constexpr (Traits<T>::isFloat)
        abs += std::fabs(Traits<T>::toD(h[i]));
      typename R::A want = exclusive ? before : run;
      if constexpr (Traits<T>::isFloat) {
        double tol;
        if (!closeEnough<T>(op, res[i], want, exclusive ? absBefore : abs,
                            double(i + 1), &tol)) {
          bad = i;
          badTol = tol;
          break;
        }
      } else if (res[i] != want) {
        bad = i;
        break;
      }
    }
    std::string detail;
    if (bad >= 0) {
      char d[200];
      if constexpr (Traits<T>::isFloat)
        snprintf(d, sizeof d, "first mismatch at %lld: got %.17g tol %.3g",
                 (long long)bad, Traits<T>::toD(res[bad]), badTol);
      else
        snprintf(d, sizeof d, "first mismatch at %lld", (long long)bad);
      detail = d;
    }
    check(bad < 0, stag, detail);
  }

  // in-place inclusive scan equals the out-of-place one
  if (n > 0) {
    std::vector<T> a(n), b(n);
    if (ok(fuse_scan(op, Traits<T>::dtype, 0, in.p, out.p, n, nullptr),
           "scan") &&
        ok(fuse_scan(op, Traits<T>::dtype, 0, in.p, in.p, n, nullptr),
           "in-place scan") &&
        ok(fuse_memcpy_dtoh(a.data(), out.p, n * sizeof(T), nullptr), "dl") &&
        ok(fuse_memcpy_dtoh(b.data(), in.p, n * sizeof(T), nullptr), "dl"))
      check(std::memcmp(a.data(), b.data(), n * sizeof(T)) == 0,
            "in-place inclusive scan " + tag);
  }
}

// Ten runs of reduce (and scan) give bitwise identical results.
template <typename T> static void testDeterminism(int64_t n, bool withScan) {
  std::string tag = std::string(Traits<T>::name()) + " n=" + std::to_string(n);
  Rng r(77);
  std::vector<T> h(n);
  for (auto &x : h)
    x = genValue<T>(r, FUSE_REDUCE_ADD);
  DeviceArray<T> in, out, one;
  if (!in.alloc(n) || !out.alloc(n) || !one.alloc(1))
    return;
  if (!ok(fuse_memcpy_htod(in.p, h.data(), n * sizeof(T), nullptr), "upload"))
    return;
  T first{};
  std::vector<T> firstScan;
  bool same = true, sameScan = true;
  for (int run = 0; run < 10; ++run) {
    T got;
    if (!ok(fuse_reduce(FUSE_REDUCE_ADD, Traits<T>::dtype, in.p, one.p, n,
                        nullptr),
            "reduce") ||
        !ok(fuse_memcpy_dtoh(&got, one.p, sizeof got, nullptr), "download"))
      return;
    if (run == 0)
      first = got;
    same = same && std::memcmp(&got, &first, sizeof got) == 0;
    if (withScan) {
      std::vector<T> s(n);
      if (!ok(fuse_scan(FUSE_REDUCE_ADD, Traits<T>::dtype, 0, in.p, out.p, n,
                        nullptr),
              "scan") ||
          !ok(fuse_memcpy_dtoh(s.data(), out.p, n * sizeof(T), nullptr), "dl"))
        return;
      if (run == 0)
        firstScan = s;
      sameScan = sameScan &&
                 std::memcmp(s.data(), firstScan.data(), n * sizeof(T)) == 0;
    }
  }
  check(same, "reduce add bitwise identical over 10 runs " + tag);
  if (withScan)
    check(sameScan, "inclusive scan bitwise identical over 10 runs " + tag);
}

// ---- select
// -------------------------------------------------------------------------

template <typename T> static void testSelect(int64_t n, uint64_t seed) {
  std::string tag =
      std::string("select ") + Traits<T>::name() + " n=" + std::to_string(n);
  Rng r(seed);
  std::vector<T> h(n);
  std::vector<uint8_t> f(n);
  for (int64_t i = 0; i < n; ++i) {
    uint64_t bits = r.next();
    std::memcpy(&h[i], &bits, sizeof(T));
    static const uint8_t flagValues[] = {0, 1, 0, 7, 0, 255};
    f[i] = flagValues[r.next() % 6];
  }
  DeviceArray<T> in, out;
  DeviceArray<uint8_t> flags;
  DeviceArray<int64_t> count;
  if (!in.alloc(n + 1) || !out.alloc(n + 1) || !flags.alloc(n + 1) ||
      !count.alloc(1))
    return;
  if (n &&
      (!ok(fuse_memcpy_htod(in.p, h.data(), n * sizeof(T), nullptr), "up") ||
       !ok(fuse_memcpy_htod(flags.p, f.data(), n, nullptr), "up")))
    return;
  std::vector<T> want;
  for (int64_t i = 0; i < n; ++i)
    if (f[i])
      want.push_back(h[i]);
  for (int inPlace = 0; inPlace < 2; ++inPlace) {
    T *dst = inPlace ? in.p : out.p;
    int64_t c = -1;
    if (!ok(fuse_select_flagged(Traits<T>::dtype, in.p, flags.p, dst, count.p,
                                n, nullptr),
            tag) ||
        !ok(fuse_memcpy_dtoh(&c, count.p, 8, nullptr), "dl"))
      continue;
    std::vector<T> got(c > 0 ? c : 0);
    if (c > 0 &&
        !ok(fuse_memcpy_dtoh(got.data(), dst, c * sizeof(T), nullptr), "dl"))
      continue;
    check(c == (int64_t)want.size() &&
              (c == 0 ||
               std::memcmp(got.data(), want.data(), c * sizeof(T)) == 0),
          tag + (inPlace ? " in place" : ""),
          "count " + std::to_string(c) + " want " +
              std::to_string(want.size()));
  }
}

// ---- sort
// ----------------------------------------------------------------------------

template <typename K> static K genKey(Rng &r) {
  if constexpr (Traits<K>::isFloat) {
    // Quantised (many duplicates, for stability) and never zero (so -0.0
    // never appears).
    int k = int(r.next() % 1024) - 512;
    return Traits<K>::fromD((k + 0.5) / 64.0);
  } else if constexpr (sizeof(K) >= 4) {
    return static_cast<K>(
        r.next() % 4096 * 0x10001ull +
        (std::is_signed<K>::value && r.next() % 2
             ? static_cast<uint64_t>(std::numeric_limits<K>::min())
             : 0));
  } else {
    return static_cast<K>(r.next());
  }
}

template <typename K> static double keyOrder(K k) {
  if constexpr (Traits<K>::isFloat)
    return Traits<K>::toD(k);
  else
    return 0;
}
template <typename K> static bool keyLess(K a, K b) {
  if constexpr (Traits<K>::isFloat)
    return keyOrder(a) < keyOrder(b);
  else
    return a < b;
}

static uint64_t valueOf(uint32_t idx) { return idx * 0x9E3779B97F4A7C15ull; }

template <typename K> static void testSort(int64_t n, uint64_t seed) {
  std::string tag =
      std::string("sort ") + Traits<K>::name() + " n=" + std::to_string(n);
  Rng r(seed);
  std::vector<K> h(n);
  std::vector<uint32_t> idx(n);
  std::vector<uint64_t> v64(n);
  std::vector<uint8_t> v8(n);
  std::vector<uint16_t> v16(n);
  for (int64_t i = 0; i < n; ++i) {
    h[i] = genKey<K>(r);
    idx[i] = uint32_t(i);
    v64[i] = valueOf(uint32_t(i));
    v8[i] = uint8_t(v64[i]);
    v16[i] = uint16_t(v64[i]);
  }
  DeviceArray<K> kin, kout, kout2;
  DeviceArray<uint32_t> vin, vout;
  DeviceArray<uint64_t> w64in, w64out;
  DeviceArray<uint16_t> w16in, w16out;
  DeviceArray<uint8_t> w8in, w8out;
  if (!kin.alloc(n + 1) || !kout.alloc(n + 1) || !kout2.alloc(n + 1) ||
      !vin.alloc(n + 1) || !vout.alloc(n + 1) || !w64in.alloc(n + 1) ||
      !w64out.alloc(n + 1) || !w16in.alloc(n + 1) || !w16out.alloc(n + 1) ||
      !w8in.alloc(n + 1) || !w8out.alloc(n + 1))
    return;
  if (n &&
      (!ok(fuse_memcpy_htod(kin.p, h.data(), n * sizeof(K), nullptr), "up") ||
       !ok(fuse_memcpy_htod(vin.p, idx.data(), n * 4, nullptr), "up") ||
       !ok(fuse_memcpy_htod(w64in.p, v64.data(), n * 8, nullptr), "up") ||
       !ok(fuse_memcpy_htod(w16in.p, v16.data(), n * 2, nullptr), "up") ||
       !ok(fuse_memcpy_htod(w8in.p, v8.data(), n, nullptr), "up")))
    return;
  if (!ok(fuse_sort(Traits<K>::dtype, kin.p, kout.p, FUSE_U32, vin.p, vout.p, n,
                    nullptr),
          tag + " pairs u32"))
    return;
  std::vector<K> ko(n);
  std::vector<uint32_t> vo(n);
  if (n &&
      (!ok(fuse_memcpy_dtoh(ko.data(), kout.p, n * sizeof(K), nullptr), "dl") ||
       !ok(fuse_memcpy_dtoh(vo.data(), vout.p, n * 4, nullptr), "dl")))
    return;
  // Permutation, keys carried with their index, ascending, stable.
  std::vector<uint8_t> seen(n, 0);
  bool good = true;
  std::string why;
  for (int64_t i = 0; i < n && good; ++i) {
    uint32_t j = vo[i];
    if (j >= uint64_t(n) || seen[j]) {
      good = false;
      why = "not a permutation at " + std::to_string(i);
      break;
    }
    seen[j] = 1;
    if (std::memcmp(&ko[i], &h[j], sizeof(K)) != 0) {
      good = false;
      why = "key not carried with its value at " + std::to_string(i);
    } else if (i > 0 && keyLess(ko[i], ko[i - 1])) {
      good = false;
      why = "not ascending at " + std::to_string(i);
    } else if (i > 0 && !keyLess(ko[i - 1], ko[i]) && vo[i - 1] > vo[i]) {
      good = false;
      why = "not stable at " + std::to_string(i);
    }
  }
  check(good, tag + " pairs (u32 values)", why);

  // Keys only: the same keys.
  if (ok(fuse_sort(Traits<K>::dtype, kin.p, kout2.p, FUSE_U32, nullptr, nullptr,
                   n, nullptr),
         tag + " keys")) {
    std::vector<K> k2(n);
    if (!n ||
        ok(fuse_memcpy_dtoh(k2.data(), kout2.p, n * sizeof(K), nullptr), "dl"))
      check(n == 0 || std::memcmp(k2.data(), ko.data(), n * sizeof(K)) == 0,
            tag + " keys only");
  }
  // 1-, 2- and 8-byte values follow the same permutation.
  std::vector<uint64_t> g64(n);
  std::vector<uint16_t> g16(n);
  std::vector<uint8_t> g8(n);
  if (ok(fuse_sort(Traits<K>::dtype, kin.p, kout2.p, FUSE_U64, w64in.p,
                   w64out.p, n, nullptr),
         tag + " u64 values") &&
      ok(fuse_sort(Traits<K>::dtype, kin.p, kout2.p, FUSE_I16, w16in.p,
                   w16out.p, n, nullptr),
         tag + " i16 values") &&
      ok(fuse_sort(Traits<K>::dtype, kin.p, kout2.p, FUSE_U8, w8in.p, w8out.p,
                   n, nullptr),
         tag + " u8 values") &&
      (!n ||
       (ok(fuse_memcpy_dtoh(g64.data(), w64out.p, n * 8, nullptr), "dl") &&
        ok(fuse_memcpy_dtoh(g16.data(), w16out.p, n * 2, nullptr), "dl") &&
        ok(fuse_memcpy_dtoh(g8.data(), w8out.p, n, nullptr), "dl")))) {
    bool same = true;
    for (int64_t i = 0; i < n && same; ++i)
      same = g64[i] == valueOf(vo[i]) && g16[i] == uint16_t(valueOf(vo[i])) &&
             g8[i] == uint8_t(valueOf(vo[i]));
    check(same, tag + " u64/i16/u8 values follow the keys");
  }
  // In place (keys_out == keys_in, values_out == values_in).
  if (n > 0 && ok(fuse_sort(Traits<K>::dtype, kin.p, kin.p, FUSE_U32, vin.p,
                            vin.p, n, nullptr),
                  tag + " in place")) {
    std::vector<K> k3(n);
    std::vector<uint32_t> v3(n);
    if (ok(fuse_memcpy_dtoh(k3.data(), kin.p, n * sizeof(K), nullptr), "dl") &&
        ok(fuse_memcpy_dtoh(v3.data(), vin.p, n * 4, nullptr), "dl"))
      check(std::memcmp(k3.data(), ko.data(), n * sizeof(K)) == 0 && v3 == vo,
            tag + " in place");
  }
}

// ---- capture-safe sort (fuse_sort_ws)
// ------------------------------------------------------

// A key's bits as an unsigned integer of its size, and back.
template <typename K> static uint64_t keyBits(K k) {
  if constexpr (sizeof(K) == 1) {
    uint8_t b;
    std::memcpy(&b, &k, 1);
    return b;
  } else if constexpr (sizeof(K) == 2) {
    uint16_t b;
    std::memcpy(&b, &k, 2);
    return b;
  } else if constexpr (sizeof(K) == 4) {
    uint32_t b;
    std::memcpy(&b, &k, 4);
    return b;
  } else {
    uint64_t b;
    std::memcpy(&b, &k, 8);
    return b;
  }
}
template <typename K> static K keyFromBits(uint64_t b) {
  K k;
  if constexpr (sizeof(K) == 1) {
    uint8_t v = uint8_t(b);
    std::memcpy(&k, &v, 1);
  } else if constexpr (sizeof(K) == 2) {
    uint16_t v = uint16_t(b);
    std::memcpy(&k, &v, 2);
  } else if constexpr (sizeof(K) == 4) {
    uint32_t v = uint32_t(b);
    std::memcpy(&k, &v, 4);
  } else {
    std::memcpy(&k, &b, 8);
  }
  return k;
}

// The order fuse_runtime.h documents for fuse_sort_ws, ascending: integers
// by value; floating-point keys NaNs with the sign bit set first (larger bit
// pattern first), then numbers and infinities by value (-0.0 == +0.0),
// then NaNs with the sign bit clear (smaller bit pattern first).
// Written from the documentation, not from CUB's bit twiddling.
template <typename K> static bool docLess(K a, K b) {
  if constexpr (Traits<K>::isFloat) {
    constexpr uint64_t sign = uint64_t(1) << (sizeof(K) * 8 - 1);
    double x = Traits<K>::toD(a), y = Traits<K>::toD(b);
    uint64_t ba = keyBits(a), bb = keyBits(b);
    int ca = std::isnan(x) ? (ba & sign ? 0 : 2) : 1;
    int cb = std::isnan(y) ? (bb & sign ? 0 : 2) : 1;
    if (ca != cb)
      return ca < cb;
    if (ca == 1)
      return x < y;
    return ca == 0 ? ba > bb : ba < bb;
  } else {
    return a < b;
  }
}

// Keys with many ties. Floating point: a few quarter-integers, +0.0 and
// -0.0, both infinities, the smallest subnormals and NaNs of both signs
// (quiet and signalling, several payloads). Integers: a few small values,
// the extremes and some arbitrary ones.
template <typename K> static K genSortKey(Rng &r) {
  uint64_t k = r.next() % 32;
  if constexpr (Traits<K>::isFloat) {
    constexpr uint64_t sign = uint64_t(1) << (sizeof(K) * 8 - 1);
    const uint64_t inf = keyBits(Traits<K>::fromD(INFINITY));
    const uint64_t mant = (sign - 1) & ~inf, quiet = (mant + 1) >> 1;
    uint64_t s = r.next() % 2 ? sign : 0;
    switch (k) {
    case 0:
    case 1:
      return keyFromBits<K>(s); // +0.0 or -0.0
    case 2:
      return keyFromBits<K>(s | inf);
    case 3:
      return keyFromBits<K>(s | 1); // the smallest subnormal
    case 4:
    case 5: {
      static const int kinds = 4;
      uint64_t payload[kinds] = {quiet, quiet | 1, 1, mant};
      return keyFromBits<K>(s | inf | payload[r.next() % kinds]);
    }
    default:
      return Traits<K>::fromD(double(int(r.next() % 17) - 8) / 4);
    }
  } else {
    switch (k) {
    case 0:
      return std::numeric_limits<K>::min();
    case 1:
      return std::numeric_limits<K>::max();
    case 2:
      return static_cast<K>(r.next());
    default:
      return static_cast<K>(int64_t(r.next() % 16) - 8);
    }
  }
}

static std::string hexBits(uint64_t b) {
  char t[24];
  std::snprintf(t, sizeof t, "0x%llx", (unsigned long long)b);
  return t;
}

// fuse_sort_ws, ascending and descending, keys alone and with int32 values
// (the input index, so that the values show stability), against
// std::stable_sort with docLess: keys and values bitwise. The temporary
// storage is exactly fuse_sort_temp_bytes's answer, at an odd address,
// followed by a guard that must stay untouched. The ascending pairs also
// go through fuse_sort, which must give the same bits.
template <typename K> static void testSortWs(int64_t n, uint64_t seed) {
  const fuse_dtype_t dt = Traits<K>::dtype;
  std::string base =
      std::string("sort_ws ") + Traits<K>::name() + " n=" + std::to_string(n);
  Rng r(seed ^ 0x5157);
  std::vector<K> h(n);
  std::vector<int32_t> idx(n);
  for (int64_t i = 0; i < n; ++i) {
    h[i] = genSortKey<K>(r);
    idx[i] = int32_t(i);
  }
  DeviceArray<K> kin, kout;
  DeviceArray<int32_t> vin, vout;
  if (!kin.alloc(n + 1) || !kout.alloc(n + 1) || !vin.alloc(n + 1) ||
      !vout.alloc(n + 1))
    return;
  if (n &&
      (!ok(fuse_memcpy_htod(kin.p, h.data(), n * sizeof(K), nullptr), "up") ||
       !ok(fuse_memcpy_htod(vin.p, idx.data(), n * 4, nullptr), "up")))
    return;
  for (int desc = 0; desc < 2; ++desc) {
    fuse_sort_order_t order = desc ? FUSE_SORT_DESCENDING : FUSE_SORT_ASCENDING;
    std::string tag = base + (desc ? " descending" : " ascending");
    std::vector<int32_t> perm(idx);
    std::stable_sort(perm.begin(), perm.end(), [&](int32_t a, int32_t b) {
      return desc ? docLess(h[b], h[a]) : docLess(h[a], h[b]);
    });
    std::vector<K> want(n);
    for (int64_t i = 0; i < n; ++i)
      want[i] = h[perm[i]];
    for (int withValues = 0; withValues < 2; ++withValues) {
      std::string t = tag + (withValues ? " pairs (i32 values)" : " keys");
      size_t bytes = 12345;
      if (!ok(fuse_sort_temp_bytes(dt, FUSE_I32, withValues, n, order, &bytes),
              t + ": fuse_sort_temp_bytes"))
        continue;
      if (n == 0) {
        check(bytes == 0, t + ": no temporary storage for n = 0",
              std::to_string(bytes) + " bytes");
        expectStatus(fuse_sort_ws(dt, order, nullptr, nullptr, FUSE_I32,
                                  nullptr, nullptr, 0, nullptr, 0, nullptr),
                     FUSE_SUCCESS, t + ": n = 0 with NULL pointers");
        continue;
      }
      const size_t off = 3, guard = 256;
      DeviceArray<uint8_t> tb;
      if (!tb.alloc(off + bytes + guard) ||
          !ok(fuse_memset(tb.p, 0xa5, off + bytes + guard, nullptr),
              "memset") ||
          !ok(fuse_memset(kout.p, 0, n * sizeof(K), nullptr), "memset") ||
          !ok(fuse_memset(vout.p, 0xff, n * 4, nullptr), "memset"))
        continue;
      if (!ok(fuse_sort_ws(dt, order, kin.p, kout.p, FUSE_I32,
                           withValues ? vin.p : nullptr,
                           withValues ? vout.p : nullptr, n, tb.p + off, bytes,
                           nullptr),
              t))
        continue;
      std::vector<K> gk(n), gin(n);
      std::vector<int32_t> gv(n);
      std::vector<uint8_t> gg(guard);
      if (!ok(fuse_memcpy_dtoh(gk.data(), kout.p, n * sizeof(K), nullptr),
              "dl") ||
          !ok(fuse_memcpy_dtoh(gv.data(), vout.p, n * 4, nullptr), "dl") ||
          !ok(fuse_memcpy_dtoh(gin.data(), kin.p, n * sizeof(K), nullptr),
              "dl") ||
          !ok(fuse_memcpy_dtoh(gg.data(), tb.p + off + bytes, guard, nullptr),
              "dl"))
        continue;
      int64_t bad = -1;
      for (int64_t i = 0; i < n && bad < 0; ++i)
        if (keyBits(gk[i]) != keyBits(want[i]) ||
            (withValues && gv[i] != perm[i]))
          bad = i;
      std::string detail;
      if (bad >= 0)
        detail = "first mismatch at " + std::to_string(bad) + ": key " +
                 hexBits(keyBits(gk[bad])) + " value " +
                 std::to_string(gv[bad]) + ", want key " +
                 hexBits(keyBits(want[bad])) + " value " +
                 std::to_string(perm[bad]);
      check(bad < 0, t + " matches the documented order, stable", detail);
      if (!withValues)
        check(std::all_of(gv.begin(), gv.end(),
                          [](int32_t v) { return v == -1; }),
              t + ": values_out untouched without values");
      check(std::memcmp(gin.data(), h.data(), n * sizeof(K)) == 0,
            t + ": keys_in unchanged");
      check(std::all_of(gg.begin(), gg.end(),
                        [](uint8_t b) { return b == 0xa5; }),
            t + ": nothing written past temp + temp_bytes");
      if (!desc && withValues) {
        std::vector<K> fk(n);
        std::vector<int32_t> fv(n);
        if (ok(fuse_sort(dt, kin.p, kout.p, FUSE_I32, vin.p, vout.p, n,
                         nullptr),
               t + ": fuse_sort") &&
            ok(fuse_memcpy_dtoh(fk.data(), kout.p, n * sizeof(K), nullptr),
               "dl") &&
            ok(fuse_memcpy_dtoh(fv.data(), vout.p, n * 4, nullptr), "dl"))
          check(std::memcmp(fk.data(), want.data(), n * sizeof(K)) == 0 &&
                    fv == perm,
                t + ": fuse_sort gives the same bits");
      }
    }
  }
}

// fuse_argsort_ws, ascending and descending, against std::stable_sort
// with docLess: the keys bitwise and each key's input position (int64).
// The temporary storage is exactly fuse_argsort_temp_bytes's answer at an
// odd address, followed by a guard that must stay untouched.
template <typename K> static void testArgsortWs(int64_t n, uint64_t seed) {
  const fuse_dtype_t dt = Traits<K>::dtype;
  std::string base = std::string("argsort_ws ") + Traits<K>::name() +
                     " n=" + std::to_string(n);
  Rng r(seed ^ 0xa5a5);
  std::vector<K> h(n);
  for (int64_t i = 0; i < n; ++i)
    h[i] = genSortKey<K>(r);
  DeviceArray<K> kin, kout;
  DeviceArray<int64_t> pout;
  if (!kin.alloc(n + 1) || !kout.alloc(n + 1) || !pout.alloc(n + 1))
    return;
  if (n && !ok(fuse_memcpy_htod(kin.p, h.data(), n * sizeof(K), nullptr), "up"))
    return;
  for (int desc = 0; desc < 2; ++desc) {
    fuse_sort_order_t order = desc ? FUSE_SORT_DESCENDING : FUSE_SORT_ASCENDING;
    std::string t = base + (desc ? " descending" : " ascending");
    std::vector<int64_t> perm(n);
    for (int64_t i = 0; i < n; ++i)
      perm[i] = i;
    std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
      return desc ? docLess(h[b], h[a]) : docLess(h[a], h[b]);
    });
    size_t bytes = 12345;
    if (!ok(fuse_argsort_temp_bytes(dt, n, order, &bytes),
            t + ": fuse_argsort_temp_bytes"))
      continue;
    if (n == 0) {
      check(bytes == 0, t + ": no temporary storage for n = 0",
            std::to_string(bytes) + " bytes");
      expectStatus(fuse_argsort_ws(dt, order, nullptr, nullptr, nullptr, 0,
                                   nullptr, 0, nullptr),
                   FUSE_SUCCESS, t + ": n = 0 with NULL pointers");
      continue;
    }
    const size_t off = 3, guard = 256;
    DeviceArray<uint8_t> tb;
    if (!tb.alloc(off + bytes + guard) ||
        !ok(fuse_memset(tb.p, 0xa5, off + bytes + guard, nullptr), "memset") ||
        !ok(fuse_memset(pout.p, 0xff, n * 8, nullptr), "memset"))
      continue;
    if (!ok(fuse_argsort_ws(dt, order, kin.p, kout.p, pout.p, n, tb.p + off,
                            bytes, nullptr),
            t))
      continue;
    std::vector<K> gk(n);
    std::vector<int64_t> gp(n);
    std::vector<uint8_t> gg(guard);
    if (!ok(fuse_memcpy_dtoh(gk.data(), kout.p, n * sizeof(K), nullptr),
            "dl") ||
        !ok(fuse_memcpy_dtoh(gp.data(), pout.p, n * 8, nullptr), "dl") ||
        !ok(fuse_memcpy_dtoh(gg.data(), tb.p + off + bytes, guard, nullptr),
            "dl"))
      continue;
    int64_t bad = -1;
    for (int64_t i = 0; i < n && bad < 0; ++i)
      if (gp[i] != perm[i] || keyBits(gk[i]) != keyBits(h[perm[i]]))
        bad = i;
    std::string detail;
    if (bad >= 0)
      detail = "first mismatch at " + std::to_string(bad) + ": position " +
               std::to_string(gp[bad]) + " key " + hexBits(keyBits(gk[bad])) +
               ", want " + std::to_string(perm[bad]);
    check(bad < 0, t + " gives the stable order's positions", detail);
    check(
        std::all_of(gg.begin(), gg.end(), [](uint8_t b) { return b == 0xa5; }),
        t + ": nothing written past temp + temp_bytes");
  }
}

// fuse_argsort_ws's own checks: a short or NULL temp, a NULL or misaligned
// positions_out, outputs overlapping each other or the keys.
static void testArgsortWsErrors() {
  std::printf("-- argsort_ws argument checks\n");
  const int64_t n = 100000;
  DeviceArray<float> k, ko;
  DeviceArray<int64_t> po;
  DeviceArray<uint8_t> temp;
  size_t bytes = 0;
  const fuse_sort_order_t asc = FUSE_SORT_ASCENDING;
  if (!k.alloc(n) || !ko.alloc(n) || !po.alloc(n) ||
      !ok(fuse_argsort_temp_bytes(FUSE_F32, n, asc, &bytes),
          "fuse_argsort_temp_bytes") ||
      !temp.alloc(bytes))
    return;
  check(bytes > 2 * n * 4, "argsort temp bytes hold both position arrays",
        std::to_string(bytes));
  std::string small = std::to_string(bytes - 1), need = std::to_string(bytes);
  expectStatus(fuse_argsort_ws(FUSE_F32, asc, k.p, ko.p, po.p, n, temp.p,
                               bytes - 1, nullptr),
               FUSE_ERROR_INVALID_ARGUMENT,
               "argsort_ws: temp_bytes one byte short names both counts",
               {"fuse_argsort_ws", small.c_str(), need.c_str()});
  expectStatus(fuse_argsort_ws(FUSE_F32, asc, k.p, ko.p, po.p, n, nullptr,
                               bytes, nullptr),
               FUSE_ERROR_INVALID_ARGUMENT, "argsort_ws: NULL temp",
               {"temp is NULL"});
  expectStatus(fuse_argsort_ws(FUSE_F32, asc, k.p, ko.p, nullptr, n, temp.p,
                               bytes, nullptr),
               FUSE_ERROR_INVALID_ARGUMENT, "argsort_ws: NULL positions_out",
               {"positions_out is NULL"});
  expectStatus(fuse_argsort_ws(FUSE_F32, asc, k.p, ko.p,
                               reinterpret_cast<int64_t *>(
                                   reinterpret_cast<char *>(po.p) + 4),
                               n - 1, temp.p, bytes, nullptr),
               FUSE_ERROR_INVALID_ARGUMENT, "argsort_ws: misaligned positions",
               {"positions_out", "not aligned to 8"});
  expectStatus(fuse_argsort_ws(FUSE_F32, asc, k.p, ko.p,
                               reinterpret_cast<int64_t *>(ko.p), n / 2, temp.p,
                               bytes, nullptr),
               FUSE_ERROR_INVALID_ARGUMENT,
               "argsort_ws: keys_out overlaps positions_out",
               {"keys_out", "overlaps positions_out"});
  // The keys inside the temporary storage (temp placed at k.p would also
  // reach keys_out, allocated after k, which is checked first).
  expectStatus(fuse_argsort_ws(FUSE_F32, asc,
                               reinterpret_cast<const float *>(temp.p), ko.p,
                               po.p, n, temp.p, bytes, nullptr),
               FUSE_ERROR_INVALID_ARGUMENT, "argsort_ws: temp overlaps keys_in",
               {"temp", "overlaps keys_in"});
  size_t b = 7;
  expectStatus(fuse_argsort_temp_bytes(FUSE_F32, -5, asc, &b),
               FUSE_ERROR_INVALID_ARGUMENT, "argsort_temp_bytes: n < 0",
               {"fuse_argsort_temp_bytes", "negative"});
  check(b == 0, "argsort_temp_bytes: *bytes is 0 after an error");
}

// fuse_sort_ws and fuse_sort_temp_bytes refuse bad arguments before
// queueing anything, with messages that name the argument (and, for a
// small temp, both byte counts).
static void testSortWsErrors() {
  std::printf("-- sort_ws argument checks\n");
  const int64_t n = 100000; // above a single tile: CUB's multi-pass sort
  DeviceArray<float> k, ko;
  DeviceArray<int32_t> v, vo;
  DeviceArray<uint8_t> temp;
  size_t bytes = 0;
  if (!k.alloc(n) || !ko.alloc(n) || !v.alloc(n) || !vo.alloc(n) ||
      !ok(fuse_sort_temp_bytes(FUSE_F32, FUSE_I32, 1, n, FUSE_SORT_ASCENDING,
                               &bytes),
          "fuse_sort_temp_bytes") ||
      !temp.alloc(bytes))
    return;
  const fuse_sort_order_t asc = FUSE_SORT_ASCENDING;
  const fuse_dtype_t f32 = FUSE_F32, i32 = FUSE_I32;
  check(bytes > 2 * n * 4,
        "fuse_sort_temp_bytes of 100000 f32/i32 pairs "
        "covers CUB's copies of keys and values",
        std::to_string(bytes));
  size_t kbytes = 0, dbytes = 0;
  ok(fuse_sort_temp_bytes(f32, i32, 0, n, asc, &kbytes), "keys temp bytes");
  ok(fuse_sort_temp_bytes(f32, i32, 1, n, FUSE_SORT_DESCENDING, &dbytes),
     "descending temp bytes");
  std::printf("fuse_sort_temp_bytes for %lld f32 keys: with i32 values %zu "
              "(descending %zu), alone %zu\n",
              (long long)n, bytes, dbytes, kbytes);
  check(kbytes > 0 && kbytes <= bytes && dbytes > 0,
        "temp bytes: keys alone need no more than pairs",
        std::to_string(kbytes) + " " + std::to_string(bytes) + " " +
            std::to_string(dbytes));
  std::string small = std::to_string(bytes - 1), need = std::to_string(bytes);
  expectStatus(fuse_sort_ws(f32, asc, k.p, ko.p, i32, v.p, vo.p, n, temp.p,
                            bytes - 1, nullptr),
               FUSE_ERROR_INVALID_ARGUMENT,
               "sort_ws: temp_bytes one byte short names both counts",
               {"fuse_sort_ws", "temp_bytes", small.c_str(), need.c_str()});
  expectStatus(fuse_sort_ws(f32, asc, k.p, ko.p, i32, v.p, vo.p, n, nullptr,
                            bytes, nullptr),
               FUSE_ERROR_INVALID_ARGUMENT, "sort_ws: NULL temp",
               {"temp is NULL", need.c_str()});
  expectStatus(fuse_sort_ws(f32, asc, nullptr, ko.p, i32, v.p, vo.p, n, temp.p,
                            bytes, nullptr),
               FUSE_ERROR_INVALID_ARGUMENT, "sort_ws: NULL keys_in",
               {"keys_in is NULL"});
  expectStatus(fuse_sort_ws(f32, asc, k.p, nullptr, i32, v.p, vo.p, n, temp.p,
                            bytes, nullptr),
               FUSE_ERROR_INVALID_ARGUMENT, "sort_ws: NULL keys_out",
               {"keys_out is NULL"});
  expectStatus(fuse_sort_ws(f32, asc, k.p, ko.p, i32, nullptr, vo.p, n, temp.p,
                            bytes, nullptr),
               FUSE_ERROR_INVALID_ARGUMENT,
               "sort_ws: NULL values_in with values_out",
               {"values_in is NULL"});
  expectStatus(fuse_sort_ws(f32, asc, k.p, ko.p, i32, v.p, nullptr, n, temp.p,
                            bytes, nullptr),
               FUSE_ERROR_INVALID_ARGUMENT,
               "sort_ws: NULL values_out with values_in",
               {"values_out is NULL"});
  expectStatus(fuse_sort_ws(f32, asc, k.p, ko.p, i32, v.p, vo.p, -1, temp.p,
                            bytes, nullptr),
               FUSE_ERROR_INVALID_ARGUMENT, "sort_ws: n < 0", {"negative"});
  expectStatus(fuse_sort_ws(f32, static_cast<fuse_sort_order_t>(2), k.p, ko.p,
                            i32, v.p, vo.p, n, temp.p, bytes, nullptr),
               FUSE_ERROR_INVALID_ARGUMENT, "sort_ws: unknown order",
               {"unknown sort order 2"});
  expectStatus(fuse_sort_ws(static_cast<fuse_dtype_t>(99), asc, k.p, ko.p, i32,
                            v.p, vo.p, n, temp.p, bytes, nullptr),
               FUSE_ERROR_INVALID_ARGUMENT, "sort_ws: unknown key dtype",
               {"unknown key dtype 99"});
  expectStatus(fuse_sort_ws(f32, asc, k.p, ko.p, static_cast<fuse_dtype_t>(-1),
                            v.p, vo.p, n, temp.p, bytes, nullptr),
               FUSE_ERROR_INVALID_ARGUMENT, "sort_ws: unknown value dtype",
               {"unknown value dtype -1"});
  expectStatus(fuse_sort_ws(f32, asc, reinterpret_cast<char *>(k.p) + 2, ko.p,
                            i32, v.p, vo.p, n - 1, temp.p, bytes, nullptr),
               FUSE_ERROR_INVALID_ARGUMENT, "sort_ws: misaligned keys_in",
               {"keys_in", "not aligned to 4"});
  expectStatus(fuse_sort_ws(f32, asc, k.p, k.p, i32, v.p, vo.p, n, temp.p,
                            bytes, nullptr),
               FUSE_ERROR_INVALID_ARGUMENT, "sort_ws: keys_out == keys_in",
               {"keys_out", "overlaps keys_in"});
  expectStatus(
      fuse_sort_ws(f32, asc, k.p, ko.p, i32, v.p, v.p + 1, n - 1, temp.p, bytes,
                   nullptr),
      FUSE_ERROR_INVALID_ARGUMENT,
      "sort_ws: values_out overlapping values_in by all but one element",
      {"values_out", "overlaps values_in"});
  expectStatus(fuse_sort_ws(f32, asc, k.p, ko.p, i32, v.p,
                            reinterpret_cast<int32_t *>(ko.p) + n / 4, n / 2,
                            temp.p, bytes, nullptr),
               FUSE_ERROR_INVALID_ARGUMENT,
               "sort_ws: keys_out overlaps values_out",
               {"keys_out", "overlaps values_out"});
  expectStatus(fuse_sort_ws(f32, asc, k.p, ko.p, i32, v.p, vo.p, n,
                            reinterpret_cast<uint8_t *>(ko.p + n - 1), bytes,
                            nullptr),
               FUSE_ERROR_INVALID_ARGUMENT, "sort_ws: temp overlaps keys_out",
               {"temp", "overlaps keys_out"});
  expectStatus(
      fuse_sort_ws(f32, asc, k.p, ko.p, i32, v.p, vo.p, 0, nullptr, 0, nullptr),
      FUSE_SUCCESS, "sort_ws: n = 0 without temp succeeds");
  size_t b = 7;
  expectStatus(fuse_sort_temp_bytes(f32, i32, 1, -5, asc, &b),
               FUSE_ERROR_INVALID_ARGUMENT, "sort_temp_bytes: n < 0",
               {"fuse_sort_temp_bytes", "negative"});
  check(b == 0, "sort_temp_bytes: *bytes is 0 after an error");
  expectStatus(fuse_sort_temp_bytes(f32, i32, 1, n, asc, nullptr),
               FUSE_ERROR_INVALID_ARGUMENT, "sort_temp_bytes: NULL bytes",
               {"bytes is NULL"});
  expectStatus(
      fuse_sort_temp_bytes(f32, static_cast<fuse_dtype_t>(77), 0, n, asc, &b),
      FUSE_SUCCESS, "sort_temp_bytes: value_dtype ignored without values");
  check(b == kbytes, "sort_temp_bytes: keys alone, any value_dtype",
        std::to_string(b) + " vs " + std::to_string(kbytes));
}

// ---- NaN
// ---------------------------------------------------------------------------------

// min/max propagate NaN wherever it sits (first, middle, last of a tile);
// an inclusive max scan is NaN from the NaN on and exact before it.
template <typename T> static void testNaN() {
  const int64_t n = 5000;
  for (int64_t at : {int64_t(0), int64_t(2047), int64_t(2048), n - 1}) {
    std::string tag =
        std::string(Traits<T>::name()) + " NaN at " + std::to_string(at);
    std::vector<T> h(n);
    Rng r(at + 3);
    for (auto &x : h)
      x = genValue<T>(r, FUSE_REDUCE_MAX);
    h[at] = Traits<T>::fromD(NAN);
    DeviceArray<T> in, out;
    if (!in.alloc(n) || !out.alloc(n) ||
        !ok(fuse_memcpy_htod(in.p, h.data(), n * sizeof(T), nullptr), "up"))
      return;
    T got[2];
    bool good = true;
    for (int k = 0; k < 2; ++k) {
      fuse_reduce_op_t op = k ? FUSE_REDUCE_MAX : FUSE_REDUCE_MIN;
      good &= ok(fuse_reduce(op, Traits<T>::dtype, in.p, out.p, n, nullptr),
                 "reduce") &&
              ok(fuse_memcpy_dtoh(&got[k], out.p, sizeof(T), nullptr), "dl") &&
              std::isnan(Traits<T>::toD(got[k]));
    }
    check(good, "min and max propagate NaN, " + tag);
    std::vector<T> sc(n);
    if (!ok(fuse_scan(FUSE_REDUCE_MAX, Traits<T>::dtype, 0, in.p, out.p, n,
                      nullptr),
            "scan") ||
        !ok(fuse_memcpy_dtoh(sc.data(), out.p, n * sizeof(T), nullptr), "dl"))
      return;
    double run = -INFINITY;
    bool sgood = true;
    for (int64_t i = 0; i < n && sgood; ++i) {
      double v = Traits<T>::toD(sc[i]);
      if (i >= at)
        sgood = std::isnan(v);
      else
        sgood = v == (run = std::max(run, Traits<T>::toD(h[i])));
    }
    check(sgood, "max scan is NaN from the NaN on, exact before, " + tag);
  }
}

// ---- per-size driver
// ------------------------------------------------------------------

template <typename T> static void reduceScanAllOps(int64_t n, uint64_t seed) {
  for (int op = 0; op < 4; ++op)
    testReduceScan<T>(n, static_cast<fuse_reduce_op_t>(op), seed + op);
}

static void testAllOpsAtSize(int64_t n) {
  std::printf("-- size %lld\n", (long long)n);
  uint64_t seed = uint64_t(n) * 31 + 5;
  reduceScanAllOps<__half>(n, seed);
  reduceScanAllOps<__nv_bfloat16>(n, seed);
  reduceScanAllOps<float>(n, seed);
  reduceScanAllOps<double>(n, seed);
  reduceScanAllOps<int32_t>(n, seed);
  reduceScanAllOps<int64_t>(n, seed);
  reduceScanAllOps<uint32_t>(n, seed);
  reduceScanAllOps<uint64_t>(n, seed);
  testSelect<__half>(n, seed);
  testSelect<__nv_bfloat16>(n, seed);
  testSelect<float>(n, seed);
  testSelect<double>(n, seed);
  testSelect<int32_t>(n, seed);
  testSelect<int64_t>(n, seed);
  testSelect<uint32_t>(n, seed);
  testSelect<uint64_t>(n, seed);
  testSelect<int8_t>(n, seed);
  testSelect<int16_t>(n, seed);
  testSort<__half>(n, seed);
  testSort<__nv_bfloat16>(n, seed);
  testSort<float>(n, seed);
  testSort<double>(n, seed);
  testSort<int32_t>(n, seed);
  testSort<int64_t>(n, seed);
  testSort<uint32_t>(n, seed);
  testSort<uint64_t>(n, seed);
  testSort<int8_t>(n, seed);
  testSort<uint8_t>(n, seed);
  testSort<int16_t>(n, seed);
  testSort<uint16_t>(n, seed);
  testSortWs<float>(n, seed);
  testSortWs<double>(n, seed);
  testSortWs<__half>(n, seed);
  testSortWs<__nv_bfloat16>(n, seed);
  testSortWs<int32_t>(n, seed);
  testSortWs<uint32_t>(n, seed);
  testSortWs<int64_t>(n, seed);
  testSortWs<uint64_t>(n, seed);
  testSortWs<uint16_t>(n, seed);
  testSortWs<uint8_t>(n, seed);
  testSortWs<int8_t>(n, seed);
  testSortWs<int16_t>(n, seed);
  testArgsortWs<float>(n, seed);
  testArgsortWs<double>(n, seed);
  testArgsortWs<__half>(n, seed);
  testArgsortWs<int32_t>(n, seed);
  testArgsortWs<uint64_t>(n, seed);
  testArgsortWs<int8_t>(n, seed);
}

// f32 at 2^28: reduce add/min/max, inclusive add scan, select, sort.
static void testLargeF32() {
  const int64_t n = int64_t(1) << 28;
  std::printf("-- size 2^28 (f32)\n");
  for (fuse_reduce_op_t op :
       {FUSE_REDUCE_ADD, FUSE_REDUCE_MIN, FUSE_REDUCE_MAX})
    testReduceScan<float>(n, op, 1234 + op);
  testSelect<float>(n, 99);
  testSort<float>(n, 98);
  testDeterminism<float>(n, false);
}

// ---- modules and launches
// -------------------------------------------------------------

std::string imageDir;
std::vector<char> readFile(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<char>((std::istreambuf_iterator<char>(f)),
                           std::istreambuf_iterator<char>());
}

std::string imagePath(int sm, const char *kind) {
  return imageDir + "/test_kernels_sm" + std::to_string(sm) + "." + kind;
}

int deviceSM() {
  int a = 0, b = 0, c = 0;
  fuse_device_info(&a, &b, &c);
  return a * 10 + b;
}

static bool runAxpy(fuse_function_t fn, fuse_stream_t stream, int64_t n,
                    const std::string &tag) {
  std::vector<float> x(n);
  for (int64_t i = 0; i < n; ++i)
    x[i] = float(i % 13) - 6.0f;
  DeviceArray<float> dx, dy;
  if (!dx.alloc(n, stream) || !dy.alloc(n, stream))
    return false;
  if (!ok(fuse_memcpy_htod(dx.p, x.data(), n * 4, stream), tag))
    return false;
  float a = 2.5f;
  long long nn = n;
  void *args[] = {&dx.p, &dy.p, &a, &nn};
  unsigned grid = unsigned((n + 255) / 256);
  if (!ok(fuse_launch(fn, grid, 1, 1, 256, 1, 1, 0, stream, args), tag))
    return false;
  std::vector<float> y(n);
  if (!ok(fuse_memcpy_dtoh(y.data(), dy.p, n * 4, stream), tag))
    return false;
  for (int64_t i = 0; i < n; ++i)
    if (y[i] != a * x[i] + float(i)) {
      check(false, tag, "wrong value at " + std::to_string(i));
      return false;
    }
  return true;
}

/// The runtime's device and the device of pointers: its own allocation is
/// on it; host memory and NULL are refused with a message.
static void testDevices() {
  std::printf("-- devices\n");
  int runtimeDevice = -1, current = -2, of = -3;
  ok(fuse_device_ordinal(&runtimeDevice), "fuse_device_ordinal");
  cudaGetDevice(&current);
  check(runtimeDevice == current, "the runtime runs on the current device",
        std::to_string(runtimeDevice) + " vs " + std::to_string(current));
  void *p = nullptr;
  if (ok(fuse_malloc(&p, 256, nullptr), "malloc for fuse_pointer_device")) {
    ok(fuse_pointer_device(p, &of), "fuse_pointer_device of device memory");
    check(of == runtimeDevice, "device memory is on the runtime's device",
          std::to_string(of));
    fuse_free(p, nullptr);
  }
  int host = 0;
  expectStatus(fuse_pointer_device(&host, &of), FUSE_ERROR_INVALID_ARGUMENT,
               "fuse_pointer_device of host memory", {"fuse_pointer_device: "});
  expectStatus(fuse_device_ordinal(nullptr), FUSE_ERROR_INVALID_ARGUMENT,
               "fuse_device_ordinal(NULL)", {"ordinal is NULL"});
}

static void testModules() {
  std::printf("-- modules\n");
  int sm = deviceSM();
  std::vector<char> cubin = readFile(imagePath(sm, "cubin"));
  check(!cubin.empty(), "test cubin for sm_" + std::to_string(sm) + " exists",
        imagePath(sm, "cubin"));
  if (cubin.empty())
    return;
  fuse_module_t m1 = nullptr, m2 = nullptr;
  if (!ok(fuse_module_load(cubin.data(), cubin.size(), &m1), "load cubin"))
    return;
  std::vector<char> copy = cubin; // different address, same bytes
  ok(fuse_module_load(copy.data(), copy.size(), &m2), "load cubin again");
  check(m1 == m2, "same bytes give the cached module");
  fuse_function_t fn = nullptr, fn2 = nullptr;
  if (!ok(fuse_module_get_function(m1, "fuse_test_axpy", &fn), "get function"))
    return;
  ok(fuse_module_get_function(m1, "fuse_test_axpy", &fn2), "get function");
  check(fn == fn2, "function handles are cached");
  check(runAxpy(fn, nullptr, 100003, "launch axpy from cubin"),
        "launch of a cubin kernel computes y = a*x + i");

  // Zero grid: no launch, success, output untouched.
  {
    DeviceArray<float> y;
    if (y.alloc(4)) {
      fuse_memset(y.p, 0, 16, nullptr);
      float a = 1;
      long long n4 = 4;
      float *nul = nullptr;
      void *args[] = {&nul, &y.p, &a, &n4};
      expectStatus(fuse_launch(fn, 0, 1, 1, 256, 1, 1, 0, nullptr, args),
                   FUSE_SUCCESS, "zero-grid launch succeeds");
      float h[4] = {1, 1, 1, 1};
      fuse_memcpy_dtoh(h, y.p, 16, nullptr);
      check(h[0] == 0 && h[3] == 0, "zero-grid launch does not run");
    }
  }
  expectStatus(fuse_launch(fn, 1, 1, 1, 0, 1, 1, 0, nullptr, nullptr),
               FUSE_ERROR_INVALID_ARGUMENT, "zero block dimension",
               {"fuse_test_axpy", "zero block"});
  // Dynamic shared memory above 48 KiB is allowed on demand (staged tiles);
  // more than the device has is an error that names the kernel.
  {
    DeviceArray<float> dx, dy;
    if (dx.alloc(1024) && dy.alloc(1024)) {
      float a = 1;
      long long n = 1024;
      void *args[] = {&dx.p, &dy.p, &a, &n};
      expectStatus(fuse_launch(fn, 4, 1, 1, 256, 1, 1, 100 * 1024, nullptr,
                               args),
                   FUSE_SUCCESS, "launch with 100 KiB of dynamic shared memory");
      expectStatus(fuse_stream_synchronize(nullptr), FUSE_SUCCESS,
                   "the 100 KiB launch runs");
      if (!std::getenv("FUSE_TEST_UNDER_SANITIZER"))
        expectStatus(fuse_launch(fn, 4, 1, 1, 256, 1, 1, 1024 * 1024, nullptr,
                                 args),
                     FUSE_ERROR_INVALID_ARGUMENT,
                     "1 MiB of dynamic shared memory",
                     {"fuse_test_axpy", "MAX_DYNAMIC_SHARED_SIZE_BYTES"});
    }
  }
  // Static shared memory counts toward the 48 KiB a kernel gets without
  // asking: 8 KiB static + 44 KiB dynamic must be allowed on demand too.
  {
    fuse_function_t mix;
    DeviceArray<float> dy;
    if (ok(fuse_module_get_function(m1, "fuse_test_shared_mix", &mix),
           "get fuse_test_shared_mix") &&
        dy.alloc(256)) {
      int dynFloats = 44 * 1024 / 4;
      void *args[] = {&dy.p, &dynFloats};
      expectStatus(fuse_launch(mix, 1, 1, 1, 256, 1, 1, 44 * 1024, nullptr,
                               args),
                   FUSE_SUCCESS, "8 KiB static + 44 KiB dynamic shared memory");
      std::vector<float> h(256, -1);
      if (ok(fuse_memcpy_dtoh(h.data(), dy.p, 256 * 4, nullptr), "copy back")) {
        bool good = true;
        for (int t = 0; t < 256; ++t)
          good = good && h[t] == float(t + dynFloats);
        check(good, "static + dynamic shared memory values");
      }
    }
  }
  fuse_function_t missing;
  // (compute-sanitizer reports the driver's deliberate error: skipped there)
  if (!std::getenv("FUSE_TEST_UNDER_SANITIZER"))
    expectStatus(fuse_module_get_function(m1, "no_such_kernel", &missing),
                 FUSE_ERROR_INVALID_ARGUMENT, "missing kernel name",
                 {"no_such_kernel", "CUDA_ERROR_NOT_FOUND"});

  // PTX for the device (JIT-compiled by the driver) and a fatbin.
  for (const char *kind : {"ptx", "fatbin"}) {
    std::vector<char> img = readFile(imagePath(sm, kind));
    fuse_module_t mp = nullptr;
    fuse_function_t fp = nullptr;
    if (ok(fuse_module_load(img.data(), img.size(), &mp),
           std::string("load ") + kind) &&
        ok(fuse_module_get_function(mp, "fuse_test_axpy", &fp), "get function"))
      check(runAxpy(fp, nullptr, 4097, std::string("launch axpy from ") + kind),
            std::string("launch of a kernel from a ") + kind);
    if (std::string(kind) == "fatbin" && img.size() > 200) {
      fuse_module_t mt;
      expectStatus(fuse_module_load(img.data(), img.size() / 2, &mt),
                   FUSE_ERROR_INVALID_ARGUMENT, "truncated fatbin",
                   {"truncated fatbin"});
    }
  }

  // Wrong architecture: both the image's and the device's CC in the message.
  std::string devCC = std::to_string(sm / 10) + "." + std::to_string(sm % 10);
  for (const char *kind : {"cubin", "ptx", "fatbin"}) {
    int wrong = std::atoi(std::getenv("FUSE_TEST_WRONG_ARCH")
                              ? std::getenv("FUSE_TEST_WRONG_ARCH")
                              : "100");
    std::vector<char> img = readFile(imagePath(wrong, kind));
    check(!img.empty(), std::string("wrong-arch ") + kind + " exists");
    if (img.empty())
      continue;
    std::string wcc =
        std::to_string(wrong / 10) + "." + std::to_string(wrong % 10);
    fuse_module_t mw = reinterpret_cast<fuse_module_t>(0x1);
    expectStatus(fuse_module_load(img.data(), img.size(), &mw),
                 FUSE_ERROR_UNSUPPORTED_DEVICE,
                 std::string("wrong-arch ") + kind + " (sm_" +
                     std::to_string(wrong) + ") is refused naming both CCs",
                 {wcc.c_str(), devCC.c_str()});
    check(mw == nullptr, std::string("wrong-arch ") + kind + " leaves NULL");
  }
  // Garbage and truncated images.
  const char junk[] = "this is not a code image";
  fuse_module_t mj;
  expectStatus(fuse_module_load(junk, sizeof junk, &mj),
               FUSE_ERROR_INVALID_ARGUMENT, "garbage image", {"neither"});
  expectStatus(fuse_module_load(cubin.data(), 100, &mj),
               FUSE_ERROR_INVALID_ARGUMENT, "truncated cubin (100 bytes)",
               {"truncated cubin"});
  expectStatus(fuse_module_load(cubin.data(), cubin.size() - 1, &mj),
               FUSE_ERROR_INVALID_ARGUMENT, "truncated cubin (size - 1)",
               {"truncated cubin"});
  expectStatus(fuse_module_load(nullptr, 10, &mj), FUSE_ERROR_INVALID_ARGUMENT,
               "NULL image", {"empty image"});
}

// ---- allocator
// ---------------------------------------------------------------------------

void stats(size_t *c, size_t *l, uint64_t *h, uint64_t *m) {
  ok(fuse_allocator_stats(c, l, h, m), "fuse_allocator_stats");
}

// fuse_count_clamp: how an entry's workspace form returns a prefix's count.
static void testCountClamp() {
  std::printf("-- count clamp\n");
  DeviceArray<int64_t> src, dst;
  if (!src.alloc(3) || !dst.alloc(3))
    return;
  const int64_t in[3] = {-5, 7, 1000};
  if (!ok(fuse_memcpy_htod(src.p, in, sizeof in, nullptr), "htod"))
    return;
  for (int i = 0; i < 3; ++i)
    ok(fuse_count_clamp(dst.p + i, src.p + i, 10, nullptr), "count clamp");
  int64_t out[3] = {-1, -1, -1};
  ok(fuse_memcpy_dtoh(out, dst.p, sizeof out, nullptr), "dtoh");
  check(out[0] == 0 && out[1] == 7 && out[2] == 10,
        "fuse_count_clamp clamps to [0, capacity]",
        std::to_string(out[0]) + " " + std::to_string(out[1]) + " " +
            std::to_string(out[2]));
  expectStatus(fuse_count_clamp(dst.p, src.p, -1, nullptr),
               FUSE_ERROR_INVALID_ARGUMENT, "count clamp: negative capacity",
               {"fuse_count_clamp", "negative"});
  expectStatus(fuse_count_clamp(nullptr, src.p, 1, nullptr),
               FUSE_ERROR_INVALID_ARGUMENT, "count clamp: NULL dst",
               {"fuse_count_clamp", "dst"});
}

static void testAllocator() {
  std::printf("-- allocator\n");
  if (const char *mode = std::getenv("FUSE_ALLOCATOR"))
    if (std::strcmp(mode, "direct") == 0) {
      std::printf("(FUSE_ALLOCATOR=direct: reuse checks skipped)\n");
      return;
    }
  fuse_stream_t s;
  if (!ok(fuse_stream_create(&s), "stream"))
    return;
  size_t c0, l0, c1, l1;
  uint64_t h0, m0, h1, m1;
  void *p1 = nullptr, *p2 = nullptr, *p3 = nullptr;
  ok(fuse_malloc(&p1, 1 << 20, s), "malloc 1 MiB");
  ok(fuse_free(p1, s), "free");
  stats(&c0, &l0, &h0, &m0);
  ok(fuse_malloc(&p2, (1 << 20) - 100, s), "malloc 1 MiB - 100");
  stats(&c1, &l1, &h1, &m1);
  check(p2 == p1 && h1 == h0 + 1 && m1 == m0,
        "a freed block is reused on its stream (same size class)");
  ok(fuse_malloc(&p3, 1 << 20, nullptr), "malloc on the default stream");
  check(p3 != p2, "a block in use is not handed out twice");
  fuse_free(p3, nullptr);
  fuse_free(p2, s);
  // Temporaries of repeated reductions come from the cache.
  DeviceArray<float> x, o;
  if (x.alloc(1 << 20, s) && o.alloc(1, s)) {
    fuse_memset(x.p, 0, 4 << 20, s);
    fuse_reduce(FUSE_REDUCE_ADD, FUSE_F32, x.p, o.p, 1 << 20, s);
    stats(&c0, &l0, &h0, &m0);
    bool good = true;
    for (int i = 0; i < 100; ++i)
      good &= fuse_reduce(FUSE_REDUCE_ADD, FUSE_F32, x.p, o.p, 1 << 20, s) ==
              FUSE_SUCCESS;
    stats(&c1, &l1, &h1, &m1);
    check(good && m1 == m0 && h1 >= h0 + 100,
          "100 reductions reuse cached temporary storage",
          "misses " + std::to_string(m1 - m0));
  }
  fuse_stream_synchronize(s);
  x.~DeviceArray();
  new (&x) DeviceArray<float>();
  o.~DeviceArray();
  new (&o) DeviceArray<float>();
  ok(fuse_allocator_trim(), "trim");
  stats(&c1, &l1, &h1, &m1);
  check(c1 == 0, "trim returns every cached block");
  ok(fuse_stream_destroy(s), "stream destroy");
  void *z = reinterpret_cast<void *>(0x1);
  expectStatus(fuse_malloc(&z, 0, nullptr), FUSE_SUCCESS, "zero-byte malloc");
  check(z == nullptr, "zero-byte malloc gives NULL");
}

static void testOutOfMemory() {
  std::printf("-- out of memory\n");
  size_t freeMem = 0, total = 0;
  cudaMemGetInfo(&freeMem, &total);
  void *p = reinterpret_cast<void *>(0x1);
  // More than the device has: fails even after the cache is trimmed.
  expectStatus(fuse_malloc(&p, total + (size_t(8) << 30), nullptr),
               FUSE_ERROR_OUT_OF_MEMORY,
               "allocating more than the device's memory is a recoverable "
               "error",
               {"out of device memory", "cudaErrorMemoryAllocation"});
  check(p == nullptr, "failed malloc leaves NULL");
  // Still usable.
  DeviceArray<int32_t> x, o;
  if (x.alloc(1000) && o.alloc(1)) {
    std::vector<int32_t> h(1000, 3);
    int32_t got = 0;
    ok(fuse_memcpy_htod(x.p, h.data(), 4000, nullptr), "up");
    ok(fuse_reduce(FUSE_REDUCE_ADD, FUSE_I32, x.p, o.p, 1000, nullptr),
       "reduce");
    ok(fuse_memcpy_dtoh(&got, o.p, 4, nullptr), "dl");
    check(got == 3000, "the context works after out of memory");
  }
  if (std::getenv("FUSE_ALLOCATOR") &&
      std::strcmp(std::getenv("FUSE_ALLOCATOR"), "direct") == 0)
    return;
  // Trim and retry: fill the cache with ~60% of free memory, then ask for
  // ~70% in one block.
  cudaMemGetInfo(&freeMem, &total);
  size_t chunk = size_t(1) << 30;
  std::vector<void *> blocks;
  for (size_t used = 0; used + chunk < freeMem * 6 / 10; used += chunk) {
    void *b = nullptr;
    if (fuse_malloc(&b, chunk, nullptr) != FUSE_SUCCESS)
      break;
    blocks.push_back(b);
  }
  for (void *b : blocks)
    fuse_free(b, nullptr);
  size_t c, l;
  uint64_t h, m;
  stats(&c, &l, &h, &m);
  void *big = nullptr;
  fuse_status_t s = fuse_malloc(&big, freeMem * 7 / 10, nullptr);
  size_t c2;
  stats(&c2, &l, &h, &m);
  check(s == FUSE_SUCCESS && big && c > 0 && c2 == 0,
        "out of memory trims the cache and retries once",
        std::string(fuse_status_name(s)) + " " + msg() + " cached before " +
            std::to_string(c));
  if (big)
    fuse_free(big, nullptr);
  fuse_allocator_trim();
}

// ---- 8 host threads
// ----------------------------------------------------------------------

static void testThreads() {
  std::printf("-- 8 host threads\n");
  int sm = deviceSM();
  std::vector<char> cubin = readFile(imagePath(sm, "cubin"));
  std::atomic<int> bad{0};
  std::vector<fuse_module_t> mods(8);
  std::vector<std::thread> ts;
  for (int t = 0; t < 8; ++t)
    ts.emplace_back([&, t] {
      fuse_stream_t s = nullptr;
      if (t % 2 && fuse_stream_create(&s) != FUSE_SUCCESS) {
        ++bad;
        return;
      }
      if (fuse_module_load(cubin.data(), cubin.size(), &mods[t]) !=
          FUSE_SUCCESS)
        ++bad;
      fuse_function_t fn = nullptr;
      if (fuse_module_get_function(mods[t], "fuse_test_axpy", &fn) !=
          FUSE_SUCCESS)
        ++bad;
      for (int it = 0; it < 40; ++it) {
        int64_t n = 1000 + 977 * t + 13 * it;
        std::vector<int64_t> h(n);
        int64_t want = 0;
        for (int64_t i = 0; i < n; ++i)
          want += (h[i] = i * (t + 1) - it);
        void *x = nullptr, *o = nullptr;
        int64_t got = -1;
        if (fuse_malloc(&x, n * 8, s) || fuse_malloc(&o, 8, s) ||
            fuse_memcpy_htod(x, h.data(), n * 8, s) ||
            fuse_reduce(FUSE_REDUCE_ADD, FUSE_I64, x, o, n, s) ||
            fuse_memcpy_dtoh(&got, o, 8, s) || got != want)
          ++bad;
        fuse_free(x, s);
        fuse_free(o, s);
        if (it % 10 == 0 && fn) {
          // runAxpy records its own failures.
          if (!runAxpy(fn, s, 5000 + t, "thread axpy"))
            ++bad;
        }
      }
      if (s)
        fuse_stream_destroy(s);
    });
  for (auto &t : ts)
    t.join();
  bool sameModule = true;
  for (auto m : mods)
    sameModule &= m == mods[0];
  check(bad == 0, "8 threads: reduce, malloc/free, load, launch",
        std::to_string(bad.load()) + " failures");
  check(sameModule, "8 threads loading the same image share one module");
}

// ---- more than 2^31 elements
// ---------------------------------------------------------------

__global__ void fillSquares(float *x, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    float v = float(i % 1000 + 1) / 1024.0f;
    x[i] = v * v;
  }
}

static void testHuge() {
  const long long n = (1ll << 31) + 17;
  std::printf("-- reduce over 2^31 + 17 = %lld f32 elements\n", n);
  DeviceArray<float> x, o;
  if (!x.alloc(n) || !o.alloc(1))
    return;
  fillSquares<<<132 * 8, 256, 0, cudaStreamPerThread>>>(x.p, n);
  if (cudaStreamSynchronize(cudaStreamPerThread) != cudaSuccess) {
    check(false, "fill kernel");
    return;
  }
  // Closed form: sum over i of ((i % 1000) + 1)^2 / 2^20.
  long long q = n / 1000, r = n % 1000;
  auto sq = [](long long k) { return double(k) * (k + 1) * (2 * k + 1) / 6; };
  double want = (q * sq(1000) + sq(r)) / 1048576.0;
  float got = 0;
  if (ok(fuse_reduce(FUSE_REDUCE_ADD, FUSE_F32, x.p, o.p, n, nullptr),
         "reduce") &&
      ok(fuse_memcpy_dtoh(&got, o.p, 4, nullptr), "dl")) {
    double rel = std::fabs(got - want) / want;
    char d[128];
    snprintf(d, sizeof d, "got %.9g want %.9g rel %.3g", got, want, rel);
    check(rel < 1e-4, "sumsq over 2^31+17 elements matches the closed form", d);
  }
  // Extremes planted beyond 2^31: only 64-bit indexing finds them.
  float lo = -1.0f, hi = 1e6f;
  fuse_memcpy_htod(x.p + (1ll << 31) + 5, &lo, 4, nullptr);
  fuse_memcpy_htod(x.p + n - 1, &hi, 4, nullptr);
  float gmin = 0, gmax = 0;
  if (ok(fuse_reduce(FUSE_REDUCE_MIN, FUSE_F32, x.p, o.p, n, nullptr), "min") &&
      ok(fuse_memcpy_dtoh(&gmin, o.p, 4, nullptr), "dl") &&
      ok(fuse_reduce(FUSE_REDUCE_MAX, FUSE_F32, x.p, o.p, n, nullptr), "max") &&
      ok(fuse_memcpy_dtoh(&gmax, o.p, 4, nullptr), "dl"))
    check(gmin == -1.0f && gmax == 1e6f,
          "min/max find values planted past index 2^31",
          std::to_string(gmin) + " " + std::to_string(gmax));
  // Bitwise determinism at this size.
  float first = 0;
  bool same = true;
  for (int i = 0; i < 10; ++i) {
    float g = 0;
    if (!ok(fuse_reduce(FUSE_REDUCE_ADD, FUSE_F32, x.p, o.p, n, nullptr),
            "r") ||
        !ok(fuse_memcpy_dtoh(&g, o.p, 4, nullptr), "dl"))
      return;
    if (i == 0)
      first = g;
    same &= std::memcmp(&g, &first, 4) == 0;
  }
  check(same, "reduce over 2^31+17 bitwise identical over 10 runs");
}

// ---- a faulting kernel
// ---------------------------------------------------------------------

static void testFault() {
  bool blocking = std::getenv("FUSE_LAUNCH_BLOCKING") &&
                  std::strcmp(std::getenv("FUSE_LAUNCH_BLOCKING"), "1") == 0;
  std::printf("-- fault (FUSE_LAUNCH_BLOCKING=%d)\n", blocking);
  int sm = deviceSM();
  std::vector<char> cubin = readFile(imagePath(sm, "cubin"));
  fuse_module_t m;
  fuse_function_t fn;
  DeviceArray<float> x;
  if (!ok(fuse_module_load(cubin.data(), cubin.size(), &m), "load") ||
      !ok(fuse_module_get_function(m, "fuse_test_oob_write", &fn), "get") ||
      !x.alloc(32))
    return;
  void *args[] = {&x.p};
  fuse_status_t s = fuse_launch(fn, 1, 1, 1, 32, 1, 1, 0, nullptr, args);
  if (blocking) {
    expectStatus(s, FUSE_ERROR_LAUNCH,
                 "with FUSE_LAUNCH_BLOCKING=1 the launch reports the fault "
                 "and names the kernel",
                 {"fuse_test_oob_write", "IllegalAddress"});
  } else {
    expectStatus(s, FUSE_SUCCESS, "the faulting launch is queued");
    expectStatus(fuse_stream_synchronize(nullptr), FUSE_ERROR_LAUNCH,
                 "the fault surfaces at synchronisation",
                 {"cudaErrorIllegalAddress"});
  }
  void *p = nullptr;
  expectStatus(fuse_malloc(&p, 64, nullptr), FUSE_ERROR_POISONED,
               "later fuse_malloc fails fast: poisoned, with the first error",
               {"poisoned", "IllegalAddress", "restart"});
  expectStatus(fuse_reduce(FUSE_REDUCE_ADD, FUSE_F32, x.p, x.p, 1, nullptr),
               FUSE_ERROR_POISONED, "later fuse_reduce fails fast",
               {"IllegalAddress"});
  expectStatus(fuse_init(), FUSE_ERROR_POISONED, "fuse_init after the fault",
               {"poisoned"});
  expectStatus(fuse_module_load(cubin.data(), cubin.size(), &m),
               FUSE_ERROR_POISONED, "module load after the fault", {});
  x.p = nullptr; // the context is gone; do not free
}

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s small|full|huge|fault IMAGE_DIR\n",
                 argv[0]);
    return 2;
  }
  std::string mode = argv[1];
  imageDir = argv[2];
  fuse_status_t s = fuse_init();
  if (mode == "badenv") { // run with FUSE_ALLOCATOR set to a bad value
    expectStatus(s, FUSE_ERROR_INVALID_ARGUMENT,
                 "fuse_init rejects an unknown FUSE_ALLOCATOR value",
                 {"FUSE_ALLOCATOR", "direct"});
    std::printf("%d passed, %d failed\n", passed.load(), failed.load());
    return failed == 0 ? 0 : 1;
  }
  if (s != FUSE_SUCCESS) {
    std::printf("FAIL fuse_init: %s: %s\n0 passed, 1 failed\n",
                fuse_status_name(s), fuse_last_error_message());
    return 1;
  }
  int ma, mi, sms;
  fuse_device_info(&ma, &mi, &sms);
  std::printf("device: compute capability %d.%d, %d SMs; mode %s\n", ma, mi,
              sms, mode.c_str());
  if (mode == "small" || mode == "full") {
    for (int64_t n : {0, 1, 31})
      testAllOpsAtSize(n);
    testModules();
    testDevices();
    testNaN<__half>();
    testNaN<__nv_bfloat16>();
    testNaN<float>();
    testNaN<double>();
    testSortWsErrors();
    testArgsortWsErrors();
    testAllocator();
    testCountClamp();
    testGraphs();
  }
  if (mode == "full") {
    testAllOpsAtSize(1000003);
    testDeterminism<__half>(1000003, true);
    testDeterminism<__nv_bfloat16>(1000003, true);
    testDeterminism<float>(1000003, true);
    testDeterminism<double>(1000003, true);
    testThreads();
    testLargeF32();
    testOutOfMemory();
  } else if (mode == "huge") {
    testHuge();
  } else if (mode == "fault") {
    testFault();
  } else if (mode != "small") {
    std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
    return 2;
  }
  std::printf("%d passed, %d failed\n", passed.load(), failed.load());
  return failed == 0 ? 0 : 1;
}
