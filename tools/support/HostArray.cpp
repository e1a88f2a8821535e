//===- HostArray.cpp - the tools' arguments and results on host -----------===//
//
// Moved out of fuse-run.cpp (without LLVM) so that fuse-run-aot shares it.
// f16 and bf16 conversions are done here by hand, rounding to nearest with
// ties to even exactly like llvm::APFloat did before.
//
//===----------------------------------------------------------------------===//

#include "fuse/ToolSupport/HostArray.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sys/stat.h>

namespace fuse {
namespace run {

static const char *gProgram = "fuse-run";

void setProgramName(const char *name) { gProgram = name; }
const char *programName() { return gProgram; }

void fail(const std::string &message) {
  // One message and one exit where several threads fail at once (the
  // shards of fuse-run --shards); the others wait here until it exits.
  // (Never destroyed: exit runs while it is held.)
  static std::mutex *once = new std::mutex;
  once->lock();
  std::fflush(stdout);
  std::fprintf(stderr, "%s: %s\n", gProgram, message.c_str());
  std::exit(1);
}

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

namespace {
struct ElemName {
  Elem elem;
  const char *name;
};
const ElemName kElemNames[] = {
    {Elem::I1, "i1"},   {Elem::I8, "i8"},     {Elem::I16, "i16"},
    {Elem::I32, "i32"}, {Elem::I64, "i64"},   {Elem::Index, "index"},
    {Elem::F16, "f16"}, {Elem::BF16, "bf16"}, {Elem::F32, "f32"},
    {Elem::F64, "f64"}};
} // namespace

const char *mlirName(Elem e) {
  for (const ElemName &n : kElemNames)
    if (n.elem == e)
      return n.name;
  return "?";
}

std::optional<Elem> elemFromMlirName(const std::string &name) {
  for (const ElemName &n : kElemNames)
    if (name == n.name)
      return n.elem;
  return std::nullopt;
}

unsigned widthOf(Elem e) {
  switch (e) {
  case Elem::I1:
  case Elem::I8:
    return 1;
  case Elem::I16:
  case Elem::F16:
  case Elem::BF16:
    return 2;
  case Elem::I32:
  case Elem::F32:
    return 4;
  case Elem::I64:
  case Elem::Index:
  case Elem::F64:
    return 8;
  }
  return 1;
}

bool isFloat(Elem e) {
  return e == Elem::F16 || e == Elem::BF16 || e == Elem::F32 || e == Elem::F64;
}

npy::DType npyOf(Elem e) {
  switch (e) {
  case Elem::I1:
    return npy::DType::Bool;
  case Elem::I8:
    return npy::DType::Int8;
  case Elem::I16:
    return npy::DType::Int16;
  case Elem::I32:
    return npy::DType::Int32;
  case Elem::I64:
  case Elem::Index:
    return npy::DType::Int64;
  case Elem::F16:
    return npy::DType::Float16;
  case Elem::F32:
    return npy::DType::Float32;
  case Elem::F64:
    return npy::DType::Float64;
  case Elem::BF16:
    return npy::DType::BFloat16;
  }
  return npy::DType::Float32;
}

const char *elemName(Elem e) { return npy::dtypeName(npyOf(e)); }

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

namespace {

/// A 16-bit binary float format: f16 (5 exponent, 10 mantissa bits) or
/// bf16 (8, 7).
struct Half {
  int expBits, mantBits;
  int bias() const { return (1 << (expBits - 1)) - 1; }
};

Half halfOf(Elem e) { return e == Elem::BF16 ? Half{8, 7} : Half{5, 10}; }

/// `v` rounded to nearest (ties to even) in format `h`, as bits.
uint16_t encodeHalf(Half h, double v) {
  uint16_t sign = std::signbit(v) ? uint16_t(0x8000) : uint16_t(0);
  uint16_t expMask = uint16_t(((1 << h.expBits) - 1) << h.mantBits);
  if (std::isnan(v))
    return sign | expMask | uint16_t(1 << (h.mantBits - 1));
  double a = std::fabs(v);
  if (std::isinf(a))
    return sign | expMask;
  if (a == 0.0)
    return sign;
  int minExp = 1 - h.bias(); // smallest normal exponent
  int e;
  std::frexp(a, &e); // a = m * 2^e, m in [0.5, 1)
  int unbiased = std::max(e - 1, minExp);
  // Round to a multiple of the quantum at that exponent (exact scaling).
  double quantum = std::ldexp(1.0, unbiased - h.mantBits);
  double r = std::nearbyint(a / quantum) * quantum;
  if (r >= std::ldexp(1.0, h.bias() + 1))
    return sign | expMask; // overflow: infinity
  if (r == 0.0)
    return sign;
  if (r < std::ldexp(1.0, minExp)) // subnormal
    return sign | uint16_t(r / std::ldexp(1.0, minExp - h.mantBits));
  std::frexp(r, &e);
  int exp = e - 1;
  double frac = r / std::ldexp(1.0, exp) - 1.0; // in [0, 1)
  uint16_t mant = uint16_t(frac * double(1 << h.mantBits));
  return sign | uint16_t((exp + h.bias()) << h.mantBits) | mant;
}

double decodeHalf(Half h, uint16_t bits) {
  bool neg = bits & 0x8000;
  int exp = (bits >> h.mantBits) & ((1 << h.expBits) - 1);
  int mant = bits & ((1 << h.mantBits) - 1);
  double v;
  if (exp == (1 << h.expBits) - 1)
    v = mant ? std::nan("") : HUGE_VAL;
  else if (exp == 0)
    v = std::ldexp(double(mant), 1 - h.bias() - h.mantBits);
  else
    v = std::ldexp(double(mant + (1 << h.mantBits)),
                   exp - h.bias() - h.mantBits);
  return neg ? -v : v;
}

} // namespace

double storeFloat(Elem e, double v, uint8_t *dst) {
  if (e == Elem::F64) {
    std::memcpy(dst, &v, 8);
    return v;
  }
  if (e == Elem::F32) {
    float f = static_cast<float>(v);
    std::memcpy(dst, &f, 4);
    return f;
  }
  uint16_t bits = encodeHalf(halfOf(e), v);
  std::memcpy(dst, &bits, 2);
  return decodeHalf(halfOf(e), bits);
}

double loadFloat(Elem e, const uint8_t *src) {
  if (e == Elem::F64) {
    double d;
    std::memcpy(&d, src, 8);
    return d;
  }
  if (e == Elem::F32) {
    float f;
    std::memcpy(&f, src, 4);
    return f;
  }
  uint16_t bits;
  std::memcpy(&bits, src, 2);
  return decodeHalf(halfOf(e), bits);
}

void storeInt(Elem e, int64_t v, uint8_t *dst) {
  switch (widthOf(e)) {
  case 1: {
    int8_t x = static_cast<int8_t>(e == Elem::I1 ? (v != 0) : v);
    std::memcpy(dst, &x, 1);
    return;
  }
  case 2: {
    int16_t x = static_cast<int16_t>(v);
    std::memcpy(dst, &x, 2);
    return;
  }
  case 4: {
    int32_t x = static_cast<int32_t>(v);
    std::memcpy(dst, &x, 4);
    return;
  }
  default:
    std::memcpy(dst, &v, 8);
  }
}

int64_t loadInt(Elem e, const uint8_t *src) {
  switch (widthOf(e)) {
  case 1: {
    int8_t x;
    std::memcpy(&x, src, 1);
    return e == Elem::I1 ? (x & 1) : x;
  }
  case 2: {
    int16_t x;
    std::memcpy(&x, src, 2);
    return x;
  }
  case 4: {
    int32_t x;
    std::memcpy(&x, src, 4);
    return x;
  }
  default: {
    int64_t x;
    std::memcpy(&x, src, 8);
    return x;
  }
  }
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

namespace {

constexpr uint64_t kMaxBytes = uint64_t(1) << 38;

bool startsWith(const std::string &s, const char *prefix) {
  return s.compare(0, std::strlen(prefix), prefix) == 0;
}

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\n\v\f\r");
  if (b == std::string::npos)
    return "";
  size_t e = s.find_last_not_of(" \t\n\v\f\r");
  return s.substr(b, e - b + 1);
}

/// An integer in C-like notation: optional '-', then decimal, 0x.., 0b..,
/// 0o.. or 0.. (octal). False on anything else or overflow.
bool parseInteger(const std::string &text, int64_t &out) {
  std::string s = text;
  bool neg = !s.empty() && s[0] == '-';
  if (neg)
    s = s.substr(1);
  unsigned radix = 10;
  if (s.size() > 1 && s[0] == '0') {
    char c = s[1];
    if (c == 'x' || c == 'X')
      radix = 16, s = s.substr(2);
    else if (c == 'b' || c == 'B')
      radix = 2, s = s.substr(2);
    else if (c == 'o')
      radix = 8, s = s.substr(2);
    else if (c >= '0' && c <= '9')
      radix = 8, s = s.substr(1);
  }
  if (s.empty())
    return false;
  uint64_t v = 0;
  for (char c : s) {
    unsigned d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'z')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'Z')
      d = c - 'A' + 10;
    else
      return false;
    if (d >= radix)
      return false;
    if (v > (UINT64_MAX - d) / radix)
      return false;
    v = v * radix + d;
  }
  if (neg) {
    if (v > uint64_t(INT64_MAX) + 1)
      return false;
    out = v == uint64_t(INT64_MAX) + 1 ? INT64_MIN : -int64_t(v);
    return true;
  }
  if (v > uint64_t(INT64_MAX))
    return false;
  out = int64_t(v);
  return true;
}

bool parseDouble(const std::string &text, double &out) {
  if (text.empty())
    return false;
  errno = 0;
  char *end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

std::string gotString(const HostArray &a, const char *dtype) {
  return std::string(dtype) + " array of shape " + npy::shapeString(a.shape);
}

void checkShape(const Slot &slot, const HostArray &a, const char *dtype,
                const std::string &what) {
  bool ok = a.shape.size() == slot.rank();
  for (unsigned d = 0; ok && d < slot.rank(); ++d)
    ok = slot.shape[d] == kDynamic || slot.shape[d] == a.shape[d];
  if (!ok)
    fail(what + ": expected " + slot.typeText + ", got " + gotString(a, dtype));
}

std::vector<int64_t> parseShape(const std::string &text,
                                const std::string &what) {
  std::vector<int64_t> shape;
  if (text == "scalar")
    return shape;
  bool tooLarge = false;
  uint64_t count = 1;
  size_t pos = 0;
  while (true) {
    size_t x = text.find('x', pos);
    std::string p = text.substr(pos, x == std::string::npos ? x : x - pos);
    bool ok = !p.empty() && p.size() <= 19 &&
              p.find_first_not_of("0123456789") == std::string::npos;
    uint64_t v = ok ? std::strtoull(p.c_str(), nullptr, 10) : 0;
    if (!ok || v > uint64_t(INT64_MAX))
      fail(what + ": bad shape '" + text +
           "' (expected sizes joined by 'x', like 64x4096, or 'scalar')");
    shape.push_back(static_cast<int64_t>(v));
    if (v > kMaxBytes)
      tooLarge = true;
    else
      count = std::min<uint64_t>(count * v, kMaxBytes + 1);
    if (x == std::string::npos)
      break;
    pos = x + 1;
  }
  if ((tooLarge && count != 0) || count * 8 > kMaxBytes)
    fail(what + ": shape '" + text + "' is too large");
  return shape;
}

HostArray makeRandom(const Slot &slot, const std::string &shapeText, Rng &rng,
                     const std::string &what) {
  HostArray a;
  a.elem = slot.elem;
  a.shape = parseShape(shapeText, what);
  checkShape(slot, a, elemName(slot.elem), what);
  int64_t n = a.numElements();
  unsigned w = widthOf(a.elem);
  a.data.resize(size_t(n) * w);
  for (int64_t i = 0; i < n; ++i) {
    uint8_t *dst = a.data.data() + i * w;
    if (isFloat(a.elem)) {
      // Redraw values that round to zero in the element type.
      while (storeFloat(a.elem, rng.symmetric(), dst) == 0.0) {
      }
    } else if (a.elem == Elem::I1) {
      storeInt(a.elem, int64_t(rng.next() >> 63), dst);
    } else {
      storeInt(a.elem, int64_t(rng.next() % 201) - 100, dst);
    }
  }
  return a;
}

HostArray readNpy(const Slot &slot, const std::string &path,
                  const std::string &what) {
  npy::Array file;
  std::string error;
  if (!npy::readFile(path, file, error))
    fail(what + ": " + path + ": " + error);
  HostArray a;
  a.elem = slot.elem;
  a.shape = file.shape;
  if (npyOf(slot.elem) != file.dtype || a.shape.size() != slot.rank())
    fail(what + ": expected " + slot.typeText + ", got " +
         gotString(a, npy::dtypeName(file.dtype)));
  checkShape(slot, a, npy::dtypeName(file.dtype), what);
  a.data = std::move(file.data);
  if (a.elem == Elem::I1)
    for (uint8_t &b : a.data)
      if (b > 1)
        fail(what + ": " + path +
             ": bool array holds a byte other than 0 "
             "or 1");
  return a;
}

HostArray parseScalar(const Slot &slot, const std::string &text,
                      const std::string &what) {
  HostArray a;
  a.elem = slot.elem;
  a.data.resize(widthOf(slot.elem));
  if (isFloat(slot.elem)) {
    double v;
    if (!parseDouble(trim(text), v))
      fail(what + ": bad " + slot.typeText + " value '" + text + "'");
    storeFloat(slot.elem, v, a.data.data());
    return a;
  }
  int64_t v;
  if (slot.elem == Elem::I1 && (text == "true" || text == "false"))
    v = text == "true";
  else if (!parseInteger(trim(text), v))
    fail(what + ": bad " + slot.typeText + " value '" + text + "'");
  unsigned bits = slot.elem == Elem::Index ? 64 : widthOf(slot.elem) * 8;
  if (slot.elem == Elem::I1 ? (v != 0 && v != 1)
                            : (bits < 64 && (v < -(int64_t(1) << (bits - 1)) ||
                                             v >= (int64_t(1) << bits))))
    fail(what + ": value '" + text + "' does not fit " + slot.typeText);
  storeInt(slot.elem, v, a.data.data());
  return a;
}

} // namespace

HostArray makeInput(const Slot &slot, const std::string &spec, Rng &rng,
                    const std::string &what) {
  if (startsWith(spec, "scalar:")) {
    // A rank-0 tensor holds one value too (a fuse.prefix count).
    if (slot.isTensor && slot.rank() != 0)
      fail(what + ": " + slot.typeText + " is a tensor of rank " +
           std::to_string(slot.rank()) +
           ": give PATH.npy or rand:SHAPE, not scalar:VALUE");
    return parseScalar(slot, spec.substr(7), what);
  }
  if (!slot.isTensor)
    fail(what + ": " + slot.typeText + " is not a tensor: give scalar:VALUE");
  if (startsWith(spec, "rand:"))
    return makeRandom(slot, spec.substr(5), rng, what);
  if (spec.size() >= 4 && spec.compare(spec.size() - 4, 4, ".npy") == 0)
    return readNpy(slot, spec, what);
  fail(what + ": bad spec '" + spec +
       "' (expected PATH.npy, rand:SHAPE or scalar:VALUE)");
}

std::vector<HostArray> makeInputs(const std::string &entry,
                                  const std::vector<Slot> &args,
                                  const std::vector<std::string> &specs,
                                  uint64_t seed) {
  if (specs.size() != args.size())
    fail("'" + entry + "' takes " + std::to_string(args.size()) +
         " argument(s), got " + std::to_string(specs.size()) + " --arg");
  Rng rng(seed);
  std::vector<HostArray> inputs;
  for (size_t i = 0; i < args.size(); ++i)
    inputs.push_back(
        makeInput(args[i], specs[i], rng, "argument #" + std::to_string(i)));
  return inputs;
}

//===----------------------------------------------------------------------===//
// Outputs
//===----------------------------------------------------------------------===//

void writeNpy(const HostArray &a, const std::string &path,
              const std::string &what) {
  npy::Array out;
  out.dtype = npyOf(a.elem);
  out.shape = a.shape;
  out.data = a.data;
  std::string error;
  if (!npy::writeFile(path, out, error))
    fail(path + ": " + error);
}

void createDirectories(const std::string &dir) {
  std::string path;
  size_t pos = 0;
  while (pos <= dir.size()) {
    size_t slash = dir.find('/', pos);
    if (slash == std::string::npos)
      slash = dir.size();
    path = dir.substr(0, slash);
    pos = slash + 1;
    if (path.empty() || path == "." || path == "..")
      continue;
    if (::mkdir(path.c_str(), 0777) != 0 && errno != EEXIST)
      fail("cannot create '" + dir + "': " + std::strerror(errno));
  }
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    fail("cannot create '" + dir + "': " + std::strerror(ENOTDIR));
}

std::string joinPath(const std::string &dir, const std::string &name) {
  if (dir.empty() || dir.back() == '/')
    return dir + name;
  return dir + "/" + name;
}

void saveInputs(const std::vector<HostArray> &inputs, const std::string &dir) {
  for (size_t i = 0; i < inputs.size(); ++i)
    writeNpy(inputs[i], joinPath(dir, "arg" + std::to_string(i) + ".npy"),
             "argument #" + std::to_string(i));
}

void saveResults(const std::vector<HostArray> &results,
                 const std::string &dir) {
  for (size_t i = 0; i < results.size(); ++i)
    writeNpy(results[i], joinPath(dir, "result" + std::to_string(i) + ".npy"),
             "result #" + std::to_string(i));
}

namespace {

std::string formatElement(Elem e, const uint8_t *p) {
  char buf[64];
  if (isFloat(e)) {
    double v = loadFloat(e, p);
    if (std::isnan(v))
      return "nan";
    if (std::isinf(v))
      return v > 0 ? "inf" : "-inf";
    std::snprintf(buf, sizeof(buf), e == Elem::F64 ? "%.16g" : "%.8g", v);
    return buf;
  }
  int64_t v = loadInt(e, p);
  if (e == Elem::I1)
    return v ? "True" : "False";
  std::snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(v));
  return buf;
}

void printLevel(std::string &os, const HostArray &a, unsigned dim,
                int64_t base, bool elide, unsigned indent) {
  int64_t size = a.shape[dim];
  int64_t stride = 1;
  for (unsigned d = dim + 1; d < a.shape.size(); ++d)
    stride *= a.shape[d];
  os += "[";
  bool last = dim + 1 == a.shape.size();
  for (int64_t i = 0; i < size; ++i) {
    if (elide && size > 6 && i == 3) {
      os += last ? "..., " : "...,\n" + std::string(indent + 1, ' ');
      i = size - 3;
    }
    if (last)
      os += formatElement(a.elem, a.data.data() + (base + i) * widthOf(a.elem));
    else
      printLevel(os, a, dim + 1, base + i * stride, elide, indent + 1);
    if (i + 1 < size)
      os += last ? ", " : ",\n" + std::string(indent + 1, ' ');
  }
  os += "]";
}

} // namespace

std::string formatResults(const std::vector<HostArray> &results) {
  std::string os;
  for (size_t i = 0; i < results.size(); ++i) {
    const HostArray &a = results[i];
    os += "result #" + std::to_string(i) + ": " + elemName(a.elem) +
          " array of shape " + npy::shapeString(a.shape) + "\n";
    if (a.shape.empty()) {
      os += formatElement(a.elem, a.data.data()) + "\n";
      continue;
    }
    printLevel(os, a, 0, 0, a.numElements() > 1000, 0);
    os += "\n";
  }
  return os;
}

std::string formatTimes(std::vector<double> ms) {
  if (ms.empty())
    return "";
  std::sort(ms.begin(), ms.end());
  double median = ms.size() % 2
                      ? ms[ms.size() / 2]
                      : (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]) / 2;
  char buf[128];
  std::snprintf(buf, sizeof(buf),
                "time: median %.4f ms, min %.4f ms over "
                "%u runs\n",
                median, ms.front(), unsigned(ms.size()));
  return buf;
}

} // namespace run
} // namespace fuse
