//===- AOTGraph.cpp - fuse-run-aot --graph --------------------------------===//
//
// See AOTGraph.h. Each form is captured on a stream of its own, so that a
// form refused under capture leaves nothing behind for the next.
//
//===----------------------------------------------------------------------===//

#include "AOTGraph.h"

#include <chrono>
#include <cstdio>

namespace fuse {
namespace run {
namespace {

/// The replay's results against the eager call's: counts first (read from
/// the device where the form keeps them there), then every byte.
void compare(const GraphForm &form, const GraphRun &run, fuse_stream_t s) {
  for (size_t i = 0; i < run.eager.size(); ++i) {
    const HostArray &want = run.eager[i];
    std::string what = form.symbol + ": result #" + std::to_string(i);
    if (run.filter[i] && i < form.deviceCounts.size() &&
        form.deviceCounts[i]) {
      int64_t count = -1;
      check(fuse_memcpy_dtoh(&count, form.deviceCounts[i], 8, s),
            "fuse_memcpy_dtoh (count)");
      if (count != want.shape[0])
        fail(what + ": the replay kept " + std::to_string(count) +
             " elements, the eager call " + std::to_string(want.shape[0]));
    }
    std::vector<uint8_t> got(want.data.size());
    if (!got.empty())
      check(fuse_memcpy_dtoh(got.data(), run.devOut[i], got.size(), s),
            "fuse_memcpy_dtoh (" + what + ")");
    if (got != want.data)
      fail(what + ": the graph replay differs from the eager call");
  }
}

double perCall(const std::function<fuse_status_t()> &one, unsigned repeat,
               fuse_stream_t s, const std::string &what) {
  auto t0 = std::chrono::steady_clock::now();
  for (unsigned r = 0; r < repeat; ++r)
    check(one(), what + " (timed)");
  check(fuse_stream_synchronize(s), "fuse_stream_synchronize");
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(t1 - t0).count() / repeat;
}

/// Captures, replays and checks one form; false when it cannot be
/// captured (the reason printed).
bool runForm(const GraphForm &form, const GraphRun &run) {
  fuse_stream_t s = nullptr;
  check(fuse_stream_create(&s), "fuse_stream_create");
  *run.stream = s;
  // The capture and the replay take nothing from cudaMalloc or the cache,
  // and leave no block live (a synchronisation would have been refused).
  size_t cached0, live0, cached1, live1;
  uint64_t hits0, misses0, hits1, misses1;
  check(fuse_allocator_stats(&cached0, &live0, &hits0, &misses0),
        "fuse_allocator_stats");
  check(fuse_graph_begin(s), "fuse_graph_begin");
  fuse_status_t st = form.call();
  std::string message = st == FUSE_SUCCESS ? "" : fuse_last_error_message();
  fuse_graph_t g = nullptr;
  fuse_status_t endStatus = fuse_graph_end(s, &g);
  if (st != FUSE_SUCCESS) {
    std::printf("graph: %s cannot be captured: %s: %s\n", form.symbol.c_str(),
                fuse_status_name(st), message.c_str());
    check(fuse_graph_destroy(g), "fuse_graph_destroy");
    check(fuse_stream_destroy(s), "fuse_stream_destroy");
    *run.stream = nullptr;
    return false;
  }
  check(endStatus, "fuse_graph_end");
  for (size_t i = 0; i < run.devOut.size(); ++i)
    check(fuse_memset(run.devOut[i], 0, run.outBytes[i], s), "fuse_memset");
  for (int64_t *c : form.deviceCounts)
    if (c)
      check(fuse_memset(c, 0xff, 8, s), "fuse_memset");
  check(fuse_graph_launch(g, s), "fuse_graph_launch");
  check(fuse_stream_synchronize(s), "fuse_stream_synchronize");
  check(fuse_allocator_stats(&cached1, &live1, &hits1, &misses1),
        "fuse_allocator_stats");
  if (misses1 != misses0 || hits1 != hits0 || live1 != live0)
    fail(form.symbol + ": the capture and replay used the allocator (" +
         std::to_string(misses1 - misses0) + " cudaMalloc, " +
         std::to_string(hits1 - hits0) + " cache hits, live bytes " +
         std::to_string(live0) + " -> " + std::to_string(live1) + ")");
  compare(form, run, s);
  size_t nodes = 0;
  check(fuse_graph_nodes(g, &nodes), "fuse_graph_nodes");
  std::printf("graph: %s: %zu nodes; the replay matches the eager call bit "
              "for bit\n",
              form.symbol.c_str(), nodes);
  if (run.repeat > 0) {
    perCall(form.call, run.repeat, s, form.symbol); // warm this stream
    double eagerUs = perCall(form.call, run.repeat, s, form.symbol);
    double graphUs = perCall([&] { return fuse_graph_launch(g, s); },
                             run.repeat, s, "fuse_graph_launch");
    std::printf("back to back over %u calls (%s): eager %.2f us a call, "
                "graph replay %.2f us a call\n",
                run.repeat, form.symbol.c_str(), eagerUs, graphUs);
  }
  check(fuse_graph_destroy(g), "fuse_graph_destroy");
  check(fuse_stream_destroy(s), "fuse_stream_destroy");
  *run.stream = nullptr;
  return true;
}

} // namespace

void runGraphs(const std::vector<GraphForm> &forms, const GraphRun &run) {
  bool any = false;
  for (const GraphForm &f : forms)
    any |= runForm(f, run);
  std::fflush(stdout);
  if (!any)
    fail("'" + run.name + "' cannot be captured into a CUDA graph in any "
         "form (see above)");
}

} // namespace run
} // namespace fuse
