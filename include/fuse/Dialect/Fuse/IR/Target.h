//===- Target.h - the GPUs fuse knows ---------------------------*- C++ -*-===//
//
// The one table of GPU figures: each architecture fuse compiles for, the
// oldest PTX ISA that targets it, and the figures of a representative chip
// (TargetAttr). Tiling, code generation and the serializer read it; nothing
// else holds a GPU figure.
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_DIALECT_FUSE_IR_TARGET_H
#define FUSE_DIALECT_FUSE_IR_TARGET_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace fuse {

/// The architecture the tools and pipelines compile for unless told.
inline constexpr llvm::StringLiteral kDefaultChip = "sm_90";

/// One architecture's row of the table.
struct ChipInfo {
  const char *chip;
  /// The oldest PTX ISA (major * 10 + minor) that can target it.
  unsigned minPTX;
  /// The chip whose figures stand for it.
  const char *example;
  int64_t smCount;
  int64_t maxThreadsPerBlock;
  int64_t maxThreadsPerSM;
  /// Shared memory a block may opt in to, and an SM has.
  int64_t sharedMemoryPerBlock;
  int64_t sharedMemoryPerSM;
  int64_t registersPerSM;
  int64_t l2Bytes;
  int64_t vectorBytes;
};

/// The row of `chip`, or null.
const ChipInfo *lookupChip(llvm::StringRef chip);

/// The architectures of the table, comma-separated (for diagnostics).
std::string knownChips();

/// The error for a chip the table does not hold, naming the ones it does.
std::string unknownChipMessage(llvm::StringRef chip);

} // namespace fuse

#endif // FUSE_DIALECT_FUSE_IR_TARGET_H
