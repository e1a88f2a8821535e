//===- AOTRunner.cpp - run an AOT-compiled fuse entry on the GPU ----------===//
//
// Order of work (so that bad arguments never reach the GPU): manifest,
// entry, --arg specs and inputs, result sizes, the library and its packed
// wrapper, and only then fuse_init, allocations, copies and the call.
// The entry is called through its packed wrapper `int32_t
// <symbol>__fuse_packed(void **args)` (one pointer per C parameter), so no
// calling-convention code is needed here.
//
//===----------------------------------------------------------------------===//

#include "fuse/ToolSupport/AOTRunner.h"

#include "AOTGraph.h"
#include "Json.h"
#include "fuse/ToolSupport/HostArray.h"

#include "fuse_runtime.h"

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <functional>
#include <memory>
#include <optional>

namespace fuse {
namespace run {

namespace {

//===----------------------------------------------------------------------===//
// The manifest
//===----------------------------------------------------------------------===//

struct ResultSlot {
  Slot slot;
  std::vector<std::string> size; // one expression per dimension
  bool known = false;            // false: the manifest gives no size
  bool filter = false;
};

struct Entry {
  std::string name, symbol, packed;
  std::string workspacePacked; // empty: no workspace form
  std::vector<Slot> args;
  std::vector<ResultSlot> results;
};

std::string readText(const std::string &path, const std::string &what) {
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    fail("cannot open " + what + " '" + path + "': " + std::strerror(errno));
  std::string text;
  char buf[1 << 14];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0)
    text.append(buf, n);
  bool bad = std::ferror(f);
  std::fclose(f);
  if (bad)
    fail("cannot read " + what + " '" + path + "'");
  return text;
}

struct ManifestReader {
  std::string path;
  std::string library; // "library": the file name of the .so

  [[noreturn]] void bad(const std::string &message) {
    fail("bad manifest '" + path + "': " + message);
  }
  const json::Value &member(const json::Value &v, const char *key,
                            json::Value::Kind kind, const std::string &where) {
    const json::Value *m = v.get(key);
    if (!m || m->kind != kind)
      bad(where + ": missing or mistyped \"" + key + "\"");
    return *m;
  }
  std::string str(const json::Value &v, const char *key,
                  const std::string &where) {
    return member(v, key, json::Value::Kind::String, where).string;
  }

  Slot slot(const json::Value &v, bool isArg, const std::string &where) {
    if (v.kind != json::Value::Kind::Object)
      bad(where + ": not an object");
    Slot s;
    s.typeText = str(v, "type", where);
    std::string dtype = str(v, "dtype", where);
    std::optional<Elem> e = elemFromMlirName(dtype);
    if (!e)
      fail(where + ": unsupported element type " + dtype +
           " (supported: i1, i8, i16, i32, i64, index, f16, bf16, f32, f64)");
    s.elem = *e;
    s.isTensor = !isArg || str(v, "kind", where) == "tensor";
    if (!s.isTensor) {
      if (str(v, "kind", where) != "scalar")
        bad(where + ": \"kind\" must be \"tensor\" or \"scalar\"");
      return s;
    }
    const json::Value &shape =
        member(v, "shape", json::Value::Kind::Array, where);
    if (int64_t(shape.array.size()) > kMaxRank)
      fail(where + ": rank " + std::to_string(shape.array.size()) +
           " is above the limit of " + std::to_string(kMaxRank));
    for (const json::Value &d : shape.array) {
      if (d.isNull())
        s.shape.push_back(kDynamic);
      else if (d.kind == json::Value::Kind::Number && d.isInteger &&
               d.integer >= 0)
        s.shape.push_back(d.integer);
      else
        bad(where + ": bad \"shape\"");
    }
    return s;
  }

  std::vector<Entry> read() {
    json::Value root;
    std::string error;
    if (!json::parse(readText(path, "manifest"), root, error))
      bad(error);
    if (root.kind != json::Value::Kind::Object)
      bad("not a JSON object");
    const json::Value *format = root.get("format");
    if (!format || format->string != "fuse-aot-manifest")
      bad("not a fuse-compile manifest (\"format\" is not "
          "\"fuse-aot-manifest\")");
    const json::Value *version = root.get("version");
    if (!version || !version->isInteger || version->integer != 1)
      bad("unsupported manifest version (this runner reads version 1)");
    if (const json::Value *lib = root.get("library"))
      if (lib->kind == json::Value::Kind::String)
        library = lib->string;
    std::vector<Entry> entries;
    for (const json::Value &e :
         member(root, "entries", json::Value::Kind::Array, "top level").array) {
      Entry entry;
      entry.name = str(e, "name", "entry");
      std::string where = "entry '" + entry.name + "'";
      entry.symbol = str(e, "symbol", where);
      entry.packed = str(e, "packed", where);
      if (const json::Value *w = e.get("workspace_packed")) {
        if (w->kind == json::Value::Kind::String)
          entry.workspacePacked = w->string;
        else if (!w->isNull())
          bad(where + ": \"workspace_packed\" is neither a string nor null");
      }
      const json::Value &args =
          member(e, "args", json::Value::Kind::Array, where);
      for (size_t i = 0; i < args.array.size(); ++i)
        entry.args.push_back(
            slot(args.array[i], true, "argument #" + std::to_string(i)));
      const json::Value &results =
          member(e, "results", json::Value::Kind::Array, where);
      for (size_t i = 0; i < results.array.size(); ++i) {
        const json::Value &r = results.array[i];
        std::string rw = "result #" + std::to_string(i);
        ResultSlot rs;
        rs.slot = slot(r, false, rw);
        const json::Value *size = r.get("size");
        if (size && size->kind == json::Value::Kind::Array) {
          rs.known = true;
          for (const json::Value &d : size->array) {
            if (d.kind != json::Value::Kind::String)
              bad(rw + ": bad \"size\"");
            rs.size.push_back(d.string);
          }
          if (rs.size.size() != rs.slot.rank())
            bad(rw + ": \"size\" and \"shape\" differ in rank");
        }
        const json::Value *filter = r.get("filter");
        rs.filter = filter && filter->kind == json::Value::Kind::Bool &&
                    filter->boolean;
        if (rs.filter && rs.slot.rank() != 1)
          bad(rw + ": a filter result must have rank 1");
        entry.results.push_back(std::move(rs));
      }
      entries.push_back(std::move(entry));
    }
    return entries;
  }
};

const Entry &pickEntry(const std::vector<Entry> &entries,
                       const std::string &wanted, const std::string &path) {
  std::string candidates;
  for (const Entry &e : entries)
    candidates += (candidates.empty() ? "" : ", ") + e.name;
  if (candidates.empty())
    candidates = "none";
  if (!wanted.empty()) {
    for (const Entry &e : entries)
      if (e.name == wanted || e.symbol == wanted)
        return e;
    fail("no entry named '" + wanted + "' in '" + path +
         "' (candidates: " + candidates + ")");
  }
  if (entries.size() == 1)
    return entries.front();
  if (entries.empty())
    fail("'" + path + "' has no entries to run");
  fail("several entries (" + candidates + "): choose one with --entry NAME");
}

//===----------------------------------------------------------------------===//
// Result sizes
//===----------------------------------------------------------------------===//

/// Evaluates a size expression of the manifest over the inputs.
struct SizeEval {
  const std::string &text;
  const std::vector<Slot> &args;
  const std::vector<HostArray> &inputs;
  const std::string &what;
  size_t pos = 0;

  [[noreturn]] void bad(const std::string &why) {
    fail(what + ": cannot evaluate its size '" + text + "': " + why);
  }
  void skip() {
    while (pos < text.size() && text[pos] == ' ')
      ++pos;
  }
  bool eat(char c) {
    skip();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  enum class Op { Add, Sub, Mul };
  int64_t apply(Op op, int64_t a, int64_t b) {
    int64_t r = 0;
    bool overflow = op == Op::Add   ? __builtin_add_overflow(a, b, &r)
                    : op == Op::Sub ? __builtin_sub_overflow(a, b, &r)
                                    : __builtin_mul_overflow(a, b, &r);
    if (overflow)
      bad("overflow");
    return r;
  }

  int64_t expr() {
    int64_t v = term();
    while (true) {
      if (eat('+'))
        v = apply(Op::Add, v, term());
      else if (eat('-'))
        v = apply(Op::Sub, v, term());
      else
        return v;
    }
  }
  int64_t term() {
    int64_t v = factor();
    while (eat('*'))
      v = apply(Op::Mul, v, factor());
    return v;
  }
  int64_t factor() {
    skip();
    if (eat('(')) {
      int64_t v = expr();
      if (!eat(')'))
        bad("expected ')'");
      return v;
    }
    if (eat('-'))
      return apply(Op::Sub, 0, factor());
    size_t start = pos;
    while (pos < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[pos])) ||
            text[pos] == '_'))
      ++pos;
    std::string word = text.substr(start, pos - start);
    if (word.empty())
      bad("unexpected character");
    if (std::isdigit(static_cast<unsigned char>(word[0]))) {
      if (word.size() > 18 ||
          word.find_first_not_of("0123456789") != std::string::npos)
        bad("bad number '" + word + "'");
      return std::stoll(word);
    }
    if (eat('('))
      return call(word);
    unsigned k = 0, d = 0;
    int n = 0;
    if (std::sscanf(word.c_str(), "in%u_d%u%n", &k, &d, &n) == 2 &&
        size_t(n) == word.size()) {
      if (k >= args.size() || !args[k].isTensor || d >= args[k].rank())
        bad("'" + word + "' names no tensor dimension");
      return inputs[k].shape[d];
    }
    if (std::sscanf(word.c_str(), "in%u%n", &k, &n) == 1 &&
        size_t(n) == word.size()) {
      if (k >= args.size() || args[k].isTensor || isFloat(args[k].elem))
        bad("'" + word + "' names no integer scalar argument");
      return loadInt(args[k].elem, inputs[k].data.data());
    }
    bad("unknown name '" + word + "'");
  }
  int64_t call(const std::string &fn) {
    int64_t a = expr();
    if (!eat(','))
      bad("expected ','");
    int64_t b = expr();
    if (!eat(')'))
      bad("expected ')'");
    if (fn == "min")
      return a < b ? a : b;
    if (fn == "max")
      return a > b ? a : b;
    if (fn != "div" && fn != "ceildiv" && fn != "floordiv" && fn != "rem")
      bad("unknown function '" + fn + "'");
    if (b == 0 || (a == INT64_MIN && b == -1))
      bad("division by zero or overflow");
    int64_t q = a / b, r = a % b;
    if (fn == "div")
      return q;
    if (fn == "rem")
      return r;
    bool inexact = r != 0;
    bool negative = (a < 0) != (b < 0);
    if (fn == "ceildiv")
      return q + (inexact && !negative ? 1 : 0);
    return q - (inexact && negative ? 1 : 0); // floordiv
  }

  int64_t run() {
    int64_t v = expr();
    skip();
    if (pos != text.size())
      bad("unexpected text after the expression");
    return v;
  }
};

/// Shapes of the result buffers (a filter's: its capacity).
std::vector<std::vector<int64_t>> resultShapes(const Entry &entry,
                                               const std::vector<HostArray> &in) {
  std::vector<std::vector<int64_t>> shapes;
  for (size_t i = 0; i < entry.results.size(); ++i) {
    const ResultSlot &r = entry.results[i];
    std::string what = "result #" + std::to_string(i);
    if (!r.known)
      fail(what + ": the manifest gives no size for " + r.slot.typeText +
           " (its buffer cannot be allocated)");
    std::vector<int64_t> shape;
    uint64_t bytes = widthOf(r.slot.elem);
    for (unsigned d = 0; d < r.slot.rank(); ++d) {
      int64_t v = SizeEval{r.size[d], entry.args, in, what}.run();
      if (v < 0)
        fail(what + ": size '" + r.size[d] + "' is negative (" +
             std::to_string(v) + ")");
      if (r.slot.shape[d] != kDynamic && r.slot.shape[d] != v)
        fail(what + ": size '" + r.size[d] + "' is " + std::to_string(v) +
             ", but " + r.slot.typeText + " has " +
             std::to_string(r.slot.shape[d]));
      if (v && bytes > (uint64_t(1) << 40) / uint64_t(v))
        fail(what + ": " + npy::shapeString(shape) + " is too large");
      bytes *= uint64_t(v);
      shape.push_back(v);
    }
    shapes.push_back(shape);
  }
  return shapes;
}

//===----------------------------------------------------------------------===//
// The device
//===----------------------------------------------------------------------===//


/// Device buffers, freed when the run ends normally (an error exits the
/// process, which releases the device memory with its context).
struct DeviceBuffers {
  std::vector<void *> ptrs;
  void *alloc(size_t bytes, const std::string &what) {
    void *p = nullptr;
    // At least 16 bytes: empty tensors still get a valid, aligned pointer.
    check(fuse_malloc(&p, bytes < 16 ? 16 : bytes, nullptr),
          "fuse_malloc (" + what + ", " + std::to_string(bytes) + " bytes)");
    ptrs.push_back(p);
    return p;
  }
  void freeAll() {
    for (void *p : ptrs)
      check(fuse_free(p, nullptr), "fuse_free");
    ptrs.clear();
  }
};

using PackedFn = int32_t (*)(void **);

/// The entry's workspace form for --graph: the same arguments as `params`
/// (the allocating form's), with each filter's count on the device, and a
/// workspace of the size the form asks for (queried and allocated here,
/// outside any capture). The storage the call reads lives in the closure.
GraphForm workspaceForm(void *library, const Entry &entry,
                        const std::vector<void *> &params, size_t nres,
                        fuse_stream_t &stream, DeviceBuffers &buffers) {
  void *sym = dlsym(library, entry.workspacePacked.c_str());
  if (!sym)
    fail("the library has no symbol '" + entry.workspacePacked + "'");
  PackedFn wsFn = reinterpret_cast<PackedFn>(sym);
  struct State {
    std::vector<void *> params;
    std::vector<int64_t *> counts;
    void *workspace = nullptr;
    int64_t bytes = 0;
    int64_t *bytesPtr = &bytes; // each parameter is read through a pointer
  };
  auto st = std::make_shared<State>();
  // The allocating form's parameters end with the host counts and the
  // stream: the same prefix, then device counts.
  size_t ncounts = 0;
  for (const ResultSlot &r : entry.results)
    ncounts += r.filter;
  size_t prefix = params.size() - ncounts - 1;
  st->params.assign(params.begin(), params.begin() + prefix);
  st->counts.assign(nres, nullptr);
  for (size_t i = 0; i < nres; ++i)
    if (entry.results[i].filter)
      st->counts[i] = static_cast<int64_t *>(
          buffers.alloc(8, "device count of result #" + std::to_string(i)));
  for (size_t i = 0; i < nres; ++i)
    if (entry.results[i].filter)
      st->params.push_back(&st->counts[i]);
  st->params.push_back(&st->workspace);
  st->params.push_back(&st->bytesPtr);
  st->params.push_back(&stream);
  // The size query (a NULL workspace), then the workspace itself.
  check(static_cast<fuse_status_t>(wsFn(st->params.data())),
        "'" + entry.symbol + "_ws' (workspace query)");
  if (st->bytes > 0)
    st->workspace = buffers.alloc(size_t(st->bytes), "workspace");
  std::printf("workspace: %s needs %lld bytes\n", entry.workspacePacked.c_str(),
              static_cast<long long>(st->bytes));
  std::string symbol = entry.workspacePacked.substr(
      0, entry.workspacePacked.size() - std::strlen("__fuse_packed"));
  return GraphForm{symbol,
                   [st, wsFn] {
                     return static_cast<fuse_status_t>(wsFn(st->params.data()));
                   },
                   st->counts};
}

std::string dirOf(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

} // namespace

[[noreturn]] void runtimeError(const std::string &call, fuse_status_t s) {
  const char *message = fuse_last_error_message();
  fail(call + " failed: " + fuse_status_name(s) + ": " +
       (message && *message ? message : "(no message)"));
}

void check(fuse_status_t s, const std::string &call) {
  if (s != FUSE_SUCCESS)
    runtimeError(call, s);
}

int runAOT(const AOTRunOptions &o) {
  // Signature and arguments first: nothing here touches the GPU.
  ManifestReader reader{o.manifest};
  std::vector<Entry> entries = reader.read();
  const Entry &entry = pickEntry(entries, o.entry, o.manifest);
  if (o.args.size() != entry.args.size())
    fail("'" + entry.name + "' takes " + std::to_string(entry.args.size()) +
         " argument(s), got " + std::to_string(o.args.size()) + " --arg");
  if (o.saveInputs && o.outDir.empty())
    fail("--save-inputs needs --out DIR");
  std::vector<HostArray> inputs =
      makeInputs(entry.name, entry.args, o.args, o.seed);
  std::vector<std::vector<int64_t>> shapes = resultShapes(entry, inputs);
  if (!o.outDir.empty())
    createDirectories(o.outDir);
  if (o.saveInputs)
    saveInputs(inputs, o.outDir);

  // The library and its packed wrapper (its fuse_* references resolve to
  // the runtime this program links).
  std::string library = o.library;
  if (library.empty()) {
    if (reader.library.empty())
      fail("the manifest '" + o.manifest +
           "' names no library: give it with --lib PATH");
    library = reader.library[0] == '/' ? reader.library
                                       : dirOf(o.manifest) + reader.library;
  }
  if (library.find('/') == std::string::npos)
    library = "./" + library; // dlopen searches the path for bare names
  void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *err = dlerror();
    fail("cannot load '" + library + "': " + (err ? err : "unknown error"));
  }
  void *sym = dlsym(handle, entry.packed.c_str());
  if (!sym)
    fail("'" + library + "' has no symbol '" + entry.packed +
         "' (was it made by fuse-compile --emit=shared from the same "
         "pipeline as the manifest?)");
  PackedFn fn = reinterpret_cast<PackedFn>(sym);

  // The device.
  check(fuse_init(), "fuse_init");
  DeviceBuffers buffers;
  // Storage of every C parameter; `params` points into it.
  std::vector<void *> devIn(inputs.size(), nullptr);
  std::vector<std::vector<int64_t>> dims(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!entry.args[i].isTensor)
      continue;
    const HostArray &a = inputs[i];
    std::string what = "argument #" + std::to_string(i);
    devIn[i] = buffers.alloc(a.data.size(), what);
    if (!a.data.empty())
      check(fuse_memcpy_htod(devIn[i], a.data.data(), a.data.size(), nullptr),
            "fuse_memcpy_htod (" + what + ")");
    dims[i] = a.shape;
  }
  size_t nres = entry.results.size();
  std::vector<void *> devOut(nres, nullptr);
  std::vector<size_t> outBytes(nres, 0);
  for (size_t i = 0; i < nres; ++i) {
    outBytes[i] = size_t(npy::numElements(shapes[i])) *
                  widthOf(entry.results[i].slot.elem);
    devOut[i] = buffers.alloc(outBytes[i], "result #" + std::to_string(i));
  }
  std::vector<int64_t> counts(nres, -1);
  std::vector<int64_t *> countPtrs(nres, nullptr);
  fuse_stream_t stream = nullptr;

  std::vector<void *> params;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!entry.args[i].isTensor) {
      params.push_back(const_cast<uint8_t *>(inputs[i].data.data()));
      continue;
    }
    params.push_back(&devIn[i]);
    for (int64_t &d : dims[i])
      params.push_back(&d);
  }
  for (size_t i = 0; i < nres; ++i)
    params.push_back(&devOut[i]);
  for (size_t i = 0; i < nres; ++i)
    if (entry.results[i].filter) {
      countPtrs[i] = &counts[i];
      params.push_back(&countPtrs[i]);
    }
  params.push_back(&stream);

  auto call = [&] {
    fuse_status_t s = static_cast<fuse_status_t>(fn(params.data()));
    if (s != FUSE_SUCCESS)
      runtimeError("'" + entry.name + "'", s);
  };

  // First call: its results are the ones printed and saved.
  call();
  check(fuse_stream_synchronize(nullptr), "fuse_stream_synchronize");
  std::vector<HostArray> outputs;
  for (size_t i = 0; i < nres; ++i) {
    const ResultSlot &r = entry.results[i];
    HostArray a;
    a.elem = r.slot.elem;
    a.shape = shapes[i];
    if (r.filter) {
      if (counts[i] < 0 || counts[i] > shapes[i][0])
        fail("result #" + std::to_string(i) + ": the entry returned count " +
             std::to_string(counts[i]) + " for a capacity of " +
             std::to_string(shapes[i][0]));
      a.shape[0] = counts[i];
    }
    a.data.resize(size_t(a.numElements()) * widthOf(a.elem));
    if (!a.data.empty())
      check(fuse_memcpy_dtoh(a.data.data(), devOut[i], a.data.size(), nullptr),
            "fuse_memcpy_dtoh (result #" + std::to_string(i) + ")");
    outputs.push_back(std::move(a));
  }

  if (o.print) {
    std::string text = formatResults(outputs);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  }
  if (!o.outDir.empty())
    saveResults(outputs, o.outDir);

  if (o.graph) {
    GraphRun run{entry.name, &stream, devOut, outBytes, outputs, {}, o.repeat};
    std::vector<GraphForm> forms;
    forms.push_back({entry.symbol,
                     [&] { return static_cast<fuse_status_t>(fn(params.data())); },
                     {}});
    for (const ResultSlot &r : entry.results)
      run.filter.push_back(r.filter);
    if (!entry.workspacePacked.empty())
      forms.push_back(workspaceForm(handle, entry, params, counts.size(),
                                    stream, buffers));
    runGraphs(forms, run);
  } else if (o.repeat > 0) {
    std::vector<double> ms;
    for (unsigned r = 0; r < o.repeat; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      call();
      check(fuse_stream_synchronize(nullptr), "fuse_stream_synchronize");
      auto t1 = std::chrono::steady_clock::now();
      ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    std::string text = formatTimes(ms);
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  buffers.freeAll();
  std::fflush(stdout);
  return 0;
}

} // namespace run
} // namespace fuse
