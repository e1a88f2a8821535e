// Host-side checks of bench/harness.h (bench-harness.test): the parallel
// float64 row references against a plain loop, and the parallel element
// check's worst error and first failing index.
#include "harness.h"

using namespace bench;

static int failures = 0;
static void expect(bool ok, const char *what, long long a, double b) {
  if (!ok) {
    printf("FAIL %s (%lld, %g)\n", what, a, b);
    ++failures;
  }
}

int main() {
  // Row references: log-sum-exp and softmax of every row, with and without
  // the softmax, over more rows than the host has cores.
  for (int64_t rows : {1, 3, 1001}) {
    int64_t cols = 37;
    std::vector<float> x(rows * cols);
    for (int64_t i = 0; i < rows * cols; ++i)
      x[i] = randomValue(i, 3);
    std::vector<double> sm, lse, lse2;
    rowReferences(x.data(), rows, cols, &sm, lse);
    rowReferences(x.data(), rows, cols, nullptr, lse2);
    expect((int64_t)sm.size() == rows * cols && (int64_t)lse.size() == rows,
           "reference sizes", rows, 0);
    double worst = 0;
    for (int64_t i = 0; i < rows; ++i) {
      const float *row = x.data() + i * cols;
      double mx = -INFINITY, s = 0;
      for (int64_t j = 0; j < cols; ++j)
        mx = std::max(mx, (double)row[j]);
      for (int64_t j = 0; j < cols; ++j)
        s += std::exp(row[j] - mx);
      worst = std::max(worst, std::fabs(lse[i] - (std::log(s) + mx)));
      worst = std::max(worst, std::fabs(lse2[i] - lse[i]));
      for (int64_t j = 0; j < cols; ++j)
        worst = std::max(worst,
                         std::fabs(sm[i * cols + j] - std::exp(row[j] - mx) / s));
    }
    expect(worst == 0, "row references", rows, worst);
  }
  // Element checks: clean arrays pass; the smallest failing index is
  // reported, NaN fails, the worst finite error is kept.
  for (int64_t n : {0, 1, 7, 1000, 1000003}) {
    std::vector<double> ref(n);
    std::vector<float> got(n);
    for (int64_t i = 0; i < n; ++i) {
      ref[i] = randomValue(i, 5);
      got[i] = (float)ref[i];
    }
    int64_t bad;
    double w = checkElements(got.data(), ref, 1e-6, bad);
    expect(bad == -1 && w < 1e-7, "clean", n, w);
    if (n < 7)
      continue;
    got[n - 1] = NAN;
    got[n / 2] += 1.0f;
    got[1] += 0.25f;
    w = checkElements(got.data(), ref, 1e-6, bad);
    expect(bad == 1 && w > 0.99, "first of three", bad, w);
    got[1] = (float)ref[1];
    checkElements(got.data(), ref, 1e-6, bad);
    expect(bad == n / 2, "first of two", bad, 0);
    got[n / 2] = (float)ref[n / 2];
    w = checkElements(got.data(), ref, 1e-6, bad);
    expect(bad == n - 1 && w < 1e-7, "NaN", bad, w);
  }
  printf("%d failures\n", failures);
  return failures != 0;
}
