// fuse's implementations of the benchmark workloads, with the same harness,
// inputs and checks as the peers (bench/peers.cu, bench/harness.h).
//
// Each pipeline of examples/ is compiled ahead of time on a machine with
// fuse (scripts/gpu/run-bench.sh's preparation step):
//   fuse-compile examples/NAME.mlir --prefix=fb_ --emit=all -o DIR/NAME
// (a prefix of its own: `fuse_` would collide with the runtime's fuse_scan)
// and this file includes the headers that exist (FUSE_HAVE_<NAME> is set by
// the build for each object it links). A workload fuse could not compile is
// left out here and reported as a failure by run-bench.sh (prepare-bench.sh
// lists it in failed.txt).
#include "harness.h"

#include "fuse_runtime.h"

#ifdef FUSE_HAVE_COPY
#include "copy.h"
#endif
#ifdef FUSE_HAVE_SUMSQ
#include "sumsq.h"
#endif
#ifdef FUSE_HAVE_SUMSQ_SMALL
#include "sumsq_small.h"
#endif
#ifdef FUSE_HAVE_DOT
#include "dot.h"
#endif
#ifdef FUSE_HAVE_CHAIN
#include "chain.h"
#endif
#ifdef FUSE_HAVE_SCAN
#include "scan.h"
#endif
#ifdef FUSE_HAVE_SELECT
#include "select.h"
#endif
#ifdef FUSE_HAVE_SOFTMAX_ROWS
#include "softmax_rows.h"
#endif
#ifdef FUSE_HAVE_LOGSUMEXP_ROWS
#include "logsumexp_rows.h"
#endif
#ifdef FUSE_HAVE_VARIANCE
#include "variance.h"
#endif

using namespace bench;

namespace {

void ok(fuse_status_t s, const char *what) {
  if (s != FUSE_SUCCESS) {
    fprintf(stderr, "bench: %s failed: %s\n", what, fuse_last_error_message());
    std::exit(2);
  }
}

[[maybe_unused]] double sumOfSquares(const std::vector<float> &x) {
  double r = 0;
  for (float v : x)
    r += (double)v * v;
  return r;
}

} // namespace

int main(int argc, char **argv) {
  Options opt = Options::parse(argc, argv);
  Runner r(opt);
  ok(fuse_init(), "fuse_init");
  const int64_t n = opt.n;
  // The same seeds as peers.cu: identical inputs.
  DeviceArray x(n, /*seed=*/1), y(n, /*seed=*/2);
  (void)y;
  const fuse_stream_t stream = nullptr; // the default stream, as the peers

#ifdef FUSE_HAVE_COPY
  if (r.wants("copy")) {
    DeviceArray out(n);
    r.time("copy", "fuse", 8.0 * n, [&] {
      ok(fb_copy(x.p, n, out.p, stream), "fb_copy");
    }, {{out.p, 4 * n}});
    r.verifyElementwise(out, x.host, 0.0);
  }
#endif
#ifdef FUSE_HAVE_SUMSQ
  if (r.wants("sumsq")) {
    DeviceScalar out;
    r.time("sumsq", "fuse", 4.0 * n, [&] {
      ok(fb_sumsq(x.p, n, out.p, stream), "fb_sumsq");
    }, {{out.p, 4}});
    double ref = sumOfSquares(x.host);
    r.verifyScalar(out.get(), ref, ref, 1e-4);
  }
#endif
#ifdef FUSE_HAVE_DOT
  if (r.wants("dot")) {
    DeviceScalar out;
    r.time("dot", "fuse", 8.0 * n, [&] {
      ok(fb_dot(x.p, n, y.p, n, out.p, stream), "fb_dot");
    }, {{out.p, 4}});
    double ref = 0, scale = 0;
    for (int64_t i = 0; i < n; ++i) {
      double v = (double)x.host[i] * y.host[i];
      ref += v;
      scale += std::fabs(v);
    }
    r.verifyScalar(out.get(), ref, scale, 1e-4);
  }
#endif
#ifdef FUSE_HAVE_CHAIN
  if (r.wants("chain")) {
    DeviceArray out(n);
    r.time("chain", "fuse", 8.0 * n, [&] {
      ok(fb_chain(x.p, n, out.p, stream), "fb_chain");
    }, {{out.p, 4 * n}});
    std::vector<double> ref(n);
    for (int64_t i = 0; i < n; ++i) {
      double v = x.host[i];
      ref[i] = std::max(1.5 * v + 0.25, 0.0) * 0.5 + v;
    }
    r.verifyElementwise(out, ref, 1e-6);
  }
#endif
#ifdef FUSE_HAVE_SCAN
  if (r.wants("scan")) {
    DeviceArray out(n);
    r.time("scan", "fuse", 8.0 * n, [&] {
      ok(fb_scan(x.p, n, out.p, stream), "fb_scan");
    }, {{out.p, 4 * n}});
    std::vector<double> ref(n);
    double acc = 0;
    for (int64_t i = 0; i < n; ++i)
      ref[i] = acc += (double)x.host[i] * x.host[i];
    r.verifyElementwise(out, ref, 1e-4);
  }
#endif
#ifdef FUSE_HAVE_SELECT
  if (r.wants("select")) {
    DeviceArray out(n);
    int64_t count = -1;
    std::vector<double> ref;
    for (int64_t i = 0; i < n; ++i)
      if (x.host[i] > 0)
        ref.push_back(x.host[i]);
    r.time("select", "fuse", 4.0 * n + 4.0 * ref.size(), [&] {
      ok(fb_select(x.p, n, out.p, &count, stream), "fb_select");
    }, {{out.p, 4 * n}});
    r.verifySelect(out, count, ref);
  }
#endif
#ifdef FUSE_HAVE_VARIANCE
  if (r.wants("variance")) {
    DeviceScalar out;
    r.time("variance", "fuse", 4.0 * n, [&] {
      ok(fb_variance(x.p, n, out.p, stream), "fb_variance");
    }, {{out.p, 4}});
    double mean = 0;
    for (float v : x.host)
      mean += v;
    mean /= n;
    double ref = 0;
    for (float v : x.host)
      ref += (v - mean) * (v - mean);
    ref /= n;
    r.verifyScalar(out.get(), ref, ref, 1e-4);
  }
#endif
#if defined(FUSE_HAVE_SOFTMAX_ROWS) || defined(FUSE_HAVE_LOGSUMEXP_ROWS)
  if (r.wants("softmax_rows") || r.wants("logsumexp_rows")) {
    const int64_t rows = opt.rows, cols = opt.cols;
    DeviceArray m(rows * cols, /*seed=*/3);
    // float64 references, the softmax one only when softmax_rows runs.
    std::vector<double> sm, lse;
    rowReferences(m.host.data(), rows, cols,
                  r.wants("softmax_rows") ? &sm : nullptr, lse);
#ifdef FUSE_HAVE_SOFTMAX_ROWS
    if (r.wants("softmax_rows")) {
      DeviceArray out(rows * cols);
      r.time("softmax_rows", "fuse", 8.0 * m.n, [&] {
        ok(fb_softmax_rows(m.p, rows, cols, out.p, stream),
           "fb_softmax_rows");
      }, {{out.p, 4 * m.n}});
      r.verifyElementwise(out, sm, 1e-5);
    }
#endif
#ifdef FUSE_HAVE_LOGSUMEXP_ROWS
    if (r.wants("logsumexp_rows")) {
      DeviceArray out(rows);
      r.time("logsumexp_rows", "fuse", 4.0 * m.n + 4.0 * rows, [&] {
        ok(fb_logsumexp_rows(m.p, rows, cols, out.p, stream),
           "fb_logsumexp_rows");
      }, {{out.p, 4 * rows}});
      r.verifyElementwise(out, lse, 1e-5);
    }
#endif
  }
#endif
#ifdef FUSE_HAVE_SUMSQ_SMALL
  if (r.wants("sumsq_small")) {
    DeviceArray s(4096, /*seed=*/4);
    DeviceScalar out;
    r.timeBackToBack("sumsq_small", "fuse", 1000, [&] {
      ok(fb_sumsq_small(s.p, s.n, out.p, stream), "fb_sumsq_small");
    });
    check(cudaMemset(out.p, 0xFF, 4));
    ok(fb_sumsq_small(s.p, s.n, out.p, stream), "fb_sumsq_small");
    double ref = sumOfSquares(s.host);
    r.verifyScalar(out.get(), ref, ref, 1e-5);
  }
#endif
  return r.finish();
}
