//===- nogpu_test.cpp - runtime checks that need no GPU -------------------===//
//
// On a machine without a GPU or driver: fuse_init must return
// FUSE_ERROR_NO_DEVICE with a message that says so (not crash), every
// other entry point must refuse cleanly, and argument checks that come
// before any device work must still work. With a GPU present (the GPU
// suite runs this too) the no-device checks are replaced by the same
// argument checks after a successful init.
//
// Prints "N passed, N failed" and exits non-zero on any failure.
//
//===----------------------------------------------------------------------===//
#include "fuse_runtime.h"
#include "fuse_runtime.hpp"

#include <cstdio>
#include <cstring>
#include <string>

static int passed = 0, failed = 0;

static void check(bool ok, const char *what, const std::string &detail = "") {
  if (ok) {
    ++passed;
    std::printf("PASS %s\n", what);
  } else {
    ++failed;
    std::printf("FAIL %s %s\n", what, detail.c_str());
  }
}

static void expectStatus(fuse_status_t got, fuse_status_t want,
                         const char *what, const char *needle) {
  std::string msg = fuse_last_error_message();
  bool ok = got == want && (!needle || msg.find(needle) != std::string::npos);
  check(ok, what,
        std::string("got ") + fuse_status_name(got) + " want " +
            fuse_status_name(want) + " message: '" + msg + "'");
}

int main(int argc, char **argv) {
  bool expectDevice = argc > 1 && std::strcmp(argv[1], "--expect-device") == 0;
  std::printf("fuse runtime no-GPU test (%s)\n",
              expectDevice ? "device expected" : "no device expected");

  // Before init, nothing reaches the device.
  check(std::strcmp(fuse_last_error_message(), "") == 0,
        "no message before any call");
  expectStatus(fuse_set_error(FUSE_ERROR_INVALID_ARGUMENT, "out0 overlaps in0"),
               FUSE_ERROR_INVALID_ARGUMENT,
               "fuse_set_error returns its status and keeps the message",
               "out0 overlaps in0");
  expectStatus(fuse_set_size_error(FUSE_ERROR_INVALID_ARGUMENT,
                                   "dot: in1 dimension 0 is %lld but in0 "
                                   "dimension 0 is %lld",
                                   10, 1000000000000LL),
               FUSE_ERROR_INVALID_ARGUMENT,
               "fuse_set_size_error formats both sizes into the message",
               "dot: in1 dimension 0 is 10 but in0 dimension 0 is "
               "1000000000000");
  expectStatus(fuse_set_size_error(FUSE_ERROR_INVALID_ARGUMENT,
                                   "in2 is %lld", -5, 0),
               FUSE_ERROR_INVALID_ARGUMENT,
               "fuse_set_size_error with one size", "in2 is -5");
  fuse_set_error(FUSE_ERROR_LAUNCH, "kernel k failed");
  check(fuse_free(nullptr, nullptr) == FUSE_SUCCESS &&
            std::strcmp(fuse_last_error_message(), "kernel k failed") == 0,
        "fuse_free(NULL) succeeds and keeps the last error message");
  check(fuse_set_error(FUSE_SUCCESS, nullptr) == FUSE_SUCCESS &&
            std::strcmp(fuse_last_error_message(), "") == 0,
        "fuse_set_error(NULL) clears the message");
  void *p = reinterpret_cast<void *>(0x1);
  expectStatus(fuse_malloc(&p, 16, nullptr), FUSE_ERROR_NO_DEVICE,
               "fuse_malloc before fuse_init is refused", "fuse_init");
  check(p == nullptr, "fuse_malloc before fuse_init leaves *ptr NULL");
  expectStatus(fuse_malloc(nullptr, 16, nullptr), FUSE_ERROR_INVALID_ARGUMENT,
               "fuse_malloc(NULL) is an invalid argument", "ptr is NULL");
  expectStatus(fuse_count_clamp(nullptr, nullptr, 0, nullptr),
               FUSE_ERROR_NO_DEVICE, "fuse_count_clamp before fuse_init",
               "fuse_count_clamp");
  expectStatus(fuse_stream_create(nullptr), FUSE_ERROR_INVALID_ARGUMENT,
               "fuse_stream_create(NULL) is an invalid argument", "NULL");
  check(std::string(fuse_status_name(FUSE_ERROR_POISONED)) ==
            "FUSE_ERROR_POISONED",
        "fuse_status_name");
  // fuse_sort_temp_bytes checks its arguments before anything else (even
  // before fuse_init) and leaves *bytes 0 on every error.
  size_t tb = 99;
  expectStatus(
      fuse_sort_temp_bytes(FUSE_F32, FUSE_I32, 1, -1, FUSE_SORT_ASCENDING, &tb),
      FUSE_ERROR_INVALID_ARGUMENT, "fuse_sort_temp_bytes: n < 0",
      "fuse_sort_temp_bytes: negative element count n = -1");
  check(tb == 0, "fuse_sort_temp_bytes: *bytes is 0 after an error");
  expectStatus(fuse_sort_temp_bytes(FUSE_F32, FUSE_I32, 1, 10,
                                    FUSE_SORT_ASCENDING, nullptr),
               FUSE_ERROR_INVALID_ARGUMENT, "fuse_sort_temp_bytes: NULL bytes",
               "bytes is NULL");
  expectStatus(fuse_sort_temp_bytes(static_cast<fuse_dtype_t>(13), FUSE_I32, 0,
                                    10, FUSE_SORT_ASCENDING, &tb),
               FUSE_ERROR_INVALID_ARGUMENT,
               "fuse_sort_temp_bytes: unknown key dtype",
               "unknown key dtype 13");
  expectStatus(fuse_sort_temp_bytes(FUSE_U8, static_cast<fuse_dtype_t>(-3), 1,
                                    10, FUSE_SORT_DESCENDING, &tb),
               FUSE_ERROR_INVALID_ARGUMENT,
               "fuse_sort_temp_bytes: unknown value dtype",
               "unknown value dtype -3");
  expectStatus(fuse_sort_temp_bytes(FUSE_F64, FUSE_I32, 1, 10,
                                    static_cast<fuse_sort_order_t>(5), &tb),
               FUSE_ERROR_INVALID_ARGUMENT,
               "fuse_sort_temp_bytes: unknown order", "unknown sort order 5");
  // fuse_argsort_temp_bytes likewise.
  tb = 99;
  expectStatus(fuse_argsort_temp_bytes(FUSE_F32, -1, FUSE_SORT_ASCENDING, &tb),
               FUSE_ERROR_INVALID_ARGUMENT, "fuse_argsort_temp_bytes: n < 0",
               "fuse_argsort_temp_bytes: negative element count n = -1");
  check(tb == 0, "fuse_argsort_temp_bytes: *bytes is 0 after an error");
  expectStatus(
      fuse_argsort_temp_bytes(FUSE_F32, 10, FUSE_SORT_ASCENDING, nullptr),
      FUSE_ERROR_INVALID_ARGUMENT, "fuse_argsort_temp_bytes: NULL bytes",
      "bytes is NULL");
  expectStatus(fuse_argsort_temp_bytes(static_cast<fuse_dtype_t>(13), 10,
                                       FUSE_SORT_ASCENDING, &tb),
               FUSE_ERROR_INVALID_ARGUMENT,
               "fuse_argsort_temp_bytes: unknown key dtype",
               "unknown key dtype 13");
  expectStatus(fuse_argsort_temp_bytes(FUSE_F64, 10,
                                       static_cast<fuse_sort_order_t>(5), &tb),
               FUSE_ERROR_INVALID_ARGUMENT,
               "fuse_argsort_temp_bytes: unknown order",
               "unknown sort order 5");

  fuse_status_t s = fuse_init();
  if (!expectDevice) {
    std::string msg = fuse_last_error_message();
    std::printf("fuse_init: %s: %s\n", fuse_status_name(s), msg.c_str());
    expectStatus(s, FUSE_ERROR_NO_DEVICE, "fuse_init without a GPU",
                 "fuse_init: ");
    check(msg.find("driver") != std::string::npos ||
              msg.find("device") != std::string::npos,
          "the no-device message names the driver or the device", msg);
    // Idempotent and still a clean error.
    expectStatus(fuse_init(), FUSE_ERROR_NO_DEVICE, "fuse_init again", "");
    int a, b, c;
    expectStatus(fuse_device_info(&a, &b, &c), FUSE_ERROR_NO_DEVICE,
                 "fuse_device_info without a device", "not initialised");
    expectStatus(fuse_device_ordinal(&a), FUSE_ERROR_NO_DEVICE,
                 "fuse_device_ordinal without a device", "not initialised");
    expectStatus(fuse_pointer_device(&a, &b), FUSE_ERROR_NO_DEVICE,
                 "fuse_pointer_device without a device", "not initialised");
    float f = 0;
    expectStatus(fuse_reduce(FUSE_REDUCE_ADD, FUSE_F32, &f, &f, 1, nullptr),
                 FUSE_ERROR_NO_DEVICE, "fuse_reduce without a device",
                 "not initialised");
    fuse_module_t m;
    expectStatus(fuse_module_load("x", 1, &m), FUSE_ERROR_NO_DEVICE,
                 "fuse_module_load without a device", "not initialised");
    fuse_graph_t g = reinterpret_cast<fuse_graph_t>(0x1);
    expectStatus(fuse_graph_end(reinterpret_cast<fuse_stream_t>(0x1), &g),
                 FUSE_ERROR_NO_DEVICE, "fuse_graph_end without a device",
                 "not initialised");
    check(g == nullptr, "fuse_graph_end without a device leaves *graph NULL");
    expectStatus(fuse_graph_begin(reinterpret_cast<fuse_stream_t>(0x1)),
                 FUSE_ERROR_NO_DEVICE, "fuse_graph_begin without a device",
                 "not initialised");
    expectStatus(fuse_graph_destroy(nullptr), FUSE_SUCCESS,
                 "fuse_graph_destroy(NULL) without a device", "");
    size_t tb2 = 99;
    expectStatus(fuse_sort_temp_bytes(FUSE_F32, FUSE_I32, 1, 10,
                                      FUSE_SORT_DESCENDING, &tb2),
                 FUSE_ERROR_NO_DEVICE, "fuse_sort_temp_bytes without a device",
                 "not initialised");
    check(tb2 == 0, "fuse_sort_temp_bytes without a device leaves *bytes 0");
    expectStatus(fuse_sort_temp_bytes(FUSE_BF16, static_cast<fuse_dtype_t>(-3),
                                      0, 0, FUSE_SORT_ASCENDING, &tb2),
                 FUSE_ERROR_NO_DEVICE,
                 "fuse_sort_temp_bytes ignores value_dtype without values",
                 "not initialised");
    float keys[2] = {2, 1}, sorted[2], temp[64];
    expectStatus(fuse_sort_ws(FUSE_F32, FUSE_SORT_ASCENDING, keys, sorted,
                              FUSE_I32, nullptr, nullptr, 2, temp, sizeof temp,
                              nullptr),
                 FUSE_ERROR_NO_DEVICE, "fuse_sort_ws without a device",
                 "fuse_sort_ws: the runtime is not initialised");
    expectStatus(fuse_sort_ws(FUSE_F32, FUSE_SORT_ASCENDING, nullptr, nullptr,
                              FUSE_I32, nullptr, nullptr, 0, nullptr, 0,
                              nullptr),
                 FUSE_ERROR_NO_DEVICE, "fuse_sort_ws (n = 0) without a device",
                 "not initialised");
    expectStatus(fuse_sort(FUSE_F32, keys, sorted, FUSE_I32, nullptr, nullptr,
                           2, nullptr),
                 FUSE_ERROR_NO_DEVICE, "fuse_sort without a device",
                 "not initialised");
    fuse::Status st = fuse::init();
    check(!st && st.code() == FUSE_ERROR_NO_DEVICE && !st.message().empty(),
          "C++ wrapper reports the status and message");
    fuse::Buffer<float> buf;
    check(!buf.allocate(10) && buf.get() == nullptr,
          "C++ Buffer::allocate fails cleanly without a device");
  } else {
    expectStatus(s, FUSE_SUCCESS, "fuse_init with a GPU", nullptr);
    // Argument validation, all before any launch.
    alignas(16) static float h[4];
    float *d = nullptr;
    fuse_status_t ms = fuse_malloc(reinterpret_cast<void **>(&d), 64, nullptr);
    expectStatus(ms, FUSE_SUCCESS, "fuse_malloc 64 bytes", nullptr);
    expectStatus(fuse_reduce(FUSE_REDUCE_ADD, FUSE_F32, d, d, -1, nullptr),
                 FUSE_ERROR_INVALID_ARGUMENT, "negative n", "negative");
    expectStatus(fuse_reduce(FUSE_REDUCE_ADD, FUSE_F32, nullptr, d, 4, nullptr),
                 FUSE_ERROR_INVALID_ARGUMENT, "NULL input", "in is NULL");
    expectStatus(fuse_reduce(FUSE_REDUCE_ADD, FUSE_F32,
                             reinterpret_cast<char *>(d) + 1, d, 4, nullptr),
                 FUSE_ERROR_INVALID_ARGUMENT, "misaligned input",
                 "not aligned");
    expectStatus(fuse_reduce(static_cast<fuse_reduce_op_t>(9), FUSE_F32, d, d,
                             4, nullptr),
                 FUSE_ERROR_INVALID_ARGUMENT, "unknown op",
                 "unknown reduce op");
    expectStatus(fuse_reduce(FUSE_REDUCE_ADD, FUSE_I8, d, d, 4, nullptr),
                 FUSE_ERROR_INVALID_ARGUMENT, "unsupported dtype",
                 "unsupported dtype i8");
    expectStatus(fuse_scan(FUSE_REDUCE_ADD, FUSE_F64, 0,
                           reinterpret_cast<char *>(d) + 4, d, 2, nullptr),
                 FUSE_ERROR_INVALID_ARGUMENT, "misaligned f64 scan input",
                 "not aligned to 8");
    expectStatus(
        fuse_sort(FUSE_F32, d, nullptr, FUSE_U32, nullptr, nullptr, 4, nullptr),
        FUSE_ERROR_INVALID_ARGUMENT, "sort with NULL keys_out",
        "keys_out is NULL");
    size_t tb3 = 99;
    expectStatus(fuse_sort_temp_bytes(FUSE_F32, FUSE_I32, 1, 0,
                                      FUSE_SORT_ASCENDING, &tb3),
                 FUSE_SUCCESS, "fuse_sort_temp_bytes for n = 0", nullptr);
    check(tb3 == 0, "fuse_sort_ws needs no temporary storage for n = 0");
    expectStatus(fuse_sort_temp_bytes(FUSE_F32, FUSE_I32, 1, 4,
                                      FUSE_SORT_DESCENDING, &tb3),
                 FUSE_SUCCESS, "fuse_sort_temp_bytes for n = 4", nullptr);
    check(tb3 > 0, "fuse_sort_ws needs temporary storage for n = 4");
    expectStatus(fuse_sort_ws(FUSE_F32, FUSE_SORT_DESCENDING, d, d + 4,
                              FUSE_U32, nullptr, nullptr, 4, d + 8, 0, nullptr),
                 FUSE_ERROR_INVALID_ARGUMENT, "fuse_sort_ws with temp_bytes 0",
                 "temp_bytes is 0 but sorting 4 elements needs");
    expectStatus(fuse_sort_ws(FUSE_F32, FUSE_SORT_DESCENDING, d, d, FUSE_U32,
                              nullptr, nullptr, 4, d + 8, tb3, nullptr),
                 FUSE_ERROR_INVALID_ARGUMENT, "fuse_sort_ws in place",
                 "keys_out");
    expectStatus(fuse_sort_ws(FUSE_F32, FUSE_SORT_DESCENDING, d, nullptr,
                              FUSE_U32, nullptr, nullptr, 4, d + 8, tb3,
                              nullptr),
                 FUSE_ERROR_INVALID_ARGUMENT, "fuse_sort_ws with NULL keys_out",
                 "keys_out is NULL");
    expectStatus(fuse_free(h, nullptr), FUSE_ERROR_INVALID_ARGUMENT,
                 "freeing a pointer not from fuse_malloc", "not returned");
    expectStatus(fuse_free(d, nullptr), FUSE_SUCCESS, "fuse_free", nullptr);
    expectStatus(fuse_free(d, nullptr), FUSE_ERROR_INVALID_ARGUMENT,
                 "double free", "already freed");
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
