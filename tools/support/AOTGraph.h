//===- AOTGraph.h - fuse-run-aot --graph ------------------------*- C++ -*-===//
//
// Captures one call of each form of an entry (NAME, whose temporaries come
// from fuse_malloc's stream-ordered allocations under capture, and NAME_ws
// with a caller's workspace and its counts on the device) into a CUDA
// graph, replays it into zeroed results and checks the bits against the
// eager call and that the capture and replay took nothing from the
// runtime's allocator; optionally times calls back to back, eager and
// replayed.
// Not installed: AOTRunner.cpp's helper.
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_TOOLS_SUPPORT_AOTGRAPH_H
#define FUSE_TOOLS_SUPPORT_AOTGRAPH_H

#include "fuse/ToolSupport/HostArray.h"

#include "fuse_runtime.h"

#include <functional>
#include <string>
#include <vector>

namespace fuse {
namespace run {

/// Exits through fail() with "CALL failed: STATUS: message" (the
/// runtime's last error message) unless `s` is FUSE_SUCCESS; runtimeError
/// always does. Defined in AOTRunner.cpp, which reports every runtime
/// error this way.
[[noreturn]] void runtimeError(const std::string &call, fuse_status_t s);
void check(fuse_status_t s, const std::string &call);

/// One form of an entry: its C symbol and one call of it on the stream
/// held by GraphRun::stream.
struct GraphForm {
  std::string symbol;
  std::function<fuse_status_t()> call;
  /// Per result, where this form writes a filter's count on the device
  /// (null: none, or the form writes it to the host).
  std::vector<int64_t *> deviceCounts;
};

struct GraphRun {
  std::string name;             // the entry, for messages
  fuse_stream_t *stream;        // the calls' stream parameter
  std::vector<void *> devOut;   // the result buffers
  std::vector<size_t> outBytes; // and their sizes
  std::vector<HostArray> eager; // the eager call's results (filters trimmed)
  std::vector<bool> filter;     // which results are a filter's
  unsigned repeat = 0;
};

/// Captures and checks every form; a form that cannot be captured is
/// reported and skipped, unless none can, which fails. Prints one line a
/// form ("graph: SYMBOL: N nodes; the replay matches the eager call bit
/// for bit", or "graph: SYMBOL cannot be captured: ...") and, with
/// `repeat`, a timing line a form.
void runGraphs(const std::vector<GraphForm> &forms, const GraphRun &run);

} // namespace run
} // namespace fuse

#endif // FUSE_TOOLS_SUPPORT_AOTGRAPH_H
