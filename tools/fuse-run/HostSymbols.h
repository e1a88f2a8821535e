//===- HostSymbols.h - what fuse-run binds in the JIT ----------*- C++ -*-===//
//
// The functions the lowered entries call that fuse-run provides: libm
// (bound explicitly, so they resolve where the process symbol search does
// not see libm), a malloc that reports failure instead of returning null,
// and the size-error hook of fuse-cpu-count-checks. The collectives of
// sharded entries are in Shards.h.
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_RUN_HOSTSYMBOLS_H
#define FUSE_RUN_HOSTSYMBOLS_H

#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"

#include <csetjmp>
#include <string>

namespace fuse::run {

/// Where the generated code's malloc fails (a size too large for this
/// machine), the call is abandoned by longjmp to `*allocationFailure`, set
/// by the caller around each call, with the size in failedAllocationBytes.
extern thread_local jmp_buf *allocationFailure;
extern thread_local size_t failedAllocationBytes;

/// The message of a failed run-time size check (fuse-cpu-count-checks):
/// the entry reports it through the hook and returns empty results; the
/// caller clears it before a call and reports it after.
extern thread_local std::string sizeError;

/// libm, malloc and fuse_cpu_size_error for the JIT.
llvm::orc::SymbolMap hostSymbols(llvm::orc::MangleAndInterner interner);

} // namespace fuse::run

#endif // FUSE_RUN_HOSTSYMBOLS_H
