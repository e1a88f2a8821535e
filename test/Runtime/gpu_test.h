//===- gpu_test.h - what the runtime's GPU test files share ---------------===//
//
// The check helpers and fixtures of fuse_runtime_gpu_test, defined in
// gpu_test.cu and used by its other test files (graph_test.cu).
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_TEST_RUNTIME_GPU_TEST_H
#define FUSE_TEST_RUNTIME_GPU_TEST_H

#include "fuse_runtime.h"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

/// Records a PASS or FAIL line.
void check(bool ok, const std::string &what, const std::string &detail = "");
/// The runtime's last error message.
std::string msg();
/// Checks a status; on failure records it with the runtime's message.
bool ok(fuse_status_t s, const std::string &what);
/// Checks that `got` is `want` and the message holds every needle.
void expectStatus(fuse_status_t got, fuse_status_t want,
                  const std::string &what,
                  std::initializer_list<const char *> needles = {});
/// The allocator's statistics (fuse_allocator_stats, checked).
void stats(size_t *c, size_t *l, uint64_t *h, uint64_t *m);

/// The folder of the test images, a file's bytes, a test image's path and
/// the device's SM.
extern std::string imageDir;
std::vector<char> readFile(const std::string &path);
std::string imagePath(int sm, const char *kind);
int deviceSM();

/// Device memory from fuse_malloc, freed on scope exit.
template <typename T> struct DeviceArray {
  T *p = nullptr;
  size_t n = 0;
  fuse_stream_t s = nullptr;
  bool alloc(size_t count, fuse_stream_t stream = nullptr) {
    n = count;
    s = stream;
    return ok(fuse_malloc(reinterpret_cast<void **>(&p), count * sizeof(T), s),
              "fuse_malloc");
  }
  ~DeviceArray() {
    if (p)
      fuse_free(p, s);
  }
};

/// The suites of graph_test.cu.
void testGraphs();

#endif // FUSE_TEST_RUNTIME_GPU_TEST_H
