//===- allocator.cpp - the caching device allocator -----------------------===//
//
// Blocks are rounded up to a size class (512 B minimum; above that, four
// classes per power of two, so at most 25% is wasted) and, when freed, kept
// in a free list keyed by (stream, size class). A block is reused only by an
// allocation on the stream it was freed on: stream order then guarantees
// that earlier work using the block has finished, with no event or sync.
// The per-thread default stream is a different stream in each thread, so
// its key includes the thread.
//
// When cudaMalloc runs out of memory, the allocator synchronises the
// device, returns every cached block to CUDA and retries once.
//
// On a stream being captured into a CUDA graph, the cache is bypassed: a
// cached block's address would be baked into the graph while later eager
// calls reuse the block, and cudaMalloc/cudaFree are not permitted during
// capture. Such allocations are stream-ordered (cudaMallocAsync and
// cudaFreeAsync), which the capture records as the graph's own memory
// nodes: each replay allocates and frees them in stream order, on the
// device, with no host work.
// FUSE_ALLOCATOR=direct makes every call a cudaMalloc/cudaFree (for
// compute-sanitizer, whose checks a pool would hide).
//
//===----------------------------------------------------------------------===//
#include "internal.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace fuse_rt {
namespace {

struct Key {
  cudaStream_t stream;
  uint64_t thread; // nonzero only for the per-thread default stream
  size_t size;
  bool operator<(const Key &o) const {
    if (stream != o.stream)
      return stream < o.stream;
    if (thread != o.thread)
      return thread < o.thread;
    return size < o.size;
  }
};

struct Block {
  size_t size;
};

std::mutex mutex;
bool direct = false;
std::map<Key, std::vector<void *>> freeLists;
std::unordered_map<void *, Block> live;
// Blocks allocated on a capturing stream (freed with cudaFreeAsync).
std::unordered_map<void *, size_t> streamOrdered;
size_t cachedBytes = 0, liveBytes = 0;
uint64_t hits = 0, misses = 0;

std::atomic<uint64_t> nextThreadId{1};
thread_local uint64_t threadId = 0;

uint64_t threadKey(cudaStream_t stream) {
  if (stream != cudaStreamPerThread)
    return 0;
  if (!threadId)
    threadId = nextThreadId.fetch_add(1);
  return threadId;
}

size_t sizeClass(size_t bytes) {
  if (bytes <= 512)
    return 512;
  int k = 63 - __builtin_clzll(static_cast<unsigned long long>(bytes - 1));
  size_t step = size_t(1) << (k - 2); // 4 classes per power of two
  return (bytes + step - 1) / step * step;
}

// Returns every cached block to CUDA. Caller holds the mutex.
cudaError_t trimLocked() {
  if (cachedBytes == 0)
    return cudaSuccess;
  // Cached blocks may still be read by queued work on their streams.
  cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess)
    return err;
  for (auto &kv : freeLists)
    for (void *p : kv.second) {
      cudaError_t e = cudaFree(p);
      if (e != cudaSuccess && err == cudaSuccess)
        err = e;
    }
  freeLists.clear();
  cachedBytes = 0;
  return err;
}

} // namespace

fuse_status_t allocatorInit(const char *api) {
  const char *mode = std::getenv("FUSE_ALLOCATOR");
  std::lock_guard<std::mutex> lock(mutex);
  if (!mode || !*mode || std::strcmp(mode, "caching") == 0) {
    direct = false;
  } else if (std::strcmp(mode, "direct") == 0) {
    direct = true;
  } else {
    return fail(FUSE_ERROR_INVALID_ARGUMENT,
                "%s: FUSE_ALLOCATOR=%s is not one of 'caching' (the default) "
                "or 'direct'",
                api, mode);
  }
  return FUSE_SUCCESS;
}

// A stream-ordered allocation recorded into the capture on `stream`.
fuse_status_t allocateCaptured(void **ptr, size_t bytes, cudaStream_t stream,
                               const char *api) {
  void *p = nullptr;
  cudaError_t err = cudaMallocAsync(&p, bytes, stream);
  if (err != cudaSuccess)
    return cudaFail(err, api, "cudaMallocAsync during stream capture");
  std::lock_guard<std::mutex> lock(mutex);
  streamOrdered[p] = bytes;
  liveBytes += bytes;
  *ptr = p;
  return FUSE_SUCCESS;
}

fuse_status_t allocate(void **ptr, size_t bytes, cudaStream_t stream,
                       const char *api) {
  *ptr = nullptr;
  bool capturing = false;
  if (fuse_status_t s = captureState(stream, api, capturing))
    return s;
  if (capturing)
    return allocateCaptured(ptr, bytes, stream, api);
  std::lock_guard<std::mutex> lock(mutex);
  size_t size = direct ? bytes : sizeClass(bytes);
  Key key{stream, threadKey(stream), size};
  if (!direct) {
    auto it = freeLists.find(key);
    if (it != freeLists.end() && !it->second.empty()) {
      *ptr = it->second.back();
      it->second.pop_back();
      cachedBytes -= size;
      live[*ptr] = Block{size};
      liveBytes += size;
      ++hits;
      return FUSE_SUCCESS;
    }
  }
  ++misses;
  void *p = nullptr;
  cudaError_t err = cudaMalloc(&p, size);
  if (err == cudaErrorMemoryAllocation && cachedBytes) {
    (void)cudaGetLastError();
    cudaError_t terr = trimLocked();
    if (terr != cudaSuccess)
      return cudaFail(terr, api, "returning cached blocks after out of memory");
    err = cudaMalloc(&p, size);
  }
  if (err != cudaSuccess) {
    fuse_status_t s = cudaFail(err, api, "cudaMalloc");
    if (err == cudaErrorMemoryAllocation) {
      size_t freeMem = 0, total = 0;
      (void)cudaMemGetInfo(&freeMem, &total);
      (void)cudaGetLastError();
      return fail(s,
                  "%s: out of device memory allocating %zu bytes (%zu free of "
                  "%zu; %zu in use through fuse_malloc): cudaMalloc failed: "
                  "cudaErrorMemoryAllocation",
                  api, size, freeMem, total, liveBytes);
    }
    return s;
  }
  live[p] = Block{size};
  liveBytes += size;
  *ptr = p;
  return FUSE_SUCCESS;
}

fuse_status_t deallocate(void *ptr, cudaStream_t stream, const char *api) {
  std::unique_lock<std::mutex> lock(mutex);
  if (auto so = streamOrdered.find(ptr); so != streamOrdered.end()) {
    // Inside the capture this records the graph's free node; after it, it
    // frees the graph's allocation in stream order.
    size_t bytes = so->second;
    streamOrdered.erase(so);
    liveBytes -= bytes;
    lock.unlock();
    cudaError_t err = cudaFreeAsync(ptr, stream);
    if (err != cudaSuccess)
      return cudaFail(err, api, "cudaFreeAsync of a stream-ordered block");
    return FUSE_SUCCESS;
  }
  auto it = live.find(ptr);
  if (it == live.end())
    return fail(FUSE_ERROR_INVALID_ARGUMENT,
                "%s: %p was not returned by fuse_malloc or is already freed",
                api, ptr);
  size_t size = it->second.size;
  // Freeing an eager block inside a capture would hand it to later eager
  // calls while the graph may still use it at every replay.
  bool capturing = false;
  if (fuse_status_t s = captureState(stream, api, capturing))
    return s;
  if (capturing)
    return fail(FUSE_ERROR_NOT_PERMITTED,
                "%s: %p was allocated outside the stream capture now under "
                "way and cannot be freed inside it; free it after the capture "
                "ends",
                api, ptr);
  if (direct) {
    (void)cudaGetLastError();
    cudaError_t err = cudaFree(ptr);
    if (err != cudaSuccess)
      return cudaFail(err, api, "cudaFree");
  } else {
    freeLists[Key{stream, threadKey(stream), size}].push_back(ptr);
    cachedBytes += size;
  }
  live.erase(it);
  liveBytes -= size;
  return FUSE_SUCCESS;
}

void releaseStream(cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(mutex);
  for (auto it = freeLists.begin(); it != freeLists.end();) {
    if (it->first.stream == stream) {
      for (void *p : it->second) {
        (void)cudaFree(p);
        cachedBytes -= it->first.size;
      }
      it = freeLists.erase(it);
    } else {
      ++it;
    }
  }
}

fuse_status_t trim(const char *api) {
  std::lock_guard<std::mutex> lock(mutex);
  cudaError_t err = trimLocked();
  if (err != cudaSuccess)
    return cudaFail(err, api, "returning cached blocks");
  return FUSE_SUCCESS;
}

void stats(size_t *cached, size_t *inUse, uint64_t *h, uint64_t *m) {
  std::lock_guard<std::mutex> lock(mutex);
  *cached = cachedBytes;
  *inUse = liveBytes;
  *h = hits;
  *m = misses;
}

} // namespace fuse_rt

using namespace fuse_rt;

FUSE_API fuse_status_t fuse_allocator_trim(void) {
  const char *api = "fuse_allocator_trim";
  if (fuse_status_t s = enter(api))
    return s;
  return trim(api);
}

FUSE_API fuse_status_t fuse_allocator_stats(size_t *cached_bytes,
                                            size_t *live_bytes,
                                            uint64_t *hits_out,
                                            uint64_t *misses_out) {
  const char *api = "fuse_allocator_stats";
  if (fuse_status_t s = enter(api))
    return s;
  if (!cached_bytes || !live_bytes || !hits_out || !misses_out)
    return fail(FUSE_ERROR_INVALID_ARGUMENT, "%s: an output pointer is NULL",
                api);
  stats(cached_bytes, live_bytes, hits_out, misses_out);
  return FUSE_SUCCESS;
}
