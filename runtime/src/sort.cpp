//===- sort.cpp - the radix sort entry points ------------------------------===//
//
// fuse_sort (temporary storage from the caching allocator, in place
// through temporaries), fuse_sort_temp_bytes and fuse_sort_ws (the
// caller's temporary storage: no allocation, no synchronisation, so it can
// be captured into a CUDA graph). The CUB calls are in cub_sort_*.cu.
//
//===----------------------------------------------------------------------===//
#include "internal.h"

#include <cstdint>
#include <initializer_list>
#include <utility>

using namespace fuse_rt;

// The checks of a sort's dtypes, order and count that need no device; sets
// the key size and the value size (0: keys alone).
static fuse_status_t checkSortKinds(fuse_dtype_t keyDtype, bool pairs,
                                    fuse_dtype_t valueDtype,
                                    fuse_sort_order_t order, int64_t n,
                                    const char *api, size_t &ks, size_t &vs) {
  ks = dtypeSize(keyDtype);
  if (ks == 0)
    return fail(FUSE_ERROR_INVALID_ARGUMENT, "%s: unknown key dtype %d", api,
                static_cast<int>(keyDtype));
  vs = pairs ? dtypeSize(valueDtype) : 0;
  if (pairs && vs == 0)
    return fail(FUSE_ERROR_INVALID_ARGUMENT, "%s: unknown value dtype %d", api,
                static_cast<int>(valueDtype));
  if (order != FUSE_SORT_ASCENDING && order != FUSE_SORT_DESCENDING)
    return fail(FUSE_ERROR_INVALID_ARGUMENT,
                "%s: unknown sort order %d (FUSE_SORT_ASCENDING is 0, "
                "FUSE_SORT_DESCENDING 1)",
                api, static_cast<int>(order));
  if (fuse_status_t s = checkCount(n, api))
    return s;
  // Byte counts of keys, values and CUB's copies of them fit in 64 bits.
  if (n > (INT64_MAX >> 5))
    return fail(FUSE_ERROR_INVALID_ARGUMENT,
                "%s: n = %lld elements is too large to sort", api,
                static_cast<long long>(n));
  return FUSE_SUCCESS;
}

// The buffers of a sort of n > 0 elements: non-NULL and aligned to their
// element sizes; values_in and values_out both given or both NULL (keys
// alone, vs == 0).
static fuse_status_t checkSortPointers(const void *keys_in,
                                       const void *keys_out,
                                       const void *values_in,
                                       const void *values_out, size_t ks,
                                       size_t vs, const char *api) {
  if (fuse_status_t s = checkPointer(keys_in, ks, api, "keys_in"))
    return s;
  if (fuse_status_t s = checkPointer(keys_out, ks, api, "keys_out"))
    return s;
  if (vs == 0)
    return FUSE_SUCCESS;
  if (!values_in || !values_out)
    return fail(FUSE_ERROR_INVALID_ARGUMENT,
                "%s: %s is NULL but %s is not (both NULL sort the keys "
                "alone)",
                api, values_in ? "values_out" : "values_in",
                values_in ? "values_in" : "values_out");
  if (fuse_status_t s = checkPointer(values_in, vs, api, "values_in"))
    return s;
  return checkPointer(values_out, vs, api, "values_out");
}

// A buffer an out-of-place sort reads or writes, for checkDisjoint.
struct ByteRange {
  const void *p;
  size_t bytes;
  const char *name;
};

// FUSE_ERROR_INVALID_ARGUMENT naming the first of `pairs` whose buffers
// overlap (CUB reads the inputs while it writes the outputs and its
// temporaries, in several passes), with `hint` after the reason.
static fuse_status_t
checkDisjoint(const char *api, const char *hint,
              std::initializer_list<std::pair<ByteRange, ByteRange>> pairs) {
  for (const auto &[a, b] : pairs)
    if (overlaps(a.p, a.bytes, b.p, b.bytes))
      return fail(FUSE_ERROR_INVALID_ARGUMENT,
                  "%s: %s [%p, +%zu bytes) overlaps %s [%p, +%zu bytes); the "
                  "sort is out of place%s",
                  api, a.name, a.p, a.bytes, b.name, b.p, b.bytes, hint);
  return FUSE_SUCCESS;
}

// The start of a size query (fuse_sort_temp_bytes, fuse_argsort_temp_bytes):
// `bytes` must be given, and is 0 until the answer.
static fuse_status_t startSizeQuery(size_t *bytes, const char *api) {
  clearError();
  if (!bytes)
    return fail(FUSE_ERROR_INVALID_ARGUMENT, "%s: bytes is NULL", api);
  *bytes = 0;
  return FUSE_SUCCESS;
}

// The caller's temporary storage of a sort of n elements: non-NULL and at
// least `need` bytes, the answer of `query` (the messages name both).
static fuse_status_t checkTempStorage(const void *temp, size_t tempBytes,
                                      size_t need, int64_t n, const char *api,
                                      const char *query) {
  if (!temp)
    return fail(FUSE_ERROR_INVALID_ARGUMENT,
                "%s: temp is NULL; sorting %lld elements needs %zu bytes of "
                "temporary storage (%s)",
                api, static_cast<long long>(n), need, query);
  if (tempBytes < need)
    return fail(FUSE_ERROR_INVALID_ARGUMENT,
                "%s: temp_bytes is %zu but sorting %lld elements needs %zu "
                "bytes of temporary storage (%s)",
                api, tempBytes, static_cast<long long>(n), need, query);
  return FUSE_SUCCESS;
}

// Sorts with temporary storage from the caching allocator (fuse_sort).
static fuse_status_t sortAllocating(const SortArgs &a) {
  size_t bytes = 0;
  if (fuse_status_t s = radixSort(a, nullptr, bytes))
    return s;
  TempBuffer temp(a.stream);
  if (fuse_status_t s = temp.allocate(bytes ? bytes : 1, a.api))
    return s;
  if (fuse_status_t s = radixSort(a, temp.get(), bytes))
    return s;
  return afterLaunch(a.stream, a.api, "cub::DeviceRadixSort");
}

FUSE_API fuse_status_t fuse_sort(fuse_dtype_t key_dtype, const void *keys_in,
                                 void *keys_out, fuse_dtype_t value_dtype,
                                 const void *values_in, void *values_out,
                                 int64_t n, fuse_stream_t stream) {
  const char *api = "fuse_sort";
  if (fuse_status_t s = enter(api))
    return s;
  bool pairs = values_in != nullptr || values_out != nullptr;
  size_t ks = 0, vs = 0;
  if (fuse_status_t s = checkSortKinds(key_dtype, pairs, value_dtype,
                                       FUSE_SORT_ASCENDING, n, api, ks, vs))
    return s;
  if (n == 0)
    return FUSE_SUCCESS;
  if (fuse_status_t s = checkSortPointers(keys_in, keys_out, values_in,
                                          values_out, ks, vs, api))
    return s;
  cudaStream_t st = toStream(stream);
  size_t kb = static_cast<size_t>(n) * ks, vb = static_cast<size_t>(n) * vs;
  // Overlapping buffers: sort into temporaries, then copy back.
  bool alias = overlaps(keys_in, kb, keys_out, kb) ||
               (pairs && (overlaps(values_in, vb, values_out, vb) ||
                          overlaps(keys_in, kb, values_out, vb) ||
                          overlaps(values_in, vb, keys_out, kb) ||
                          overlaps(keys_out, kb, values_out, vb)));
  if (pairs && overlaps(keys_out, kb, values_out, vb))
    return fail(FUSE_ERROR_INVALID_ARGUMENT,
                "%s: keys_out and values_out overlap", api);
  TempBuffer tk(st), tv(st);
  void *ko = keys_out, *vo = values_out;
  if (alias) {
    if (fuse_status_t s = tk.allocate(kb, api))
      return s;
    ko = tk.get();
    if (pairs) {
      if (fuse_status_t s = tv.allocate(vb, api))
        return s;
      vo = tv.get();
    }
  }
  SortArgs a{key_dtype, false, keys_in, ko, vs, values_in, vo, n, st, api};
  fuse_status_t s = sortAllocating(a);
  if (s != FUSE_SUCCESS || !alias)
    return s;
  cudaError_t err =
      cudaMemcpyAsync(keys_out, ko, kb, cudaMemcpyDeviceToDevice, st);
  if (err == cudaSuccess && pairs)
    err = cudaMemcpyAsync(values_out, vo, vb, cudaMemcpyDeviceToDevice, st);
  if (err != cudaSuccess)
    return cudaFail(err, api, "cudaMemcpyAsync of the in-place result");
  return FUSE_SUCCESS;
}

FUSE_API fuse_status_t fuse_sort_temp_bytes(fuse_dtype_t key_dtype,
                                            fuse_dtype_t value_dtype,
                                            int has_values, int64_t n,
                                            fuse_sort_order_t order,
                                            size_t *bytes) {
  const char *api = "fuse_sort_temp_bytes";
  // The arguments are checked before the device is touched (even before
  // fuse_init): they need none.
  if (fuse_status_t s = startSizeQuery(bytes, api))
    return s;
  size_t ks = 0, vs = 0;
  if (fuse_status_t s = checkSortKinds(key_dtype, has_values != 0, value_dtype,
                                       order, n, api, ks, vs))
    return s;
  if (fuse_status_t s = enter(api))
    return s;
  if (n == 0) // fuse_sort_ws does nothing
    return FUSE_SUCCESS;
  // CUB's size query: host arithmetic on n and the types (legal during a
  // stream capture); the pointers are not read.
  SortArgs a{key_dtype, order == FUSE_SORT_DESCENDING, nullptr, nullptr, vs,
             nullptr,   nullptr, n, cudaStreamPerThread, api};
  size_t need = 0;
  if (fuse_status_t s = radixSort(a, nullptr, need))
    return s;
  *bytes = need;
  return FUSE_SUCCESS;
}

FUSE_API fuse_status_t fuse_sort_ws(fuse_dtype_t key_dtype,
                                    fuse_sort_order_t order,
                                    const void *keys_in, void *keys_out,
                                    fuse_dtype_t value_dtype,
                                    const void *values_in, void *values_out,
                                    int64_t n, void *temp, size_t temp_bytes,
                                    fuse_stream_t stream) {
  const char *api = "fuse_sort_ws";
  if (fuse_status_t s = enter(api))
    return s;
  bool pairs = values_in != nullptr || values_out != nullptr;
  size_t ks = 0, vs = 0;
  if (fuse_status_t s =
          checkSortKinds(key_dtype, pairs, value_dtype, order, n, api, ks, vs))
    return s;
  if (n == 0)
    return FUSE_SUCCESS;
  if (fuse_status_t s = checkSortPointers(keys_in, keys_out, values_in,
                                          values_out, ks, vs, api))
    return s;
  cudaStream_t st = toStream(stream);
  SortArgs a{key_dtype, order == FUSE_SORT_DESCENDING, keys_in, keys_out, vs,
             values_in, values_out, n, st, api};
  size_t need = 0;
  if (fuse_status_t s = radixSort(a, nullptr, need))
    return s;
  if (fuse_status_t s = checkTempStorage(temp, temp_bytes, need, n, api,
                                         "fuse_sort_temp_bytes"))
    return s;
  // CUB reads the inputs while it writes the outputs and its temporaries
  // (the part of temp it uses: the first `need` bytes), in several passes:
  // no output may overlap any other buffer.
  size_t kb = static_cast<size_t>(n) * ks, vb = static_cast<size_t>(n) * vs;
  const ByteRange keysOut{keys_out, kb, "keys_out"},
      valuesOut{values_out, vb, "values_out"}, tempR{temp, need, "temp"},
      keysIn{keys_in, kb, "keys_in"}, valuesIn{values_in, vb, "values_in"};
  if (fuse_status_t s = checkDisjoint(
          api, " (fuse_sort sorts in place)",
          {{keysOut, keysIn},
           {valuesOut, valuesIn},
           {keysOut, valuesOut},
           {keysOut, valuesIn},
           {valuesOut, keysIn},
           {tempR, keysOut},
           {tempR, valuesOut},
           {tempR, keysIn},
           {tempR, valuesIn}}))
    return s;
  if (fuse_status_t s = radixSort(a, temp, temp_bytes))
    return s;
  return afterLaunch(st, api, "cub::DeviceRadixSort");
}

// The temporary storage of fuse_argsort_ws for n > 0 elements, from a base
// aligned to 256 bytes (up to 255 bytes of the caller's storage skipped):
// the positions CUB reads, below 2^31 elements also the 4-byte positions it
// writes (widened into the caller's int64 array at the end), then CUB's own
// storage, each part starting on a 256-byte boundary.
namespace {
struct ArgsortLayout {
  bool narrow = true;
  /// Offsets from the aligned base (the positions CUB reads are at 0).
  size_t posOut = 0, cub = 0;
  size_t cubBytes = 0, total = 0;
};
} // namespace

static size_t alignUp(size_t v) { return (v + 255) & ~size_t(255); }

static fuse_status_t argsortLayout(fuse_dtype_t keyDtype, bool descending,
                                   int64_t n, const char *api,
                                   ArgsortLayout &l) {
  l.narrow = n <= INT32_MAX;
  size_t width = l.narrow ? 4 : 8;
  size_t posBytes = alignUp(static_cast<size_t>(n) * width);
  l.posOut = posBytes;
  l.cub = l.narrow ? 2 * posBytes : posBytes;
  SortArgs a{
      keyDtype, descending,          nullptr, nullptr, width, nullptr, nullptr,
      n,        cudaStreamPerThread, api};
  if (fuse_status_t s = radixSort(a, nullptr, l.cubBytes))
    return s;
  l.total = 255 + l.cub + l.cubBytes;
  return FUSE_SUCCESS;
}

FUSE_API fuse_status_t fuse_argsort_temp_bytes(fuse_dtype_t key_dtype,
                                               int64_t n,
                                               fuse_sort_order_t order,
                                               size_t *bytes) {
  const char *api = "fuse_argsort_temp_bytes";
  if (fuse_status_t s = startSizeQuery(bytes, api))
    return s;
  size_t ks = 0, vs = 0;
  if (fuse_status_t s =
          checkSortKinds(key_dtype, true, FUSE_I64, order, n, api, ks, vs))
    return s;
  if (fuse_status_t s = enter(api))
    return s;
  if (n == 0)
    return FUSE_SUCCESS;
  ArgsortLayout l;
  if (fuse_status_t s =
          argsortLayout(key_dtype, order == FUSE_SORT_DESCENDING, n, api, l))
    return s;
  *bytes = l.total;
  return FUSE_SUCCESS;
}

FUSE_API fuse_status_t fuse_argsort_ws(fuse_dtype_t key_dtype,
                                       fuse_sort_order_t order,
                                       const void *keys_in, void *keys_out,
                                       int64_t *positions_out, int64_t n,
                                       void *temp, size_t temp_bytes,
                                       fuse_stream_t stream) {
  const char *api = "fuse_argsort_ws";
  if (fuse_status_t s = enter(api))
    return s;
  size_t ks = 0, vs = 0;
  if (fuse_status_t s =
          checkSortKinds(key_dtype, true, FUSE_I64, order, n, api, ks, vs))
    return s;
  if (n == 0)
    return FUSE_SUCCESS;
  if (fuse_status_t s = checkPointer(keys_in, ks, api, "keys_in"))
    return s;
  if (fuse_status_t s = checkPointer(keys_out, ks, api, "keys_out"))
    return s;
  if (fuse_status_t s = checkPointer(positions_out, 8, api, "positions_out"))
    return s;
  bool descending = order == FUSE_SORT_DESCENDING;
  ArgsortLayout l;
  if (fuse_status_t s = argsortLayout(key_dtype, descending, n, api, l))
    return s;
  if (fuse_status_t s = checkTempStorage(temp, temp_bytes, l.total, n, api,
                                         "fuse_argsort_temp_bytes"))
    return s;
  size_t kb = static_cast<size_t>(n) * ks, pb = static_cast<size_t>(n) * 8;
  const ByteRange keysOut{keys_out, kb, "keys_out"},
      posOut{positions_out, pb, "positions_out"},
      keysIn{keys_in, kb, "keys_in"}, tempR{temp, l.total, "temp"};
  if (fuse_status_t s = checkDisjoint(api, "",
                                      {{keysOut, keysIn},
                                       {posOut, keysIn},
                                       {keysOut, posOut},
                                       {tempR, keysOut},
                                       {tempR, posOut},
                                       {tempR, keysIn}}))
    return s;
  cudaStream_t st = toStream(stream);
  char *base =
      reinterpret_cast<char *>(alignUp(reinterpret_cast<uintptr_t>(temp)));
  void *posIn = base;
  void *posSorted = l.narrow ? static_cast<void *>(base + l.posOut)
                             : static_cast<void *>(positions_out);
  if (fuse_status_t s = launchPositions(posIn, !l.narrow, n, st, api))
    return s;
  SortArgs a{key_dtype, descending, keys_in, keys_out, l.narrow ? 4u : 8u,
             posIn,     posSorted,  n,       st,       api};
  size_t cubBytes = l.cubBytes;
  if (fuse_status_t s = radixSort(a, base + l.cub, cubBytes))
    return s;
  if (fuse_status_t s = afterLaunch(st, api, "cub::DeviceRadixSort"))
    return s;
  if (!l.narrow)
    return FUSE_SUCCESS;
  return launchWidenPositions(static_cast<const uint32_t *>(posSorted),
                              positions_out, n, st, api);
}
