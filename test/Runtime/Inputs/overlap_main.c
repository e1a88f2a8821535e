/* Driver of overlap.test: calls the entries of overlap.mlir with buffers
 * that overlap in every way the C ABI allows, and with NULL buffers.
 *
 * Without a GPU, plain host arrays stand in for device pointers: the first
 * step's checks run before the generated code touches the device, so its
 * rejections are seen, and a call that passes them goes on to fuse_init,
 * which returns FUSE_ERROR_NO_DEVICE (later steps check their outputs just
 * before they run, after fuse_init: those cases are GPU-only).
 * With a GPU (scripts/gpu/run-codegen-tests.sh), every rejection is
 * checked and every accepted in-place call is run and its values checked. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "overlap.h"

static int failures = 0, passes = 0, gpu = 0;

static void expect(const char *what, fuse_status_t got, fuse_status_t want,
                   const char *needle) {
  const char *msg = fuse_last_error_message();
  int ok = got == want && (!needle || strstr(msg, needle));
  printf("%s %s: %s \"%s\"\n", ok ? "PASS" : "FAIL", what,
         fuse_status_name(got), msg);
  ok ? ++passes : ++failures;
}

/* What an accepted call returns: success on a GPU, else no device. */
static fuse_status_t ran(void) {
  return gpu ? FUSE_SUCCESS : FUSE_ERROR_NO_DEVICE;
}

enum { N = 256, CAP = 1024 };
static float host[CAP], ref[CAP];
static float hostA[CAP], hostB[CAP];
static float *a = hostA, *b = hostB;

static void fill(float *dev) {
  for (int i = 0; i < CAP; ++i)
    host[i] = (float)(i % 7) - 3.0f;
  if (gpu)
    fuse_memcpy_htod(dev, host, sizeof host, NULL);
}

/* Compares dev[0..n) with ref (GPU only). */
static void values(const char *what, const float *dev, int n) {
  if (!gpu)
    return;
  static float got[CAP];
  fuse_stream_synchronize(NULL);
  fuse_memcpy_dtoh(got, dev, n * sizeof(float), NULL);
  fuse_stream_synchronize(NULL);
  int bad = 0;
  for (int i = 0; i < n; ++i)
    bad += fabsf(got[i] - ref[i]) > 1e-5f * (1.0f + fabsf(ref[i]));
  printf("%s %s: values\n", bad ? "FAIL" : "PASS", what);
  bad ? ++failures : ++passes;
}

/* The workspace form csum_ws: its own argument checks, the size query, a
 * workspace too small or misaligned rejected before anything runs (the
 * output keeps its values), and a run into a workspace. */
static void workspaceChecks(int64_t n) {
  int64_t bytes = 0;
  expect("csum_ws: workspace_bytes NULL", csum_ws(a, n, b, NULL, NULL, NULL),
         FUSE_ERROR_INVALID_ARGUMENT, "csum_ws: workspace_bytes is NULL");
  expect("csum_ws: out0 = in0 + 1 element (query)",
         csum_ws(a, n, a + 1, NULL, &bytes, NULL), FUSE_ERROR_INVALID_ARGUMENT,
         "csum_ws: out0 and in0 overlap without being the same buffer");
  expect("csum_ws: query", csum_ws(a, n, b, NULL, &bytes, NULL), ran(), NULL);
  if (!gpu)
    return;
  printf("%s csum_ws: the query gives %lld bytes\n",
         bytes > 1 ? "PASS" : "FAIL", (long long)bytes);
  bytes > 1 ? ++passes : ++failures;
  int64_t none = 0;
  expect("csum_ws: query, n = 0", csum_ws(a, 0, b, NULL, &none, NULL), ran(),
         NULL);
  printf("%s csum_ws: n = 0 needs 1 byte (%lld)\n", none == 1 ? "PASS" : "FAIL",
         (long long)none);
  none == 1 ? ++passes : ++failures;
  void *ws = NULL;
  if (fuse_malloc(&ws, (size_t)bytes + 256, NULL)) {
    printf("FAIL fuse_malloc: %s\n", fuse_last_error_message());
    ++failures;
    return;
  }
  fill(b); /* b keeps these values when a call is rejected */
  for (int i = 0; i < N; ++i)
    ref[i] = host[i];
  fill(a);
  int64_t small = bytes - 1;
  expect("csum_ws: a workspace 1 byte short",
         csum_ws(a, n, b, ws, &small, NULL), FUSE_ERROR_INVALID_ARGUMENT,
         "bytes but this call needs");
  int64_t big = bytes + 256;
  expect("csum_ws: a misaligned workspace",
         csum_ws(a, n, b, (char *)ws + 16, &big, NULL),
         FUSE_ERROR_INVALID_ARGUMENT, "csum_ws: the workspace is not 256-byte "
                                      "aligned");
  values("csum_ws: rejected calls leave out0 untouched", b, N);
  float s = 0.0f;
  for (int i = 0; i < N; ++i)
    ref[i] = s += host[i];
  expect("csum_ws: run", csum_ws(a, n, b, ws, &bytes, NULL), FUSE_SUCCESS,
         NULL);
  values("csum_ws: run", b, N);
  fuse_stream_synchronize(NULL);
  fuse_free(ws, NULL);
}

int main(void) {
  gpu = fuse_init() == FUSE_SUCCESS;
  printf("overlap checks (%s)\n", gpu ? "GPU" : "no GPU: host arrays");
  if (gpu) {
    void *p = NULL, *q = NULL;
    if (fuse_malloc(&p, sizeof hostA, NULL) || fuse_malloc(&q, sizeof hostB, NULL)) {
      printf("FAIL fuse_malloc: %s\n", fuse_last_error_message());
      return 1;
    }
    a = p;
    b = q;
  }
  const int64_t n = N;
  /* Rejected: partial overlaps, an output over an input a later step
   * reads, outputs over each other. */
  expect("scale: out0 = in0 + 1 element", scale(a, n, a + 1, NULL),
         FUSE_ERROR_INVALID_ARGUMENT,
         "scale: out0 and in0 overlap without being the same buffer");
  expect("scale: out0 = in0 - 255 elements (one element shared)",
         scale(a + 255, n, a, NULL), FUSE_ERROR_INVALID_ARGUMENT,
         "overlap without being the same buffer");
  expect("two: out0 = in0 (a later step reads in0)", two(a, n, a, b, NULL),
         FUSE_ERROR_INVALID_ARGUMENT,
         "two: out0 and in0 overlap; out0 cannot be computed in place of "
         "in0: a later step reads in0");
  expect("csum: out0 = in0 + 1 element", csum(a, n, a + 1, NULL),
         FUSE_ERROR_INVALID_ARGUMENT, "overlap without being the same buffer");
  expect("scale: in0 NULL", scale(NULL, n, b, NULL),
         FUSE_ERROR_INVALID_ARGUMENT, "scale: in0 is NULL but not empty");
  expect("scale: out0 NULL", scale(a, n, NULL, NULL),
         FUSE_ERROR_INVALID_ARGUMENT, "scale: out0 is NULL but not empty");
  if (gpu) {
    expect("two: out1 NULL", two(a, n, b, NULL, NULL),
           FUSE_ERROR_INVALID_ARGUMENT, "two: out1 is NULL but not empty");
    expect("two: out1 = out0", two(a, n, b, b, NULL),
           FUSE_ERROR_INVALID_ARGUMENT, "two: out1 and out0 overlap");
    expect("two: out1 = in0 + 8 elements", two(a, n, b, a + 8, NULL),
           FUSE_ERROR_INVALID_ARGUMENT, "two: out1 and in0 overlap");
  }
  /* Accepted: disjoint and adjacent buffers, exact in place where it is
   * safe, empty arrays. */
  fill(a);
  for (int i = 0; i < N; ++i)
    ref[i] = 2.0f * host[i];
  expect("scale: disjoint", scale(a, n, b, NULL), ran(), NULL);
  values("scale: disjoint", b, N);
  expect("scale: adjacent (out0 = in0 + n)", scale(a, n, a + n, NULL), ran(),
         NULL);
  values("scale: adjacent", a + N, N);
  fill(a);
  expect("scale: out0 = in0 (in place)", scale(a, n, a, NULL), ran(), NULL);
  values("scale: in place", a, N);
  fill(a);
  for (int i = 0; i < N; ++i)
    ref[i] = host[i] + 1.0f;
  expect("two: out1 = in0 (the last step, in place)", two(a, n, b, a, NULL),
         ran(), NULL);
  values("two: out1 in place", a, N);
  fill(a);
  float s = 0.0f;
  for (int i = 0; i < N; ++i)
    ref[i] = s += host[i];
  expect("csum: out0 = in0 (in place)", csum(a, n, a, NULL), ran(), NULL);
  values("csum: in place", a, N);
  expect("scale: n = 0, out0 = in0 + 1", scale(a, 0, a + 1, NULL), ran(),
         NULL);
  expect("scale: n = 0, NULL buffers", scale(NULL, 0, NULL, NULL), ran(),
         NULL);
  workspaceChecks(n);
  printf("%d passed, %d failed\n", passes, failures);
  return failures != 0;
}
