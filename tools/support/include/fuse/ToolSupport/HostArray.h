//===- HostArray.h - the tools' arguments and results on host ---*- C++ -*-===//
//
// What fuse-run (CPU, JIT) and fuse-run-aot (GPU, AOT artifacts) share:
// element types, host arrays, the --arg SPEC forms (PATH.npy, rand:SHAPE,
// scalar:VALUE), the rand: generator, .npy reading and writing, numpy-like
// printing and the --repeat summary (library FuseToolSupport, tools/support).
// No LLVM or MLIR: fuse-run-aot is built with the runtime's CMake on the
// GPU machine, which has neither.
//
// Errors go through fail(): "<program>: <message>" on stderr and exit
// status 1 (the tools are built without exceptions).
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_TOOLSUPPORT_HOSTARRAY_H
#define FUSE_TOOLSUPPORT_HOSTARRAY_H

#include "fuse/ToolSupport/Npy.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fuse {
namespace run {

/// The program name fail() prints ("fuse-run" unless set).
void setProgramName(const char *name);
const char *programName();

/// Prints "<program>: <message>" on stderr (after flushing stdout) and
/// exits with status 1.
[[noreturn]] void fail(const std::string &message);

/// Element types of entry arguments and results.
enum class Elem { I1, I8, I16, I32, I64, Index, F16, BF16, F32, F64 };

/// MLIR's spelling of `e` ("f32", "index", ...) and back.
const char *mlirName(Elem e);
std::optional<Elem> elemFromMlirName(const std::string &name);

unsigned widthOf(Elem e);
bool isFloat(Elem e);
/// The .npy dtype of `e` (bf16: "<V2", see npy::DType).
npy::DType npyOf(Elem e);
/// numpy's name of `e` ("float32", ...; "bfloat16" for bf16).
const char *elemName(Elem e);

/// Stores `v` rounded (to nearest, ties to even) to float type `e` at
/// `dst`; returns the stored value.
double storeFloat(Elem e, double v, uint8_t *dst);
double loadFloat(Elem e, const uint8_t *src);
void storeInt(Elem e, int64_t v, uint8_t *dst);
int64_t loadInt(Elem e, const uint8_t *src);

/// A C-order array on the host (or a scalar, with rank 0).
struct HostArray {
  Elem elem = Elem::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
  int64_t numElements() const { return npy::numElements(shape); }
};

/// Marks a dynamic size in Slot::shape.
constexpr int64_t kDynamic = INT64_MIN;
/// Largest rank fuse-run passes.
constexpr int64_t kMaxRank = 16;

/// One argument or result of an entry, from its signature.
struct Slot {
  std::string typeText; // "tensor<?xf32>", "f64": used in messages
  bool isTensor = false;
  Elem elem = Elem::F32;
  std::vector<int64_t> shape; // kDynamic for dynamic sizes
  unsigned rank() const { return shape.size(); }
};

/// 64-bit generator, reproducible across platforms (std distributions are
/// not): splitmix64.
struct Rng {
  uint64_t state;
  explicit Rng(uint64_t s) : state(s) {}
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [-1, 1).
  double symmetric() { return double(next() >> 11) * 0x1.0p-52 - 1.0; }
};

/// One input from its --arg SPEC (`what` names it in messages, e.g.
/// "argument #0").
HostArray makeInput(const Slot &slot, const std::string &spec, Rng &rng,
                    const std::string &what);

/// All inputs of entry `entry`: checks the number of specs first.
std::vector<HostArray> makeInputs(const std::string &entry,
                                  const std::vector<Slot> &args,
                                  const std::vector<std::string> &specs,
                                  uint64_t seed);

/// Writes `a` as a .npy file.
void writeNpy(const HostArray &a, const std::string &path,
              const std::string &what);

/// Creates `dir` and its parents (an error when that fails).
void createDirectories(const std::string &dir);
/// `dir`/`name`.
std::string joinPath(const std::string &dir, const std::string &name);

/// --save-inputs: DIR/arg<i>.npy for every input.
void saveInputs(const std::vector<HostArray> &inputs, const std::string &dir);
/// --out: DIR/result<i>.npy for every result.
void saveResults(const std::vector<HostArray> &results,
                 const std::string &dir);

/// --print: "result #i: DTYPE array of shape S" and the values, numpy-like
/// (threshold 1000 elements, 3 edge items).
std::string formatResults(const std::vector<HostArray> &results);

/// --repeat: "time: median X ms, min Y ms over N runs\n".
std::string formatTimes(std::vector<double> ms);

} // namespace run
} // namespace fuse

#endif // FUSE_TOOLSUPPORT_HOSTARRAY_H
