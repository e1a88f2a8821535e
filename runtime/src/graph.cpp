//===- graph.cpp - capture and replay of CUDA graphs ----------------------===//
//
// fuse_graph_begin/fuse_graph_end capture the work a caller queues on a
// stream (generated entries, runtime primitives, its own kernels) into an
// instantiated CUDA graph; fuse_graph_launch replays it. The capture mode
// is thread-local: a call from this thread that CUDA cannot capture
// (cudaMalloc, a synchronisation) fails instead of silently running
// eagerly, and other threads are not disturbed. The runtime itself takes
// part: fuse_malloc on a capturing stream makes stream-ordered allocations
// that become the graph's memory nodes, and the calls that would
// synchronise (device-to-host copies, fuse_stream_synchronize) refuse with
// FUSE_ERROR_NOT_PERMITTED.
//
//===----------------------------------------------------------------------===//
#include "internal.h"

struct fuse_graph_st {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
};

using namespace fuse_rt;

namespace {

// Whether `stream`, a created stream (the legacy and per-thread default
// streams cannot be captured), is being captured.
fuse_status_t capturable(fuse_stream_t stream, const char *api,
                         bool &capturing) {
  if (!stream)
    return fail(FUSE_ERROR_INVALID_ARGUMENT,
                "%s: the per-thread default stream (NULL) cannot be captured; "
                "capture on a created stream (fuse_stream_create)",
                api);
  return captureState(toStream(stream), api, capturing);
}

// The capture on `stream` has ended with an error; the partial graph, if
// any, is dropped.
fuse_status_t endFailed(cudaError_t err, cudaGraph_t partial, const char *api) {
  if (partial)
    (void)cudaGraphDestroy(partial);
  // The failed capture's error is not sticky: clear it, or the next
  // runtime call that checks cudaGetLastError (CUB does) would fail.
  (void)cudaGetLastError();
  if (err == cudaErrorStreamCaptureInvalidated)
    return fail(FUSE_ERROR_NOT_PERMITTED,
                "%s: the capture was invalidated: a call on its stream, or "
                "from this thread, could not be captured (an allocation or "
                "synchronisation outside the fuse runtime, or work joined "
                "from another stream that was not captured); nothing was "
                "kept",
                api);
  return cudaFail(err, api, "cudaStreamEndCapture");
}

} // namespace

FUSE_API fuse_status_t fuse_graph_begin(fuse_stream_t stream) {
  const char *api = "fuse_graph_begin";
  if (fuse_status_t s = enter(api))
    return s;
  bool capturing = false;
  if (fuse_status_t s = capturable(stream, api, capturing))
    return s;
  if (capturing)
    return fail(FUSE_ERROR_NOT_PERMITTED,
                "%s: the stream is already being captured", api);
  cudaError_t err = cudaStreamBeginCapture(toStream(stream),
                                           cudaStreamCaptureModeThreadLocal);
  if (err != cudaSuccess)
    return cudaFail(err, api, "cudaStreamBeginCapture");
  return FUSE_SUCCESS;
}

FUSE_API fuse_status_t fuse_graph_end(fuse_stream_t stream,
                                      fuse_graph_t *graph) {
  const char *api = "fuse_graph_end";
  if (!graph) {
    clearError();
    return fail(FUSE_ERROR_INVALID_ARGUMENT, "%s: graph is NULL", api);
  }
  *graph = nullptr;
  if (fuse_status_t s = enter(api))
    return s;
  bool capturing = false;
  if (fuse_status_t s = capturable(stream, api, capturing))
    return s;
  if (!capturing)
    return fail(FUSE_ERROR_INVALID_ARGUMENT,
                "%s: the stream is not being captured (fuse_graph_begin "
                "first)",
                api);
  cudaGraph_t g = nullptr;
  cudaError_t err = cudaStreamEndCapture(toStream(stream), &g);
  if (err != cudaSuccess)
    return endFailed(err, g, api);
  cudaGraphExec_t exec = nullptr;
  err = cudaGraphInstantiate(&exec, g, 0);
  if (err != cudaSuccess) {
    (void)cudaGraphDestroy(g);
    return cudaFail(err, api, "cudaGraphInstantiate");
  }
  *graph = new fuse_graph_st{g, exec};
  return FUSE_SUCCESS;
}

FUSE_API fuse_status_t fuse_graph_launch(fuse_graph_t graph,
                                         fuse_stream_t stream) {
  const char *api = "fuse_graph_launch";
  if (fuse_status_t s = enter(api))
    return s;
  if (!graph)
    return fail(FUSE_ERROR_INVALID_ARGUMENT, "%s: graph is NULL", api);
  cudaStream_t st = toStream(stream);
  cudaError_t err = cudaGraphLaunch(graph->exec, st);
  if (err != cudaSuccess)
    return cudaFail(err, api, "cudaGraphLaunch");
  return afterLaunch(st, api, "cudaGraphLaunch");
}

FUSE_API fuse_status_t fuse_graph_nodes(fuse_graph_t graph, size_t *nodes) {
  const char *api = "fuse_graph_nodes";
  if (fuse_status_t s = enter(api))
    return s;
  if (!graph || !nodes)
    return fail(FUSE_ERROR_INVALID_ARGUMENT, "%s: graph or nodes is NULL",
                api);
  size_t n = 0;
  cudaError_t err = cudaGraphGetNodes(graph->graph, nullptr, &n);
  if (err != cudaSuccess)
    return cudaFail(err, api, "cudaGraphGetNodes");
  *nodes = n;
  return FUSE_SUCCESS;
}

FUSE_API fuse_status_t fuse_graph_destroy(fuse_graph_t graph) {
  const char *api = "fuse_graph_destroy";
  if (!graph) {
    clearError();
    return FUSE_SUCCESS;
  }
  if (fuse_status_t s = enter(api))
    return s;
  // A replay may still be running: cudaGraphExecDestroy waits for nothing,
  // and CUDA keeps the executable alive until queued launches finish.
  cudaError_t err = cudaGraphExecDestroy(graph->exec);
  cudaError_t err2 = cudaGraphDestroy(graph->graph);
  delete graph;
  if (err != cudaSuccess)
    return cudaFail(err, api, "cudaGraphExecDestroy");
  if (err2 != cudaSuccess)
    return cudaFail(err2, api, "cudaGraphDestroy");
  return FUSE_SUCCESS;
}
