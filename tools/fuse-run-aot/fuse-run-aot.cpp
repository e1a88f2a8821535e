//===- fuse-run-aot.cpp - run AOT-compiled fuse pipelines on the GPU ------===//
//
// fuse-run-aot PIPELINE.json [--lib PIPELINE.so] --entry NAME
//              --arg x.npy|rand:SHAPE|scalar:V ... [--out DIR] [--print]
//              [--repeat N] [--seed S] [--save-inputs] [--graph]
//
// Runs an entry of a shared library made by `fuse-compile --emit=shared`
// on the GPU, with fuse-run's flags and semantics (see
// fuse/ToolSupport/AOTRunner.h, tools/support). Needs only the fuse
// runtime: the runtime's standalone CMake builds it too (cmake -S runtime,
// FUSE_RUNTIME_BUILD_RUN_AOT), so it runs where LLVM and MLIR are not
// installed.
//
//===----------------------------------------------------------------------===//

#include "fuse/ToolSupport/AOTRunner.h"
#include "fuse/ToolSupport/HostArray.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace fuse;

static const char *kUsage =
    "OVERVIEW: fuse-run-aot: run an entry of an AOT-compiled fuse pipeline "
    "on the GPU\n"
    "\n"
    "Loads PIPELINE.so and its signature manifest PIPELINE.json (both made "
    "by\n`fuse-compile PIPELINE.mlir --emit=shared -o PIPELINE`), checks the "
    "--arg specs\nagainst the entry's signature, copies the inputs to the "
    "device, calls the entry\nonce (plus --repeat timed calls), copies the "
    "results back (a filter's: only its\nkept elements) and prints or saves "
    "them like fuse-run. Needs only the fuse\nruntime and a GPU. Errors "
    "print 'fuse-run-aot: ...' (argument numbers count\nfrom 0) and exit 1; "
    "argument errors are found before the GPU is touched.\n"
    "\n"
    "USAGE: fuse-run-aot [options] PIPELINE.json (or PIPELINE.so)\n"
    "\n"
    "OPTIONS:\n"
    "  --lib PATH       the shared library (default: the manifest's "
    "\"library\",\n"
    "                   next to the manifest)\n"
    "  --entry NAME     entry to run (its MLIR name or its C symbol; "
    "default: the\n"
    "                   only entry)\n"
    "  --arg SPEC       one per entry argument, in order: PATH.npy, "
    "rand:SHAPE\n"
    "                   (SHAPE: 1000003, 64x4096, 0, or 'scalar' for rank 0; "
    "floats\n"
    "                   uniform in [-1,1) and never 0, integers uniform in "
    "[-100,100])\n"
    "                   or scalar:VALUE for a non-tensor or rank-0 tensor "
    "argument\n"
    "  --seed N         seed of the rand: generator (default 0; same seed, "
    "same\n"
    "                   inputs as fuse-run)\n"
    "  --out DIR        write result i to DIR/result<i>.npy (DIR is "
    "created)\n"
    "  --save-inputs    also write the inputs used to DIR/arg<i>.npy (needs "
    "--out)\n"
    "  --print          print each result (dtype, shape, values; long arrays "
    "elided\n"
    "                   as numpy does)\n"
    "  --repeat N       after the first call, time N more calls (each "
    "synchronized)\n"
    "                   and print 'time: median X ms, min Y ms over N runs'\n"
    "  --graph          after the first call, capture one call of each "
    "form of the\n"
    "                   entry (NAME, and NAME_ws with a workspace of the "
    "size it\n"
    "                   asks for) into a CUDA graph on a new stream, replay "
    "it into\n"
    "                   zeroed results and fail unless results and counts "
    "equal the\n"
    "                   first call's bit for bit and nothing came from the "
    "allocator;\n"
    "                   a form that cannot be captured is reported; with "
    "--repeat N,\n"
    "                   time N calls back to back, eager and replayed, "
    "instead\n"
    "  --help           this text\n";

namespace {

/// `--name VALUE`, `--name=VALUE` or the one-dash forms.
bool takeValue(int argc, char **argv, int &i, const char *name,
               std::string &value) {
  const char *a = argv[i];
  if (a[0] != '-')
    return false;
  a += a[1] == '-' ? 2 : 1;
  size_t n = std::strlen(name);
  if (std::strncmp(a, name, n) != 0)
    return false;
  if (a[n] == '=') {
    value = a + n + 1;
    return true;
  }
  if (a[n] != '\0')
    return false;
  if (i + 1 >= argc)
    run::fail(std::string("option --") + name + " needs a value");
  value = argv[++i];
  return true;
}

bool isFlag(const char *arg, const char *name) {
  if (arg[0] != '-')
    return false;
  arg += arg[1] == '-' ? 2 : 1;
  return std::strcmp(arg, name) == 0;
}

uint64_t parseUnsigned(const std::string &text, const char *option) {
  char *end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || text[0] == '-' || *end != '\0' || errno != 0)
    run::fail(std::string("--") + option + ": bad number '" + text + "'");
  return v;
}

} // namespace

int main(int argc, char **argv) {
  run::setProgramName("fuse-run-aot");
  run::AOTRunOptions o;
  std::string input;
  for (int i = 1; i < argc; ++i) {
    std::string value;
    if (isFlag(argv[i], "help") || isFlag(argv[i], "h")) {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (takeValue(argc, argv, i, "lib", value))
      o.library = value;
    else if (takeValue(argc, argv, i, "entry", value))
      o.entry = value;
    else if (takeValue(argc, argv, i, "arg", value))
      o.args.push_back(value);
    else if (takeValue(argc, argv, i, "seed", value))
      o.seed = parseUnsigned(value, "seed");
    else if (takeValue(argc, argv, i, "out", value))
      o.outDir = value;
    else if (takeValue(argc, argv, i, "repeat", value)) {
      uint64_t n = parseUnsigned(value, "repeat");
      if (n > 1000000000)
        run::fail("--repeat: " + value + " is too large");
      o.repeat = unsigned(n);
    } else if (isFlag(argv[i], "save-inputs"))
      o.saveInputs = true;
    else if (isFlag(argv[i], "print"))
      o.print = true;
    else if (isFlag(argv[i], "graph"))
      o.graph = true;
    else if (argv[i][0] == '-' && argv[i][1] != '\0')
      run::fail(std::string("unknown option '") + argv[i] +
                "' (see --help)");
    else if (!input.empty())
      run::fail("one pipeline only: got '" + input + "' and '" + argv[i] +
                "'");
    else
      input = argv[i];
  }
  if (input.empty())
    run::fail("no pipeline given: fuse-run-aot PIPELINE.json --arg ... "
              "(see --help)");
  // PIPELINE.so stands for PIPELINE.json next to it.
  if (input.size() > 3 && input.compare(input.size() - 3, 3, ".so") == 0) {
    if (o.library.empty())
      o.library = input;
    input = input.substr(0, input.size() - 3) + ".json";
  }
  o.manifest = input;
  return run::runAOT(o);
}
