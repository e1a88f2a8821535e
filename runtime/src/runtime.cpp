//===- runtime.cpp - errors, device, streams, memory, primitives ----------===//
//
// The C API's entry points except modules/launches (module.cpp), the
// allocator (allocator.cpp) and the sorts (sort.cpp). Every entry point:
// clears the thread's error, checks that the runtime is initialised and
// the context not poisoned, validates its arguments before touching the
// device, then calls CUDA and checks every result.
//
//===----------------------------------------------------------------------===//
#include "internal.h"

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace fuse_rt {
namespace {

thread_local std::string tlsError;

std::mutex stateMutex;
std::atomic<bool> initialized{false};
int device = 0;
int ccMajor = 0, ccMinor = 0, smCount = 0;
bool blockingMode = false;

std::atomic<bool> poisoned{false};
std::string poisonMessage; // guarded by stateMutex; written once

thread_local bool deviceCurrent = false;

bool isSticky(cudaError_t err) {
  switch (err) {
  case cudaErrorIllegalAddress:
  case cudaErrorMisalignedAddress:
  case cudaErrorIllegalInstruction:
  case cudaErrorInvalidAddressSpace:
  case cudaErrorInvalidPc:
  case cudaErrorLaunchFailure:
  case cudaErrorHardwareStackError:
  case cudaErrorAssert:
  case cudaErrorLaunchTimeout:
  case cudaErrorECCUncorrectable:
  case cudaErrorContextIsDestroyed:
  case cudaErrorTensorMemoryLeak:
    return true;
  default:
    return false;
  }
}

fuse_status_t statusFor(cudaError_t err) {
  switch (err) {
  case cudaErrorMemoryAllocation:
    return FUSE_ERROR_OUT_OF_MEMORY;
  case cudaErrorNoDevice:
  case cudaErrorInsufficientDriver:
  case cudaErrorCallRequiresNewerDriver:
  case cudaErrorSystemDriverMismatch:
  case cudaErrorCompatNotSupportedOnDevice:
  case cudaErrorDevicesUnavailable:
    return FUSE_ERROR_NO_DEVICE;
  case cudaErrorNoKernelImageForDevice:
  case cudaErrorUnsupportedPtxVersion:
  case cudaErrorInvalidKernelImage:
    return FUSE_ERROR_UNSUPPORTED_DEVICE;
  case cudaErrorInvalidValue:
  case cudaErrorInvalidDevicePointer:
  case cudaErrorInvalidResourceHandle:
    return FUSE_ERROR_INVALID_ARGUMENT;
  case cudaErrorStreamCaptureUnsupported:
  case cudaErrorStreamCaptureInvalidated:
  case cudaErrorStreamCaptureImplicit:
  case cudaErrorNotPermitted:
    return FUSE_ERROR_NOT_PERMITTED;
  case cudaErrorInvalidConfiguration:
  case cudaErrorLaunchOutOfResources:
  case cudaErrorInvalidDeviceFunction:
    return FUSE_ERROR_LAUNCH;
  default:
    return isSticky(err) ? FUSE_ERROR_LAUNCH : FUSE_ERROR_INTERNAL;
  }
}

} // namespace

fuse_status_t fail(fuse_status_t status, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  tlsError = buf;
  return status;
}

void poison(const std::string &message) {
  std::lock_guard<std::mutex> lock(stateMutex);
  if (!poisoned.load()) {
    poisonMessage = message;
    poisoned.store(true);
  }
}

fuse_status_t cudaFail(cudaError_t err, const char *api, const char *what) {
  fuse_status_t status = statusFor(err);
  fail(status, "%s: %s failed: %s (%s)", api, what, cudaGetErrorName(err),
       cudaGetErrorString(err));
  if (isSticky(err)) {
    poison(tlsError);
  } else {
    // Clear a non-sticky error so that it is not reported again.
    (void)cudaGetLastError();
  }
  return status;
}

void clearError() { tlsError.clear(); }

bool launchBlocking() { return blockingMode; }

static fuse_status_t poisonedStatus(const char *api) {
  std::string first;
  {
    std::lock_guard<std::mutex> lock(stateMutex);
    first = poisonMessage;
  }
  return fail(FUSE_ERROR_POISONED,
              "%s: the CUDA context is poisoned by an earlier fault and the "
              "process must restart to use the GPU; first error: %s",
              api, first.c_str());
}

fuse_status_t enter(const char *api) {
  clearError();
  if (poisoned.load())
    return poisonedStatus(api);
  if (!initialized.load())
    return fail(FUSE_ERROR_NO_DEVICE,
                "%s: the runtime is not initialised (call fuse_init first)",
                api);
  if (!deviceCurrent) {
    cudaError_t err = cudaSetDevice(device);
    if (err != cudaSuccess)
      return cudaFail(err, api, "cudaSetDevice");
    deviceCurrent = true;
  }
  return FUSE_SUCCESS;
}

fuse_status_t captureState(cudaStream_t stream, const char *api,
                           bool &capturing) {
  cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
  cudaError_t err = cudaStreamIsCapturing(stream, &st);
  if (err != cudaSuccess)
    return cudaFail(err, api, "cudaStreamIsCapturing");
  capturing = st != cudaStreamCaptureStatusNone;
  return FUSE_SUCCESS;
}

fuse_status_t checkNotCapturing(cudaStream_t stream, const char *api) {
  bool capturing = false;
  if (fuse_status_t s = captureState(stream, api, capturing))
    return s;
  if (capturing)
    return fail(FUSE_ERROR_NOT_PERMITTED,
                "%s: not permitted while the stream is being captured into a "
                "CUDA graph (it would allocate or synchronise)",
                api);
  return FUSE_SUCCESS;
}

fuse_status_t afterLaunch(cudaStream_t stream, const char *api,
                          const char *what) {
  if (!blockingMode)
    return FUSE_SUCCESS;
  // Work queued on a stream being captured runs at replay, and
  // synchronising the stream would invalidate the capture. (A failed query,
  // e.g. for a fault this launch already raised, goes on to the
  // synchronisation, which reports it naming `what`.)
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capture) == cudaSuccess &&
      capture != cudaStreamCaptureStatusNone)
    return FUSE_SUCCESS;
  cudaError_t err = cudaStreamSynchronize(stream);
  if (err != cudaSuccess) {
    std::string w = std::string(what) + " (FUSE_LAUNCH_BLOCKING=1: fault "
                                        "raised by this launch)";
    return cudaFail(err, api, w.c_str());
  }
  return FUSE_SUCCESS;
}

size_t dtypeSize(fuse_dtype_t dtype) {
  switch (dtype) {
  case FUSE_F16:
  case FUSE_BF16:
  case FUSE_I16:
  case FUSE_U16:
    return 2;
  case FUSE_F32:
  case FUSE_I32:
  case FUSE_U32:
    return 4;
  case FUSE_F64:
  case FUSE_I64:
  case FUSE_U64:
    return 8;
  case FUSE_I8:
  case FUSE_U8:
  case FUSE_BOOL:
    return 1;
  }
  return 0;
}

const char *dtypeName(fuse_dtype_t dtype) {
  static const char *names[] = {"f16", "bf16", "f32", "f64", "i32", "i64",
                                "u32", "u64",  "i8",  "u8",  "i16", "bool"};
  unsigned d = static_cast<unsigned>(dtype);
  return d < sizeof names / sizeof names[0] ? names[d] : "?";
}

fuse_status_t checkPointer(const void *p, size_t align, const char *api,
                           const char *name) {
  if (!p)
    return fail(FUSE_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", api, name);
  if (align > 1 && reinterpret_cast<uintptr_t>(p) % align != 0)
    return fail(FUSE_ERROR_INVALID_ARGUMENT,
                "%s: %s (%p) is not aligned to %zu bytes", api, name, p, align);
  return FUSE_SUCCESS;
}

fuse_status_t checkCount(int64_t n, const char *api) {
  if (n < 0)
    return fail(FUSE_ERROR_INVALID_ARGUMENT,
                "%s: negative element count n = %lld", api,
                static_cast<long long>(n));
  return FUSE_SUCCESS;
}

bool overlaps(const void *a, size_t abytes, const void *b, size_t bbytes) {
  uintptr_t x = reinterpret_cast<uintptr_t>(a);
  uintptr_t y = reinterpret_cast<uintptr_t>(b);
  return abytes && bbytes && x < y + bbytes && y < x + abytes;
}

} // namespace fuse_rt

using namespace fuse_rt;

// Defined in module.cpp: resolves the driver entry points.
namespace fuse_rt {
fuse_status_t loadDriverEntryPoints(const char *api);
fuse_status_t allocatorInit(const char *api);
} // namespace fuse_rt

FUSE_API const char *fuse_last_error_message(void) { return tlsError.c_str(); }

FUSE_API fuse_status_t fuse_set_error(fuse_status_t status,
                                      const char *message) {
  tlsError = message ? message : "";
  return status;
}

FUSE_API fuse_status_t fuse_set_size_error(fuse_status_t status,
                                           const char *format, int64_t a,
                                           int64_t b) {
  if (!format)
    return fuse_set_error(status, nullptr);
  char text[1024];
  std::snprintf(text, sizeof text, format, (long long)a, (long long)b);
  tlsError = text;
  return status;
}

FUSE_API fuse_status_t fuse_init(void) {
  const char *api = "fuse_init";
  clearError();
  if (poisoned.load())
    return poisonedStatus(api);
  std::lock_guard<std::mutex> lock(stateMutex);
  if (initialized.load()) {
    deviceCurrent = cudaSetDevice(device) == cudaSuccess;
    return FUSE_SUCCESS;
  }
  int driverVersion = 0, runtimeVersion = 0;
  cudaError_t err = cudaDriverGetVersion(&driverVersion);
  if (err != cudaSuccess)
    return cudaFail(err, api, "cudaDriverGetVersion");
  (void)cudaRuntimeGetVersion(&runtimeVersion);
  if (driverVersion == 0)
    return fail(FUSE_ERROR_NO_DEVICE,
                "%s: no CUDA driver found (libcuda.so could not be loaded); "
                "the runtime was built for CUDA %d.%d",
                api, runtimeVersion / 1000, runtimeVersion % 1000 / 10);
  int count = 0;
  err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    fuse_status_t s = statusFor(err);
    if (s != FUSE_ERROR_NO_DEVICE && s != FUSE_ERROR_UNSUPPORTED_DEVICE)
      s = FUSE_ERROR_NO_DEVICE;
    (void)cudaGetLastError();
    return fail(s,
                "%s: no usable CUDA device: cudaGetDeviceCount failed: %s "
                "(%s); driver supports CUDA %d.%d, runtime built for %d.%d",
                api, cudaGetErrorName(err), cudaGetErrorString(err),
                driverVersion / 1000, driverVersion % 1000 / 10,
                runtimeVersion / 1000, runtimeVersion % 1000 / 10);
  }
  if (count == 0)
    return fail(FUSE_ERROR_NO_DEVICE, "%s: no CUDA device found", api);
  err = cudaGetDevice(&device);
  if (err != cudaSuccess)
    return cudaFail(err, api, "cudaGetDevice");
  cudaDeviceProp prop;
  err = cudaGetDeviceProperties(&prop, device);
  if (err != cudaSuccess)
    return cudaFail(err, api, "cudaGetDeviceProperties");
  ccMajor = prop.major;
  ccMinor = prop.minor;
  smCount = prop.multiProcessorCount;
  err = cudaSetDevice(device);
  if (err == cudaSuccess)
    err = cudaFree(nullptr); // creates the primary context now
  if (err != cudaSuccess)
    return cudaFail(err, api, "creating the device context");
  deviceCurrent = true;
  if (fuse_status_t s = loadDriverEntryPoints(api))
    return s;
  if (fuse_status_t s = allocatorInit(api))
    return s;
  const char *blocking = std::getenv("FUSE_LAUNCH_BLOCKING");
  blockingMode = blocking && std::strcmp(blocking, "0") != 0 && *blocking;
  initialized.store(true);
  return FUSE_SUCCESS;
}

namespace fuse_rt {
void deviceCC(int *major, int *minor) {
  *major = ccMajor;
  *minor = ccMinor;
}
} // namespace fuse_rt

FUSE_API fuse_status_t fuse_device_info(int *cc_major, int *cc_minor,
                                        int *sm_count) {
  const char *api = "fuse_device_info";
  if (fuse_status_t s = enter(api))
    return s;
  if (!cc_major || !cc_minor || !sm_count)
    return fail(FUSE_ERROR_INVALID_ARGUMENT, "%s: an output pointer is NULL",
                api);
  *cc_major = ccMajor;
  *cc_minor = ccMinor;
  *sm_count = smCount;
  return FUSE_SUCCESS;
}

FUSE_API fuse_status_t fuse_device_ordinal(int *ordinal) {
  const char *api = "fuse_device_ordinal";
  if (fuse_status_t st = enter(api))
    return st;
  if (!ordinal)
    return fail(FUSE_ERROR_INVALID_ARGUMENT, "%s: ordinal is NULL", api);
  *ordinal = device;
  return FUSE_SUCCESS;
}

FUSE_API fuse_status_t fuse_pointer_device(const void *ptr, int *ordinal) {
  const char *api = "fuse_pointer_device";
  if (fuse_status_t st = enter(api))
    return st;
  if (!ordinal)
    return fail(FUSE_ERROR_INVALID_ARGUMENT, "%s: ordinal is NULL", api);
  cudaPointerAttributes attr;
  cudaError_t err = cudaPointerGetAttributes(&attr, ptr);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return fail(FUSE_ERROR_INVALID_ARGUMENT,
                "%s: %p is not memory CUDA knows (%s)", api, ptr,
                cudaGetErrorName(err));
  }
  if (attr.type != cudaMemoryTypeDevice && attr.type != cudaMemoryTypeManaged)
    return fail(FUSE_ERROR_INVALID_ARGUMENT,
                "%s: %p is host memory, not a device's", api, ptr);
  *ordinal = attr.device;
  return FUSE_SUCCESS;
}

// ---- streams ----------------------------------------------------------

FUSE_API fuse_status_t fuse_stream_create(fuse_stream_t *stream) {
  const char *api = "fuse_stream_create";
  if (!stream) {
    clearError();
    return fail(FUSE_ERROR_INVALID_ARGUMENT, "%s: stream is NULL", api);
  }
  *stream = nullptr;
  if (fuse_status_t s = enter(api))
    return s;
  cudaStream_t st = nullptr;
  cudaError_t err = cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
  if (err != cudaSuccess)
    return cudaFail(err, api, "cudaStreamCreateWithFlags");
  *stream = st;
  return FUSE_SUCCESS;
}

FUSE_API fuse_status_t fuse_stream_destroy(fuse_stream_t stream) {
  const char *api = "fuse_stream_destroy";
  if (fuse_status_t s = enter(api))
    return s;
  if (!stream)
    return fail(FUSE_ERROR_INVALID_ARGUMENT,
                "%s: the per-thread default stream (NULL) cannot be destroyed",
                api);
  cudaStream_t st = static_cast<cudaStream_t>(stream);
  cudaError_t err = cudaStreamSynchronize(st);
  if (err != cudaSuccess)
    return cudaFail(err, api, "cudaStreamSynchronize");
  releaseStream(st); // cached blocks of this stream go back to the device
  err = cudaStreamDestroy(st);
  if (err != cudaSuccess)
    return cudaFail(err, api, "cudaStreamDestroy");
  return FUSE_SUCCESS;
}

FUSE_API fuse_status_t fuse_stream_synchronize(fuse_stream_t stream) {
  const char *api = "fuse_stream_synchronize";
  if (fuse_status_t s = enter(api))
    return s;
  if (fuse_status_t s = checkNotCapturing(toStream(stream), api))
    return s;
  cudaError_t err = cudaStreamSynchronize(toStream(stream));
  if (err != cudaSuccess)
    return cudaFail(err, api, "cudaStreamSynchronize");
  return FUSE_SUCCESS;
}

// ---- memory -------------------------------------------------------------

FUSE_API fuse_status_t fuse_malloc(void **ptr, size_t bytes,
                                   fuse_stream_t stream) {
  const char *api = "fuse_malloc";
  if (!ptr) {
    clearError();
    return fail(FUSE_ERROR_INVALID_ARGUMENT, "%s: ptr is NULL", api);
  }
  *ptr = nullptr;
  if (fuse_status_t s = enter(api))
    return s;
  if (bytes == 0)
    return FUSE_SUCCESS;
  // On a capturing stream: a stream-ordered allocation that the graph
  // records (allocator.cpp).
  return allocate(ptr, bytes, toStream(stream), api);
}

FUSE_API fuse_status_t fuse_free(void *ptr, fuse_stream_t stream) {
  const char *api = "fuse_free";
  // Like free(NULL), freeing NULL does nothing; and a successful free
  // leaves the thread's last error message as it was: generated host code
  // frees its temporaries on the way out of a failed call, and the caller
  // must still read that call's message.
  if (!ptr)
    return FUSE_SUCCESS;
  std::string saved = tlsError;
  if (fuse_status_t s = enter(api))
    return s;
  fuse_status_t s = deallocate(ptr, toStream(stream), api);
  if (s == FUSE_SUCCESS)
    tlsError = std::move(saved);
  return s;
}

static fuse_status_t copy(void *dst, const void *src, size_t bytes,
                          fuse_stream_t stream, cudaMemcpyKind kind,
                          const char *api) {
  if (fuse_status_t s = enter(api))
    return s;
  if (bytes == 0)
    return FUSE_SUCCESS;
  if (fuse_status_t s = checkPointer(dst, 1, api, "dst"))
    return s;
  if (fuse_status_t s = checkPointer(src, 1, api, "src"))
    return s;
  if (kind == cudaMemcpyDeviceToDevice && overlaps(dst, bytes, src, bytes) &&
      dst != src)
    return fail(FUSE_ERROR_INVALID_ARGUMENT,
                "%s: source and destination ranges overlap", api);
  cudaStream_t st = toStream(stream);
  // A device-to-host copy synchronises, which would break a capture.
  if (kind == cudaMemcpyDeviceToHost)
    if (fuse_status_t s = checkNotCapturing(st, api))
      return s;
  cudaError_t err = cudaMemcpyAsync(dst, src, bytes, kind, st);
  if (err != cudaSuccess)
    return cudaFail(err, api, "cudaMemcpyAsync");
  // Device-to-host copies complete before returning: the caller reads the
  // host buffer next. Host-to-device copies from pageable memory are staged
  // by CUDA before cudaMemcpyAsync returns.
  if (kind == cudaMemcpyDeviceToHost) {
    err = cudaStreamSynchronize(st);
    if (err != cudaSuccess)
      return cudaFail(err, api, "cudaStreamSynchronize after the copy");
  }
  return afterLaunch(st, api, "cudaMemcpyAsync");
}

FUSE_API fuse_status_t fuse_memcpy_htod(void *dst, const void *src,
                                        size_t bytes, fuse_stream_t stream) {
  return copy(dst, src, bytes, stream, cudaMemcpyHostToDevice,
              "fuse_memcpy_htod");
}
FUSE_API fuse_status_t fuse_memcpy_dtoh(void *dst, const void *src,
                                        size_t bytes, fuse_stream_t stream) {
  return copy(dst, src, bytes, stream, cudaMemcpyDeviceToHost,
              "fuse_memcpy_dtoh");
}
FUSE_API fuse_status_t fuse_memcpy_dtod(void *dst, const void *src,
                                        size_t bytes, fuse_stream_t stream) {
  return copy(dst, src, bytes, stream, cudaMemcpyDeviceToDevice,
              "fuse_memcpy_dtod");
}

FUSE_API fuse_status_t fuse_count_clamp(int64_t *dst, const int64_t *src,
                                        int64_t capacity,
                                        fuse_stream_t stream) {
  const char *api = "fuse_count_clamp";
  if (fuse_status_t s = enter(api))
    return s;
  if (capacity < 0)
    return fail(FUSE_ERROR_INVALID_ARGUMENT, "%s: capacity %lld is negative",
                api, static_cast<long long>(capacity));
  if (fuse_status_t s = checkPointer(dst, alignof(int64_t), api, "dst"))
    return s;
  if (fuse_status_t s = checkPointer(src, alignof(int64_t), api, "src"))
    return s;
  return launchCountClamp(dst, src, capacity, toStream(stream), api);
}

FUSE_API fuse_status_t fuse_memset(void *dst, int value, size_t bytes,
                                   fuse_stream_t stream) {
  const char *api = "fuse_memset";
  if (fuse_status_t s = enter(api))
    return s;
  if (bytes == 0)
    return FUSE_SUCCESS;
  if (fuse_status_t s = checkPointer(dst, 1, api, "dst"))
    return s;
  cudaStream_t st = toStream(stream);
  cudaError_t err = cudaMemsetAsync(dst, value, bytes, st);
  if (err != cudaSuccess)
    return cudaFail(err, api, "cudaMemsetAsync");
  return afterLaunch(st, api, "cudaMemsetAsync");
}

// ---- CUB-backed primitives ----------------------------------------------

static bool validOp(fuse_reduce_op_t op) {
  return op == FUSE_REDUCE_ADD || op == FUSE_REDUCE_MUL ||
         op == FUSE_REDUCE_MIN || op == FUSE_REDUCE_MAX;
}

static bool reducible(fuse_dtype_t d) {
  return d == FUSE_F16 || d == FUSE_BF16 || d == FUSE_F32 || d == FUSE_F64 ||
         d == FUSE_I32 || d == FUSE_I64 || d == FUSE_U32 || d == FUSE_U64;
}

static fuse_status_t checkReduceLike(fuse_reduce_op_t op, fuse_dtype_t dtype,
                                     const void *in, const void *out, int64_t n,
                                     bool outIsArray, const char *api) {
  if (!validOp(op))
    return fail(FUSE_ERROR_INVALID_ARGUMENT, "%s: unknown reduce op %d", api,
                static_cast<int>(op));
  if (!reducible(dtype))
    return fail(FUSE_ERROR_INVALID_ARGUMENT,
                "%s: unsupported dtype %s (%d); supported: f16 bf16 f32 f64 "
                "i32 i64 u32 u64",
                api, dtypeName(dtype), static_cast<int>(dtype));
  if (fuse_status_t s = checkCount(n, api))
    return s;
  size_t es = dtypeSize(dtype);
  if (n > 0)
    if (fuse_status_t s = checkPointer(in, es, api, "in"))
      return s;
  if (n > 0 || !outIsArray)
    if (fuse_status_t s = checkPointer(out, es, api, "out"))
      return s;
  return FUSE_SUCCESS;
}

FUSE_API fuse_status_t fuse_reduce(fuse_reduce_op_t op, fuse_dtype_t dtype,
                                   const void *in, void *out, int64_t n,
                                   fuse_stream_t stream) {
  const char *api = "fuse_reduce";
  if (fuse_status_t s = enter(api))
    return s;
  if (fuse_status_t s = checkReduceLike(op, dtype, in, out, n, false, api))
    return s;
  cudaStream_t st = toStream(stream);
  CubArgs a{op, dtype, in, out, n, 0, st, api};
  switch (dtype) {
  case FUSE_F16:
    return reduceF16(a);
  case FUSE_BF16:
    return reduceBF16(a);
  case FUSE_F32:
    return reduceF32(a);
  case FUSE_F64:
    return reduceF64(a);
  case FUSE_I32:
  case FUSE_U32:
    return reduceInt32(a);
  default:
    return reduceInt64(a);
  }
}

FUSE_API fuse_status_t fuse_scan(fuse_reduce_op_t op, fuse_dtype_t dtype,
                                 int exclusive, const void *in, void *out,
                                 int64_t n, fuse_stream_t stream) {
  const char *api = "fuse_scan";
  if (fuse_status_t s = enter(api))
    return s;
  if (fuse_status_t s = checkReduceLike(op, dtype, in, out, n, true, api))
    return s;
  if (n == 0)
    return FUSE_SUCCESS;
  cudaStream_t st = toStream(stream);
  size_t bytes = static_cast<size_t>(n) * dtypeSize(dtype);
  // Overlapping input and output: scan into a temporary, then copy.
  TempBuffer tmp(st);
  void *target = out;
  if (overlaps(in, bytes, out, bytes)) {
    if (fuse_status_t s = tmp.allocate(bytes, api))
      return s;
    target = tmp.get();
  }
  CubArgs a{op, dtype, in, target, n, exclusive != 0, st, api};
  fuse_status_t s;
  switch (dtype) {
  case FUSE_F16:
    s = scanF16(a);
    break;
  case FUSE_BF16:
    s = scanBF16(a);
    break;
  case FUSE_F32:
    s = scanF32(a);
    break;
  case FUSE_F64:
    s = scanF64(a);
    break;
  case FUSE_I32:
  case FUSE_U32:
    s = scanInt32(a);
    break;
  default:
    s = scanInt64(a);
    break;
  }
  if (s != FUSE_SUCCESS || target == out)
    return s;
  cudaError_t err =
      cudaMemcpyAsync(out, target, bytes, cudaMemcpyDeviceToDevice, st);
  if (err != cudaSuccess)
    return cudaFail(err, api, "cudaMemcpyAsync of the in-place result");
  return FUSE_SUCCESS;
}

FUSE_API fuse_status_t fuse_select_flagged(fuse_dtype_t dtype, const void *in,
                                           const uint8_t *flags, void *out,
                                           int64_t *count_device, int64_t n,
                                           fuse_stream_t stream) {
  const char *api = "fuse_select_flagged";
  if (fuse_status_t s = enter(api))
    return s;
  size_t es = dtypeSize(dtype);
  if (es == 0)
    return fail(FUSE_ERROR_INVALID_ARGUMENT, "%s: unknown dtype %d", api,
                static_cast<int>(dtype));
  if (fuse_status_t s = checkCount(n, api))
    return s;
  if (fuse_status_t s = checkPointer(count_device, 8, api, "count_device"))
    return s;
  if (n > 0) {
    if (fuse_status_t s = checkPointer(in, es, api, "in"))
      return s;
    if (fuse_status_t s = checkPointer(flags, 1, api, "flags"))
      return s;
    if (fuse_status_t s = checkPointer(out, es, api, "out"))
      return s;
  }
  cudaStream_t st = toStream(stream);
  size_t bytes = static_cast<size_t>(n) * es;
  if (overlaps(count_device, 8, in, bytes) ||
      overlaps(count_device, 8, out, bytes) ||
      overlaps(count_device, 8, flags, static_cast<size_t>(n)))
    return fail(FUSE_ERROR_INVALID_ARGUMENT,
                "%s: count_device overlaps in, flags or out", api);
  if (n == 0) {
    cudaError_t err = cudaMemsetAsync(count_device, 0, 8, st);
    if (err != cudaSuccess)
      return cudaFail(err, api, "cudaMemsetAsync of the count");
    return afterLaunch(st, api, "cudaMemsetAsync");
  }
  TempBuffer tmp(st);
  void *target = out;
  if (overlaps(in, bytes, out, bytes) || overlaps(flags, n, out, bytes)) {
    if (fuse_status_t s = tmp.allocate(bytes, api))
      return s;
    target = tmp.get();
  }
  fuse_status_t s =
      selectFlagged(es, in, flags, target, count_device, n, st, api);
  if (s != FUSE_SUCCESS || target == out)
    return s;
  // Copies the whole buffer: the count is on the device, and out has room
  // for n elements by contract.
  cudaError_t err =
      cudaMemcpyAsync(out, target, bytes, cudaMemcpyDeviceToDevice, st);
  if (err != cudaSuccess)
    return cudaFail(err, api, "cudaMemcpyAsync of the in-place result");
  return FUSE_SUCCESS;
}

FUSE_API const char *fuse_status_name(fuse_status_t status) {
  switch (status) {
  case FUSE_SUCCESS:
    return "FUSE_SUCCESS";
  case FUSE_ERROR_INVALID_ARGUMENT:
    return "FUSE_ERROR_INVALID_ARGUMENT";
  case FUSE_ERROR_NO_DEVICE:
    return "FUSE_ERROR_NO_DEVICE";
  case FUSE_ERROR_UNSUPPORTED_DEVICE:
    return "FUSE_ERROR_UNSUPPORTED_DEVICE";
  case FUSE_ERROR_OUT_OF_MEMORY:
    return "FUSE_ERROR_OUT_OF_MEMORY";
  case FUSE_ERROR_LAUNCH:
    return "FUSE_ERROR_LAUNCH";
  case FUSE_ERROR_POISONED:
    return "FUSE_ERROR_POISONED";
  case FUSE_ERROR_NOT_PERMITTED:
    return "FUSE_ERROR_NOT_PERMITTED";
  case FUSE_ERROR_INTERNAL:
    return "FUSE_ERROR_INTERNAL";
  }
  return "FUSE_ERROR_UNKNOWN";
}
