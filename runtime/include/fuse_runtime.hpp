//===- fuse_runtime.hpp - thin C++ wrapper over the fuse runtime ----------===//
//
// Header-only RAII over fuse_runtime.h. No exceptions: every operation
// returns a fuse::Status (the C status plus the thread's message at the time
// of the failure).
//
//   fuse::Status s = fuse::init();
//   fuse::Buffer<float> x;
//   if (!(s = x.allocate(n))) ...
//   s = fuse::reduce(FUSE_REDUCE_ADD, x, out, n);
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_RUNTIME_HPP
#define FUSE_RUNTIME_HPP

#include "fuse_runtime.h"

#include <cstdint>
#include <string>
#include <utility>

namespace fuse {

class Status {
public:
  Status() = default;
  explicit Status(fuse_status_t code)
      : code_(code),
        message_(code == FUSE_SUCCESS ? "" : fuse_last_error_message()) {}
  bool ok() const { return code_ == FUSE_SUCCESS; }
  explicit operator bool() const { return ok(); }
  fuse_status_t code() const { return code_; }
  const std::string &message() const { return message_; }

private:
  fuse_status_t code_ = FUSE_SUCCESS;
  std::string message_;
};

inline Status init() { return Status(fuse_init()); }

// An owned stream (destroyed on scope exit). A default-constructed Stream
// is the per-thread default stream.
class Stream {
public:
  Stream() = default;
  ~Stream() { reset(); }
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;
  Stream(Stream &&o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  Stream &operator=(Stream &&o) noexcept {
    if (this != &o) {
      reset();
      s_ = std::exchange(o.s_, nullptr);
    }
    return *this;
  }
  Status create() {
    reset();
    return Status(fuse_stream_create(&s_));
  }
  Status synchronize() const { return Status(fuse_stream_synchronize(s_)); }
  Status reset() {
    if (!s_)
      return Status();
    return Status(fuse_stream_destroy(std::exchange(s_, nullptr)));
  }
  fuse_stream_t get() const { return s_; }

private:
  fuse_stream_t s_ = nullptr;
};

// Device memory for `count` elements of T from the caching allocator,
// freed (on the stream it was allocated on) on scope exit.
template <typename T> class Buffer {
public:
  Buffer() = default;
  ~Buffer() { reset(); }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  Buffer(Buffer &&o) noexcept
      : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)), s_(o.s_) {
  }
  Buffer &operator=(Buffer &&o) noexcept {
    if (this != &o) {
      reset();
      p_ = std::exchange(o.p_, nullptr);
      n_ = std::exchange(o.n_, 0);
      s_ = o.s_;
    }
    return *this;
  }
  Status allocate(int64_t count, fuse_stream_t stream = nullptr) {
    reset();
    if (count < 0) {
      // Let the library produce the message for a bad size.
      return Status(fuse_reduce(FUSE_REDUCE_ADD, FUSE_F32, nullptr, nullptr,
                                count, stream));
    }
    void *p = nullptr;
    Status st(fuse_malloc(&p, static_cast<size_t>(count) * sizeof(T), stream));
    if (st) {
      p_ = static_cast<T *>(p);
      n_ = count;
      s_ = stream;
    }
    return st;
  }
  Status reset() {
    if (!p_)
      return Status();
    n_ = 0;
    return Status(fuse_free(std::exchange(p_, nullptr), s_));
  }
  Status upload(const T *host, int64_t count) {
    return Status(fuse_memcpy_htod(p_, host, sizeBytes(count), s_));
  }
  Status download(T *host, int64_t count) const {
    return Status(fuse_memcpy_dtoh(host, p_, sizeBytes(count), s_));
  }
  T *get() const { return p_; }
  int64_t size() const { return n_; }

private:
  static size_t sizeBytes(int64_t c) {
    return c < 0 ? 0 : static_cast<size_t>(c) * sizeof(T);
  }
  T *p_ = nullptr;
  int64_t n_ = 0;
  fuse_stream_t s_ = nullptr;
};

// A loaded module (cached for the process lifetime by the runtime).
class Module {
public:
  Status load(const void *image, size_t size) {
    return Status(fuse_module_load(image, size, &m_));
  }
  Status function(const char *name, fuse_function_t *f) const {
    return Status(fuse_module_get_function(m_, name, f));
  }
  fuse_module_t get() const { return m_; }

private:
  fuse_module_t m_ = nullptr;
};

// A captured, instantiated CUDA graph (destroyed on scope exit): begin()
// on a created stream, queue the work, end(), then launch() any number of
// times.
class Graph {
public:
  Graph() = default;
  ~Graph() { reset(); }
  Graph(const Graph &) = delete;
  Graph &operator=(const Graph &) = delete;
  Graph(Graph &&o) noexcept : g_(std::exchange(o.g_, nullptr)) {}
  Graph &operator=(Graph &&o) noexcept {
    if (this != &o) {
      reset();
      g_ = std::exchange(o.g_, nullptr);
    }
    return *this;
  }
  static Status begin(fuse_stream_t stream) {
    return Status(fuse_graph_begin(stream));
  }
  Status end(fuse_stream_t stream) {
    reset();
    return Status(fuse_graph_end(stream, &g_));
  }
  Status launch(fuse_stream_t stream) const {
    return Status(fuse_graph_launch(g_, stream));
  }
  Status reset() { return Status(fuse_graph_destroy(std::exchange(g_, nullptr))); }
  fuse_graph_t get() const { return g_; }

private:
  fuse_graph_t g_ = nullptr;
};

inline Status reduce(fuse_reduce_op_t op, fuse_dtype_t dtype, const void *in,
                     void *out, int64_t n, fuse_stream_t stream = nullptr) {
  return Status(fuse_reduce(op, dtype, in, out, n, stream));
}
inline Status scan(fuse_reduce_op_t op, fuse_dtype_t dtype, bool exclusive,
                   const void *in, void *out, int64_t n,
                   fuse_stream_t stream = nullptr) {
  return Status(fuse_scan(op, dtype, exclusive ? 1 : 0, in, out, n, stream));
}
inline Status selectFlagged(fuse_dtype_t dtype, const void *in,
                            const uint8_t *flags, void *out,
                            int64_t *countDevice, int64_t n,
                            fuse_stream_t stream = nullptr) {
  return Status(
      fuse_select_flagged(dtype, in, flags, out, countDevice, n, stream));
}
inline Status sort(fuse_dtype_t keyDtype, const void *keysIn, void *keysOut,
                   fuse_dtype_t valueDtype, const void *valuesIn,
                   void *valuesOut, int64_t n, fuse_stream_t stream = nullptr) {
  return Status(fuse_sort(keyDtype, keysIn, keysOut, valueDtype, valuesIn,
                          valuesOut, n, stream));
}
inline Status sortTempBytes(fuse_dtype_t keyDtype, fuse_dtype_t valueDtype,
                            bool hasValues, int64_t n, fuse_sort_order_t order,
                            size_t *bytes) {
  return Status(fuse_sort_temp_bytes(keyDtype, valueDtype, hasValues ? 1 : 0, n,
                                     order, bytes));
}
inline Status sortWs(fuse_dtype_t keyDtype, fuse_sort_order_t order,
                     const void *keysIn, void *keysOut, fuse_dtype_t valueDtype,
                     const void *valuesIn, void *valuesOut, int64_t n,
                     void *temp, size_t tempBytes,
                     fuse_stream_t stream = nullptr) {
  return Status(fuse_sort_ws(keyDtype, order, keysIn, keysOut, valueDtype,
                             valuesIn, valuesOut, n, temp, tempBytes, stream));
}
inline Status argsortTempBytes(fuse_dtype_t keyDtype, int64_t n,
                               fuse_sort_order_t order, size_t *bytes) {
  return Status(fuse_argsort_temp_bytes(keyDtype, n, order, bytes));
}
inline Status argsortWs(fuse_dtype_t keyDtype, fuse_sort_order_t order,
                        const void *keysIn, void *keysOut,
                        int64_t *positionsOut, int64_t n, void *temp,
                        size_t tempBytes, fuse_stream_t stream = nullptr) {
  return Status(fuse_argsort_ws(keyDtype, order, keysIn, keysOut, positionsOut,
                                n, temp, tempBytes, stream));
}

} // namespace fuse

#endif // FUSE_RUNTIME_HPP
