//===- HostSymbols.cpp - what fuse-run binds in the JIT -------------------===//

#include "HostSymbols.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace fuse::run;

// The code would otherwise write through a null pointer. The JIT-compiled
// code holds no resources of its own to release; what it allocated before
// is lost with the process, which then exits.
thread_local jmp_buf *fuse::run::allocationFailure = nullptr;
thread_local size_t fuse::run::failedAllocationBytes = 0;

static void *checkedMalloc(size_t bytes) {
  void *p = std::malloc(bytes);
  if (!p && bytes && allocationFailure) {
    failedAllocationBytes = bytes;
    longjmp(*allocationFailure, 1);
  }
  return p;
}

thread_local std::string fuse::run::sizeError;

static void sizeErrorHook(const char *format, int64_t size, int64_t count) {
  if (!sizeError.empty())
    return;
  int n = std::snprintf(nullptr, 0, format, (long long)size, (long long)count);
  sizeError.assign(n > 0 ? n : 0, '\0');
  std::snprintf(sizeError.data(), sizeError.size() + 1, format, (long long)size,
                (long long)count);
}

namespace {

/// libm functions the lowered code may call (math-to-llvm intrinsics and
/// math-to-libm calls), bound explicitly so they resolve even where the
/// process symbol search does not see libm.
llvm::orc::SymbolMap libmSymbols(llvm::orc::MangleAndInterner interner) {
  llvm::orc::SymbolMap map;
  auto add = [&](const char *name, auto *fn) {
    map[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(fn),
                           llvm::JITSymbolFlags::Exported};
  };
  using F1 = float (*)(float);
  using D1 = double (*)(double);
  using F2 = float (*)(float, float);
  using D2 = double (*)(double, double);
  add("expf", static_cast<F1>(::expf));
  add("exp", static_cast<D1>(::exp));
  add("exp2f", static_cast<F1>(::exp2f));
  add("exp2", static_cast<D1>(::exp2));
  add("expm1f", static_cast<F1>(::expm1f));
  add("expm1", static_cast<D1>(::expm1));
  add("logf", static_cast<F1>(::logf));
  add("log", static_cast<D1>(::log));
  add("log2f", static_cast<F1>(::log2f));
  add("log2", static_cast<D1>(::log2));
  add("log10f", static_cast<F1>(::log10f));
  add("log10", static_cast<D1>(::log10));
  add("log1pf", static_cast<F1>(::log1pf));
  add("log1p", static_cast<D1>(::log1p));
  add("sqrtf", static_cast<F1>(::sqrtf));
  add("sqrt", static_cast<D1>(::sqrt));
  add("tanhf", static_cast<F1>(::tanhf));
  add("tanh", static_cast<D1>(::tanh));
  add("sinf", static_cast<F1>(::sinf));
  add("sin", static_cast<D1>(::sin));
  add("cosf", static_cast<F1>(::cosf));
  add("cos", static_cast<D1>(::cos));
  add("tanf", static_cast<F1>(::tanf));
  add("tan", static_cast<D1>(::tan));
  add("atanf", static_cast<F1>(::atanf));
  add("atan", static_cast<D1>(::atan));
  add("erff", static_cast<F1>(::erff));
  add("erf", static_cast<D1>(::erf));
  add("powf", static_cast<F2>(::powf));
  add("pow", static_cast<D2>(::pow));
  add("atan2f", static_cast<F2>(::atan2f));
  add("atan2", static_cast<D2>(::atan2));
  add("fmodf", static_cast<F2>(::fmodf));
  add("fmod", static_cast<D2>(::fmod));
  return map;
}

} // namespace

llvm::orc::SymbolMap
fuse::run::hostSymbols(llvm::orc::MangleAndInterner interner) {
  llvm::orc::SymbolMap map = libmSymbols(interner);
  map[interner("malloc")] = {llvm::orc::ExecutorAddr::fromPtr(&checkedMalloc),
                             llvm::JITSymbolFlags::Exported};
  map[interner("fuse_cpu_size_error")] = {
      llvm::orc::ExecutorAddr::fromPtr(&sizeErrorHook),
      llvm::JITSymbolFlags::Exported};
  return map;
}
