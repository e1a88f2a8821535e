//===- Shards.cpp - fuse-run --shards: N shards on CPU threads ------------===//

#include "Shards.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

using namespace fuse;
using namespace fuse::run;

namespace {

/// The shards of one run: a barrier and each shard's buffer to gather.
struct Group {
  unsigned count = 1;
  std::mutex mutex;
  std::condition_variable cv;
  unsigned arrived = 0;
  uint64_t generation = 0;
  std::vector<const void *> send;
  std::vector<int64_t> bytes;

  /// Waits until every shard has called it (once each, per round).
  void barrier(std::unique_lock<std::mutex> &lock) {
    uint64_t gen = generation;
    if (++arrived == count) {
      arrived = 0;
      ++generation;
      cv.notify_all();
      return;
    }
    cv.wait(lock, [&] { return generation != gen; });
  }
};

Group *group = nullptr;
thread_local unsigned myRank = 0;

extern "C" int64_t fuse_shard_rank() { return group ? myRank : 0; }
extern "C" int64_t fuse_shard_count() { return group ? group->count : 1; }

/// Copies every shard's `bytes` bytes (each its own count) into `recv`
/// one after the other, shard 0 first; returns once every shard has
/// copied. With `sameSize`, the name of a collective whose shards must
/// all pass one count (an error otherwise).
void concatShards(const void *send, int64_t bytes, void *recv,
                  const char *sameSize) {
  if (!group) {
    if (bytes)
      std::memcpy(recv, send, size_t(bytes));
    return;
  }
  std::unique_lock<std::mutex> lock(group->mutex);
  group->send[myRank] = send;
  group->bytes[myRank] = bytes;
  group->barrier(lock);
  for (unsigned r = 0; sameSize && r < group->count; ++r)
    if (group->bytes[r] != bytes)
      fail(std::string(sameSize) + ": shard " + std::to_string(r) + " passed " +
           std::to_string(group->bytes[r]) + " bytes but shard " +
           std::to_string(myRank) + " passed " + std::to_string(bytes) +
           " (every shard gathers a value of one "
           "shape)");
  lock.unlock();
  size_t at = 0;
  for (unsigned r = 0; r < group->count; ++r) {
    if (group->bytes[r])
      std::memcpy(static_cast<uint8_t *>(recv) + at, group->send[r],
                  size_t(group->bytes[r]));
    at += size_t(group->bytes[r]);
  }
  // Nobody returns (and frees or reuses its buffer) before all have read.
  lock.lock();
  group->barrier(lock);
}

extern "C" void fuse_shard_all_gather(const void *send, int64_t bytes,
                                      void *recv) {
  concatShards(send, bytes, recv, "fuse.all_gather");
}

extern "C" int64_t fuse_shard_all_concat_size(int64_t rows) {
  if (!group)
    return rows;
  std::unique_lock<std::mutex> lock(group->mutex);
  group->bytes[myRank] = rows;
  group->barrier(lock);
  int64_t total = 0;
  for (unsigned r = 0; r < group->count; ++r)
    total += group->bytes[r];
  // Nobody reuses the slots before all have summed them.
  group->barrier(lock);
  return total;
}

extern "C" void fuse_shard_all_concat(const void *send, int64_t bytes,
                                      void *recv) {
  concatShards(send, bytes, recv, nullptr);
}

} // namespace

llvm::orc::SymbolMap shards::symbols(llvm::orc::MangleAndInterner interner) {
  llvm::orc::SymbolMap map;
  auto add = [&](const char *name, auto *fn) {
    map[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(fn),
                           llvm::JITSymbolFlags::Exported};
  };
  add("fuse_shard_rank", &fuse_shard_rank);
  add("fuse_shard_count", &fuse_shard_count);
  add("fuse_shard_all_gather", &fuse_shard_all_gather);
  add("fuse_shard_all_concat_size", &fuse_shard_all_concat_size);
  add("fuse_shard_all_concat", &fuse_shard_all_concat);
  return map;
}

HostArray shards::part(const HostArray &a, unsigned r, unsigned n) {
  HostArray p = a;
  int64_t rows = a.shape.at(0);
  int64_t lo = rows * int64_t(r) / int64_t(n);
  int64_t hi = rows * int64_t(r + 1) / int64_t(n);
  size_t rowBytes = rows ? a.data.size() / size_t(rows) : 0;
  p.shape[0] = hi - lo;
  p.data.assign(a.data.begin() + lo * rowBytes, a.data.begin() + hi * rowBytes);
  return p;
}

void shards::setSize(HostArray &a, int64_t size) {
  storeInt(a.elem, size, a.data.data());
}

void shards::runAll(unsigned n, llvm::function_ref<void(unsigned)> body) {
  Group g;
  g.count = n;
  g.send.assign(n, nullptr);
  g.bytes.assign(n, 0);
  group = &g;
  std::vector<std::thread> threads;
  for (unsigned r = 0; r < n; ++r)
    threads.emplace_back([&, r] {
      myRank = r;
      body(r);
    });
  for (std::thread &t : threads)
    t.join();
  group = nullptr;
}

std::vector<HostArray>
shards::join(const std::vector<std::vector<HostArray>> &perShard,
             llvm::ArrayRef<bool> split) {
  std::vector<HostArray> out;
  for (size_t i = 0; i < split.size(); ++i) {
    HostArray joined = perShard[0][i];
    for (size_t r = 1; r < perShard.size(); ++r) {
      const HostArray &a = perShard[r][i];
      std::string what =
          "result #" + std::to_string(i) + " of shard " + std::to_string(r);
      if (!split[i]) {
        if (a.shape != joined.shape || a.data != joined.data)
          fail(what + " differs from shard 0's; it is not split, so every "
                      "shard must compute the same value");
        continue;
      }
      if (std::vector<int64_t>(a.shape.begin() + 1, a.shape.end()) !=
          std::vector<int64_t>(joined.shape.begin() + 1, joined.shape.end()))
        fail(what + " has rows of another shape than shard 0's");
      joined.shape[0] += a.shape[0];
      joined.data.insert(joined.data.end(), a.data.begin(), a.data.end());
    }
    out.push_back(std::move(joined));
  }
  return out;
}

/// A float type's relative tolerance against the largest magnitude of a
/// result: reductions of the shards' parts associate differently.
static double tolerance(Elem e) {
  switch (e) {
  case Elem::F64:
    return 1e-12;
  case Elem::F32:
    return 1e-4;
  case Elem::F16:
    return 1e-2;
  default:
    return 5e-2; // bf16
  }
}

std::string shards::compare(const std::vector<HostArray> &sharded,
                            const std::vector<HostArray> &whole,
                            llvm::ArrayRef<bool> split, unsigned n) {
  std::string out;
  llvm::raw_string_ostream os(out);
  for (size_t i = 0; i < whole.size(); ++i) {
    const HostArray &a = sharded[i], &b = whole[i];
    std::string what = "result #" + std::to_string(i);
    if (a.shape != b.shape)
      fail(what + " of the run on " + std::to_string(n) +
           " shards has another shape than the unsharded run's");
    unsigned w = widthOf(b.elem);
    int64_t count = b.numElements();
    double worst = 0;
    if (isFloat(b.elem)) {
      double scale = 0;
      for (int64_t k = 0; k < count; ++k)
        if (std::isfinite(loadFloat(b.elem, &b.data[k * w])))
          scale = std::max(scale, std::fabs(loadFloat(b.elem, &b.data[k * w])));
      double tol = tolerance(b.elem) * std::max(scale, 1e-30);
      for (int64_t k = 0; k < count; ++k) {
        double x = loadFloat(a.elem, &a.data[k * w]);
        double y = loadFloat(b.elem, &b.data[k * w]);
        if ((std::isnan(x) && std::isnan(y)) || x == y)
          continue;
        double d = std::fabs(x - y);
        if (!(d <= tol))
          fail(what + " of the run on " + std::to_string(n) +
               " shards differs from the unsharded run's at element " +
               std::to_string(k) + ": " + std::to_string(x) + " against " +
               std::to_string(y));
        worst = std::max(worst, d / std::max(scale, 1e-30));
      }
    } else if (a.data != b.data) {
      for (int64_t k = 0; k < count; ++k)
        if (loadInt(a.elem, &a.data[k * w]) != loadInt(b.elem, &b.data[k * w]))
          fail(what + " of the run on " + std::to_string(n) +
               " shards differs from the unsharded run's at element " +
               std::to_string(k) + ": " +
               std::to_string(loadInt(a.elem, &a.data[k * w])) + " against " +
               std::to_string(loadInt(b.elem, &b.data[k * w])));
    }
    os << what << ": " << (split[i] ? "split" : "the same on every shard")
       << ", matches the unsharded run";
    if (isFloat(b.elem))
      os << " (largest difference " << llvm::format("%.3g", worst)
         << " of its largest magnitude)";
    os << "\n";
  }
  return out;
}
