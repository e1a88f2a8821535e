//===- Target.cpp - the GPUs fuse knows -----------------------------------===//

#include "fuse/Dialect/Fuse/IR/Target.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace fuse {
namespace {

constexpr int64_t KiB = 1024, MiB = 1024 * 1024;

// CUDA 13's ptxas starts at sm_75; LLVM 22's NVPTX back end stops with a
// fatal error (not a diagnostic) on an architecture it does not know or a
// PTX ISA too old for it, hence minPTX. The figures are those of the chip
// named (the CUDA programming guide's table of compute capabilities and
// the chip's data sheet); a module for another chip of the same
// architecture still runs, since the host code reads the device's own SM
// count at run time, and tiling uses these to size static grids and
// staged buffers.
constexpr ChipInfo kChips[] = {
    // chip, PTX, example, SMs, threads/block, threads/SM, smem/block,
    // smem/SM, registers/SM, L2, vector bytes
    {"sm_75", 63, "T4", 40, 1024, 1024, 64 * KiB, 64 * KiB, 65536, 4 * MiB,
     16},
    {"sm_80", 70, "A100", 108, 1024, 2048, 163 * KiB, 164 * KiB, 65536,
     40 * MiB, 16},
    {"sm_86", 71, "A40", 84, 1024, 1536, 99 * KiB, 100 * KiB, 65536, 6 * MiB,
     16},
    {"sm_87", 74, "Jetson AGX Orin", 16, 1024, 1536, 163 * KiB, 164 * KiB,
     65536, 4 * MiB, 16},
    {"sm_89", 78, "L40S", 142, 1024, 1536, 99 * KiB, 100 * KiB, 65536,
     96 * MiB, 16},
    {"sm_90", 78, "H100/H200 SXM", 132, 1024, 2048, 227 * KiB, 228 * KiB,
     65536, 50 * MiB, 16},
    {"sm_90a", 80, "H100/H200 SXM", 132, 1024, 2048, 227 * KiB, 228 * KiB,
     65536, 50 * MiB, 16},
    {"sm_100", 86, "B200", 148, 1024, 2048, 227 * KiB, 228 * KiB, 65536,
     126 * MiB, 16},
    {"sm_100a", 86, "B200", 148, 1024, 2048, 227 * KiB, 228 * KiB, 65536,
     126 * MiB, 16},
    {"sm_101", 86, "Jetson Thor", 20, 1024, 1536, 227 * KiB, 228 * KiB,
     65536, 32 * MiB, 16},
    {"sm_101a", 86, "Jetson Thor", 20, 1024, 1536, 227 * KiB, 228 * KiB,
     65536, 32 * MiB, 16},
    {"sm_103", 88, "B300", 148, 1024, 2048, 227 * KiB, 228 * KiB, 65536,
     126 * MiB, 16},
    {"sm_103a", 88, "B300", 148, 1024, 2048, 227 * KiB, 228 * KiB, 65536,
     126 * MiB, 16},
    {"sm_120", 87, "RTX 5090", 170, 1024, 1536, 99 * KiB, 100 * KiB, 65536,
     96 * MiB, 16},
    {"sm_120a", 87, "RTX 5090", 170, 1024, 1536, 99 * KiB, 100 * KiB, 65536,
     96 * MiB, 16},
    {"sm_121", 88, "DGX Spark", 48, 1024, 1536, 99 * KiB, 100 * KiB, 65536,
     24 * MiB, 16},
    {"sm_121a", 88, "DGX Spark", 48, 1024, 1536, 99 * KiB, 100 * KiB, 65536,
     24 * MiB, 16},
};

} // namespace

const ChipInfo *lookupChip(StringRef chip) {
  for (const ChipInfo &c : kChips)
    if (chip == c.chip)
      return &c;
  return nullptr;
}

std::string knownChips() {
  std::string list;
  for (const ChipInfo &c : kChips)
    list += (list.empty() ? "" : ", ") + std::string(c.chip);
  return list;
}

std::string unknownChipMessage(StringRef chip) {
  return ("unsupported GPU architecture '" + chip +
          "' (--chip): fuse compiles for " + knownChips())
      .str();
}

TargetAttr TargetAttr::getForChip(MLIRContext *ctx, StringRef chip) {
  const ChipInfo *c = lookupChip(chip);
  if (!c)
    return {};
  return TargetAttr::get(ctx, c->chip, c->smCount, c->maxThreadsPerBlock,
                         c->maxThreadsPerSM, c->sharedMemoryPerBlock,
                         c->sharedMemoryPerSM, c->registersPerSM, c->l2Bytes,
                         c->vectorBytes);
}

TargetAttr TargetAttr::getDefault(MLIRContext *ctx) {
  return getForChip(ctx, kDefaultChip);
}

TargetAttr TargetAttr::lookup(Operation *op) {
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    module = op->getParentOfType<ModuleOp>();
  for (; module; module = module->getParentOfType<ModuleOp>())
    if (auto t = module->getAttrOfType<TargetAttr>(getAttrName()))
      return t;
  return getDefault(op->getContext());
}

/// The compute capability of `chip` (sm_XY[Z][a|f]), or nullopt.
static std::optional<unsigned> smVersion(StringRef chip) {
  unsigned v = 0;
  if (!chip.consume_front("sm_"))
    return std::nullopt;
  StringRef digits = chip.take_while(llvm::isDigit);
  StringRef rest = chip.drop_front(digits.size());
  if (digits.size() < 2 || digits.size() > 3 || digits.getAsInteger(10, v) ||
      !(rest.empty() || rest == "a" || rest == "f"))
    return std::nullopt;
  return v;
}

unsigned TargetAttr::getSMVersion() const {
  return smVersion(getChip()).value_or(0);
}

LogicalResult
TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                   StringRef chip, int64_t smCount, int64_t maxThreadsPerBlock,
                   int64_t maxThreadsPerSM, int64_t sharedMemoryPerBlock,
                   int64_t sharedMemoryPerSM, int64_t registersPerSM,
                   int64_t l2Bytes, int64_t vectorBytes) {
  if (!smVersion(chip))
    return emitError() << "target chip '" << chip
                       << "' is not sm_ and a compute capability (sm_90, "
                          "sm_90a, sm_100f)";
  for (int64_t v : {smCount, maxThreadsPerBlock, maxThreadsPerSM,
                    sharedMemoryPerBlock, sharedMemoryPerSM, registersPerSM,
                    l2Bytes, vectorBytes})
    if (v <= 0)
      return emitError() << "target figures must be positive";
  if (maxThreadsPerBlock > maxThreadsPerSM)
    return emitError() << "target maxThreadsPerBlock (" << maxThreadsPerBlock
                       << ") exceeds maxThreadsPerSM (" << maxThreadsPerSM
                       << ")";
  if (maxThreadsPerBlock % 32)
    return emitError() << "target maxThreadsPerBlock (" << maxThreadsPerBlock
                       << ") is not a multiple of the warp (32)";
  if (sharedMemoryPerBlock > sharedMemoryPerSM)
    return emitError() << "target sharedMemoryPerBlock ("
                       << sharedMemoryPerBlock
                       << ") exceeds sharedMemoryPerSM (" << sharedMemoryPerSM
                       << ")";
  if (!llvm::isPowerOf2_64(vectorBytes) || vectorBytes > 32)
    return emitError() << "target vectorBytes (" << vectorBytes
                       << ") is not a power of two up to 32";
  return success();
}

} // namespace fuse
