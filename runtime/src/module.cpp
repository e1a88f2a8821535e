//===- module.cpp - code images, kernels and launches ---------------------===//
//
// Modules are loaded with the CUDA driver API, whose entry points come from
// cudaGetDriverEntryPointByVersion: the library never links libcuda.so, so
// it loads on machines without a driver and reports that from fuse_init.
//
// Loaded modules are cached by content (FNV-1a hash of the bytes, confirmed
// by a full comparison) and live until the process exits.
//
//===----------------------------------------------------------------------===//
#include "internal.h"

#include <cuda.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

struct fuse_function_st {
  CUfunction fn;
  std::string name;
  /// The dynamic shared memory the kernel has been allowed (bytes). A
  /// kernel gets 48 KiB of static and dynamic shared memory together
  /// without asking, so a kernel with static shared memory is allowed
  /// less than 48 KiB of dynamic: fuse_launch sets the attribute once for
  /// each larger size it is asked for, from the first byte.
  std::atomic<unsigned> dynamicSharedAllowed{0};
  std::mutex attributeMutex;
};

struct fuse_module_st {
  CUmodule mod;
  std::vector<unsigned char> image;
  std::mutex mutex;
  std::unordered_map<std::string, std::unique_ptr<fuse_function_st>> funcs;
};

namespace fuse_rt {
void deviceCC(int *major, int *minor);

namespace {

using PFN_load = CUresult (*)(CUmodule *, const void *, unsigned,
                              CUjit_option *, void **);
using PFN_getFunction = CUresult (*)(CUfunction *, CUmodule, const char *);
using PFN_launch = CUresult (*)(CUfunction, unsigned, unsigned, unsigned,
                                unsigned, unsigned, unsigned, unsigned,
                                CUstream, void **, void **);
using PFN_errName = CUresult (*)(CUresult, const char **);
using PFN_funcSetAttribute = CUresult (*)(CUfunction, CUfunction_attribute,
                                          int);
using PFN_driverVersion = CUresult (*)(int *);

PFN_load pLoad;
PFN_getFunction pGetFunction;
PFN_launch pLaunch;
PFN_errName pErrName, pErrString;
PFN_funcSetAttribute pFuncSetAttribute;

std::mutex cacheMutex;
std::unordered_multimap<uint64_t, std::unique_ptr<fuse_module_st>> cache;

template <typename T>
fuse_status_t resolve(const char *symbol, int version, T *fn, const char *api) {
  void *p = nullptr;
  cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
  cudaError_t err = cudaGetDriverEntryPointByVersion(symbol, &p, version,
                                                     cudaEnableDefault, &q);
  if (err != cudaSuccess)
    return cudaFail(err, api, "cudaGetDriverEntryPointByVersion");
  if (q != cudaDriverEntryPointSuccess || !p)
    return fail(FUSE_ERROR_NO_DEVICE,
                "%s: the CUDA driver does not provide %s (version %d)", api,
                symbol, version);
  *fn = reinterpret_cast<T>(p);
  return FUSE_SUCCESS;
}

const char *cuName(CUresult r) {
  const char *s = nullptr;
  if (!pErrName || pErrName(r, &s) != CUDA_SUCCESS || !s)
    return "CUDA_ERROR_UNKNOWN";
  return s;
}
const char *cuString(CUresult r) {
  const char *s = nullptr;
  if (!pErrString || pErrString(r, &s) != CUDA_SUCCESS || !s)
    return "unknown error";
  return s;
}

bool cuSticky(CUresult r) {
  switch (r) {
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_LAUNCH_FAILED:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
  case CUDA_ERROR_ECC_UNCORRECTABLE:
  case CUDA_ERROR_CONTEXT_IS_DESTROYED:
    return true;
  default:
    return false;
  }
}

} // namespace

void poison(const std::string &message);

fuse_status_t cuFail(CUresult r, fuse_status_t status, const char *api,
                     const std::string &what) {
  fail(status, "%s: %s failed: %s (%s)", api, what.c_str(), cuName(r),
       cuString(r));
  if (cuSticky(r)) {
    poison(fuse_last_error_message());
    return status == FUSE_ERROR_INVALID_ARGUMENT ? FUSE_ERROR_LAUNCH : status;
  }
  return status;
}

fuse_status_t loadDriverEntryPoints(const char *api) {
  const int v = 12000;
  if (fuse_status_t s = resolve("cuGetErrorName", v, &pErrName, api))
    return s;
  if (fuse_status_t s = resolve("cuGetErrorString", v, &pErrString, api))
    return s;
  if (fuse_status_t s = resolve("cuModuleLoadDataEx", v, &pLoad, api))
    return s;
  if (fuse_status_t s = resolve("cuModuleGetFunction", v, &pGetFunction, api))
    return s;
  if (fuse_status_t s =
          resolve("cuFuncSetAttribute", v, &pFuncSetAttribute, api))
    return s;
  return resolve("cuLaunchKernel", v, &pLaunch, api);
}

// ---- image inspection ---------------------------------------------------

namespace {

struct Target {
  int sm = 0;                // e.g. 90
  bool ptx = false;          // PTX (JIT-compiled) rather than SASS
  bool archSpecific = false; // sm_90a: exactly this CC only
};

std::string describe(const Target &t) {
  char buf[64];
  snprintf(buf, sizeof buf, "%s sm_%d%s (compute capability %d.%d)",
           t.ptx ? "PTX for" : "cubin for", t.sm, t.archSpecific ? "a" : "",
           t.sm / 10, t.sm % 10);
  return buf;
}

bool runsOn(const Target &t, int major, int minor) {
  int dev = major * 10 + minor;
  if (t.archSpecific)
    return t.sm == dev;
  if (t.ptx)
    return t.sm <= dev;
  return t.sm / 10 == major && t.sm % 10 <= minor;
}

bool readU32(const unsigned char *p, size_t size, size_t off, uint32_t *v) {
  if (off + 4 > size)
    return false;
  memcpy(v, p + off, 4);
  return true;
}

// The SM of a CUDA ELF from e_flags: bits 8-15 in ABI version >= 8 (CUDA
// 12.8+), bits 0-7 before.
bool cubinTarget(const unsigned char *p, size_t size, Target *t) {
  if (size < 64 ||
      memcmp(p,
             "\x7f"
             "ELF",
             4) != 0 ||
      p[4] != 2)
    return false;
  uint32_t flags;
  if (!readU32(p, size, 48, &flags))
    return false;
  t->ptx = false;
  t->sm = p[8] >= 8 ? (flags >> 8) & 0xff : flags & 0xff;
  return t->sm != 0;
}

uint64_t readU64(const unsigned char *p, size_t off) {
  uint64_t v;
  memcpy(&v, p + off, 8);
  return v;
}
uint16_t readU16(const unsigned char *p, size_t off) {
  uint16_t v;
  memcpy(&v, p + off, 2);
  return v;
}

// The driver takes no image size and trusts the ELF's offsets: check that
// the header, the program and section header tables and every section's
// contents lie inside the image, so a truncated or corrupt cubin is an
// error instead of an out-of-bounds read.
const char *elfOutOfBounds(const unsigned char *p, size_t size) {
  uint64_t phoff = readU64(p, 32), shoff = readU64(p, 40);
  uint16_t phentsize = readU16(p, 54), phnum = readU16(p, 56);
  uint16_t shentsize = readU16(p, 58), shnum = readU16(p, 60);
  auto inside = [&](uint64_t off, uint64_t len) {
    return off <= size && len <= size - off;
  };
  if (phnum && (phentsize < 56 || !inside(phoff, uint64_t(phentsize) * phnum)))
    return "its program header table lies outside the image";
  if (shnum && (shentsize < 64 || !inside(shoff, uint64_t(shentsize) * shnum)))
    return "its section header table lies outside the image";
  for (unsigned i = 0; i < shnum; ++i) {
    const unsigned char *sh = p + shoff + uint64_t(i) * shentsize;
    uint32_t type;
    memcpy(&type, sh + 4, 4);
    if (type != 8 /* SHT_NOBITS */ && !inside(readU64(sh, 24), readU64(sh, 32)))
      return "a section lies outside the image";
  }
  for (unsigned i = 0; i < phnum; ++i) {
    const unsigned char *ph = p + phoff + uint64_t(i) * phentsize;
    if (!inside(readU64(ph, 8), readU64(ph, 32)))
      return "a segment lies outside the image";
  }
  return nullptr;
}

bool ptxTarget(const char *text, size_t size, Target *t) {
  std::string s(text, strnlen(text, size));
  size_t pos = s.find(".target");
  if (pos == std::string::npos)
    return false;
  pos = s.find("sm_", pos);
  if (pos == std::string::npos)
    return false;
  t->ptx = true;
  t->sm = atoi(s.c_str() + pos + 3);
  size_t end = pos + 3;
  while (end < s.size() && isdigit(static_cast<unsigned char>(s[end])))
    ++end;
  t->archSpecific = end < s.size() && s[end] == 'a';
  return t->sm != 0;
}

// Fatbin container: 16-byte header, then entries of {u16 kind (1 PTX,
// 2 ELF), u16, u32 header size, u64 payload size, ..., u32 arch at +28}.
bool fatbinTargets(const unsigned char *p, size_t size,
                   std::vector<Target> *out) {
  uint32_t magic;
  if (!readU32(p, size, 0, &magic) || magic != 0xBA55ED50u || size < 16)
    return false;
  uint16_t hs;
  uint64_t fs;
  memcpy(&hs, p + 6, 2);
  memcpy(&fs, p + 8, 8);
  size_t off = hs, end = hs + fs < size ? hs + fs : size;
  while (off + 32 <= end) {
    uint16_t kind;
    uint32_t ehs, arch;
    uint64_t ps;
    memcpy(&kind, p + off, 2);
    memcpy(&ehs, p + off + 4, 4);
    memcpy(&ps, p + off + 8, 8);
    memcpy(&arch, p + off + 28, 4);
    if (ehs < 32 || (kind != 1 && kind != 2))
      break;
    Target t;
    t.ptx = kind == 1;
    t.sm = static_cast<int>(arch);
    out->push_back(t);
    if (ps > end || off + ehs + ps > end)
      break;
    off += ehs + ps;
  }
  return !out->empty();
}

uint64_t fnv1a(const unsigned char *p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i)
    h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

} // namespace
} // namespace fuse_rt

using namespace fuse_rt;

FUSE_API fuse_status_t fuse_module_load(const void *image, size_t size,
                                        fuse_module_t *module) {
  const char *api = "fuse_module_load";
  if (module)
    *module = nullptr;
  if (fuse_status_t s = enter(api))
    return s;
  if (!module)
    return fail(FUSE_ERROR_INVALID_ARGUMENT, "%s: module is NULL", api);
  if (!image || size == 0)
    return fail(FUSE_ERROR_INVALID_ARGUMENT, "%s: empty image (%p, %zu bytes)",
                api, image, size);
  const unsigned char *p = static_cast<const unsigned char *>(image);
  int major, minor;
  deviceCC(&major, &minor);
  char devbuf[96];
  snprintf(devbuf, sizeof devbuf,
           "the device is sm_%d%d (compute capability %d.%d)", major, minor,
           major, minor);

  // Identify the image and check its target before handing it over.
  std::vector<unsigned char> bytes;
  std::vector<Target> targets;
  Target t;
  bool isPtx = false;
  if (cubinTarget(p, size, &t)) {
    if (const char *why = elfOutOfBounds(p, size))
      return fail(FUSE_ERROR_INVALID_ARGUMENT,
                  "%s: corrupt or truncated cubin (%zu bytes): %s", api, size,
                  why);
    targets.push_back(t);
    bytes.assign(p, p + size);
  } else if (fatbinTargets(p, size, &targets)) {
    uint16_t hs = readU16(p, 6);
    uint64_t fs = readU64(p, 8);
    if (fs > size || hs > size - fs)
      return fail(FUSE_ERROR_INVALID_ARGUMENT,
                  "%s: truncated fatbin: the header says %llu bytes, the image "
                  "has %zu",
                  api, static_cast<unsigned long long>(hs + fs), size);
    bytes.assign(p, p + size);
  } else if (ptxTarget(static_cast<const char *>(image), size, &t)) {
    targets.push_back(t);
    isPtx = true;
    // The driver reads PTX as a C string: make sure it ends.
    size_t len = strnlen(static_cast<const char *>(image), size);
    bytes.assign(p, p + len);
    bytes.push_back(0);
  } else {
    return fail(FUSE_ERROR_INVALID_ARGUMENT,
                "%s: the image (%zu bytes) is neither a CUDA ELF (cubin), a "
                "fatbin nor PTX with a .target line",
                api, size);
  }
  bool anyRuns = false;
  std::string list;
  for (const Target &x : targets) {
    anyRuns |= runsOn(x, major, minor);
    list += (list.empty() ? "" : ", ") + describe(x);
  }
  if (!anyRuns)
    return fail(FUSE_ERROR_UNSUPPORTED_DEVICE,
                "%s: the image cannot run on this GPU: it holds %s, and %s",
                api, list.c_str(), devbuf);

  uint64_t h = fnv1a(bytes.data(), bytes.size());
  std::lock_guard<std::mutex> lock(cacheMutex);
  auto range = cache.equal_range(h);
  for (auto it = range.first; it != range.second; ++it) {
    if (it->second->image == bytes) {
      *module = it->second.get();
      return FUSE_SUCCESS;
    }
  }
  char log[4096] = {0};
  CUjit_option opts[2] = {CU_JIT_ERROR_LOG_BUFFER,
                          CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *vals[2] = {log, reinterpret_cast<void *>(sizeof log)};
  CUmodule mod = nullptr;
  CUresult r = pLoad(&mod, bytes.data(), 2, opts, vals);
  if (r != CUDA_SUCCESS) {
    fuse_status_t status = FUSE_ERROR_INTERNAL;
    std::string what = "cuModuleLoadDataEx of " + list;
    switch (r) {
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    case CUDA_ERROR_INVALID_PTX:
    case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
      status = FUSE_ERROR_UNSUPPORTED_DEVICE;
      what += std::string(" (") + devbuf + ")";
      break;
    case CUDA_ERROR_INVALID_IMAGE:
      status = FUSE_ERROR_INVALID_ARGUMENT;
      break;
    case CUDA_ERROR_OUT_OF_MEMORY:
      status = FUSE_ERROR_OUT_OF_MEMORY;
      break;
    default:
      break;
    }
    if (log[0])
      what += std::string("; JIT log: ") + log;
    return cuFail(r, status, api, what);
  }
  (void)isPtx;
  auto m = std::make_unique<fuse_module_st>();
  m->mod = mod;
  m->image = std::move(bytes);
  *module = m.get();
  cache.emplace(h, std::move(m));
  return FUSE_SUCCESS;
}

FUSE_API fuse_status_t fuse_module_get_function(fuse_module_t module,
                                                const char *name,
                                                fuse_function_t *function) {
  const char *api = "fuse_module_get_function";
  if (function)
    *function = nullptr;
  if (fuse_status_t s = enter(api))
    return s;
  if (!module || !name || !function)
    return fail(FUSE_ERROR_INVALID_ARGUMENT,
                "%s: module, name and function must not be NULL", api);
  std::lock_guard<std::mutex> lock(module->mutex);
  auto it = module->funcs.find(name);
  if (it != module->funcs.end()) {
    *function = it->second.get();
    return FUSE_SUCCESS;
  }
  CUfunction fn = nullptr;
  CUresult r = pGetFunction(&fn, module->mod, name);
  if (r != CUDA_SUCCESS)
    return cuFail(r,
                  r == CUDA_ERROR_NOT_FOUND ? FUSE_ERROR_INVALID_ARGUMENT
                                            : FUSE_ERROR_INTERNAL,
                  api, std::string("cuModuleGetFunction(\"") + name + "\")");
  auto f = std::make_unique<fuse_function_st>();
  f->fn = fn;
  f->name = name;
  *function = f.get();
  module->funcs.emplace(name, std::move(f));
  return FUSE_SUCCESS;
}

FUSE_API fuse_status_t fuse_launch(fuse_function_t function, unsigned grid_x,
                                   unsigned grid_y, unsigned grid_z,
                                   unsigned block_x, unsigned block_y,
                                   unsigned block_z, unsigned shared_bytes,
                                   fuse_stream_t stream, void **args) {
  const char *api = "fuse_launch";
  if (fuse_status_t s = enter(api))
    return s;
  if (!function)
    return fail(FUSE_ERROR_INVALID_ARGUMENT, "%s: function is NULL", api);
  if (block_x == 0 || block_y == 0 || block_z == 0)
    return fail(FUSE_ERROR_INVALID_ARGUMENT,
                "%s: kernel %s: zero block dimension (%u, %u, %u)", api,
                function->name.c_str(), block_x, block_y, block_z);
  if (grid_x == 0 || grid_y == 0 || grid_z == 0)
    return FUSE_SUCCESS; // nothing to do (CUDA would reject the config)
  // Kernels that stage tiles in dynamic shared memory may ask for more
  // than what every kernel gets (48 KiB less its static shared memory);
  // allowed once per kernel and size.
  if (shared_bytes > function->dynamicSharedAllowed.load()) {
    std::lock_guard<std::mutex> lock(function->attributeMutex);
    if (shared_bytes > function->dynamicSharedAllowed.load()) {
      CUresult r = pFuncSetAttribute(
          function->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
          static_cast<int>(shared_bytes));
      if (r != CUDA_SUCCESS)
        return cuFail(r, FUSE_ERROR_INVALID_ARGUMENT, api,
                      "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, " +
                          std::to_string(shared_bytes) + ") of kernel " +
                          function->name);
      function->dynamicSharedAllowed.store(shared_bytes);
    }
  }
  cudaStream_t st = toStream(stream);
  CUresult r =
      pLaunch(function->fn, grid_x, grid_y, grid_z, block_x, block_y, block_z,
              shared_bytes, reinterpret_cast<CUstream>(st), args, nullptr);
  // Messages are built on the error and blocking paths only: a launch is
  // on the hot path of every generated entry.
  if (r != CUDA_SUCCESS) {
    fuse_status_t status = FUSE_ERROR_LAUNCH;
    if (r == CUDA_ERROR_INVALID_VALUE || r == CUDA_ERROR_INVALID_HANDLE)
      status = FUSE_ERROR_INVALID_ARGUMENT;
    return cuFail(r, status, api, "cuLaunchKernel of kernel " + function->name);
  }
  if (!launchBlocking())
    return FUSE_SUCCESS;
  return afterLaunch(st, api, ("kernel " + function->name).c_str());
}
