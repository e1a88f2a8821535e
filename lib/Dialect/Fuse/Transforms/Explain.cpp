//===- Explain.cpp - the traffic model: bytes and kernels per group -------===//
//
// See FuseExplainPass in Passes.td. Bytes are polynomials in the dynamic
// sizes: one symbol per class of SizeAnalysis, named n, m, k, ... in the
// order the function arguments (then the ops) introduce them; a filter's
// result size is `count`.
//
//===----------------------------------------------------------------------===//

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/Fuse/Transforms/Passes.h"
#include "fuse/Dialect/Fuse/Utils/SizeAnalysis.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <map>

namespace fuse {
#define GEN_PASS_DEF_FUSEEXPLAINPASS
#include "fuse/Dialect/Fuse/Transforms/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

namespace {

/// A polynomial with integer coefficients over size symbols.
struct Poly {
  std::map<std::vector<int>, int64_t> terms;
  void add(const Poly &o) {
    for (auto &[m, c] : o.terms)
      terms[m] += c;
  }
  bool isZero() const {
    return llvm::all_of(terms, [](auto &t) { return t.second == 0; });
  }
  std::string str(ArrayRef<std::string> names) const {
    std::string s;
    // Highest degree first, constants last.
    std::vector<std::pair<std::vector<int>, int64_t>> sorted(terms.begin(),
                                                             terms.end());
    llvm::stable_sort(sorted, [](auto &a, auto &b) {
      return a.first.size() > b.first.size();
    });
    for (auto &[m, c] : sorted) {
      if (c == 0)
        continue;
      if (!s.empty())
        s += " + ";
      std::string mono;
      for (int sym : m)
        mono += (mono.empty() ? "" : "*") + names[sym];
      if (mono.empty())
        s += std::to_string(c);
      else if (c == 1)
        s += mono;
      else
        s += std::to_string(c) + "*" + mono;
    }
    return s.empty() ? "0" : s;
  }
};

std::string locString(Location loc) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto fl = dyn_cast<FileLineColLoc>(loc))
    os << fl.getFilename().getValue().rsplit('/').second << ":"
       << fl.getLine() << ":" << fl.getColumn();
  else
    loc.print(os);
  return s;
}

class Model {
public:
  Model(FunctionOpInterface func) : func(func), sizes(func) {
    // Name the argument sizes first, in order.
    for (BlockArgument arg : func.getArguments())
      if (auto t = dyn_cast<RankedTensorType>(arg.getType()))
        for (int64_t d = 0; d < t.getRank(); ++d)
          if (t.isDynamicDim(d))
            symbol(arg, d, "dim " + std::to_string(d) + " of argument #" +
                               std::to_string(arg.getArgNumber()));
    // Then the sizes of compactions.
    func->walk([&](FilterOp f) { symbol(f.getResult(0), 0, ""); });
    // A dimension that a collapse_shape merges (fuse-collapse-rows' rows of
    // a rank-3 argument) is the product of the merged ones: 4*n*m*k bytes,
    // not 4*k*p with p a name of its own.
    func->walk([&](tensor::CollapseShapeOp c) {
      auto src = cast<RankedTensorType>(c.getSrcType());
      for (auto [d, group] : llvm::enumerate(c.getReassociationIndices())) {
        if (group.size() < 2 || !c.getResultType().isDynamicDim(d))
          continue;
        Product p;
        for (int64_t s : group) {
          if (!src.isDynamicDim(s)) {
            p.coef *= src.getDimSize(s);
            continue;
          }
          Product inner = dimProduct(c.getSrc(), s);
          p.coef *= inner.coef;
          llvm::append_range(p.mono, inner.mono);
        }
        products.try_emplace(sizes.leader(c.getResult(), d), p);
      }
    });
  }

  /// A dynamic dimension as a product of named sizes and a constant.
  struct Product {
    std::vector<int> mono;
    int64_t coef = 1;
  };

  Product dimProduct(Value v, int64_t d) {
    auto it = products.find(sizes.leader(v, d));
    if (it != products.end())
      return it->second;
    return Product{{symbol(v, d, "")}, 1};
  }

  /// Bytes of the whole tensor `v`.
  Poly bytes(Value v) {
    auto t = cast<RankedTensorType>(v.getType());
    Poly p;
    std::vector<int> mono;
    int64_t coef = std::max<int64_t>(1, t.getElementTypeBitWidth() / 8);
    for (int64_t d = 0; d < t.getRank(); ++d) {
      if (t.isDynamicDim(d)) {
        Product p = dimProduct(v, d);
        llvm::append_range(mono, p.mono);
        coef *= p.coef;
      } else {
        coef *= t.getDimSize(d);
      }
    }
    llvm::sort(mono);
    p.terms[mono] = coef;
    return p;
  }

  /// Elements of `shapeOf` times the element size of `eltOf`.
  Poly bytesAs(Value shapeOf, Value eltOf) {
    auto t = cast<RankedTensorType>(shapeOf.getType());
    auto e = cast<RankedTensorType>(eltOf.getType());
    Poly p = bytes(shapeOf);
    int64_t from = std::max<int64_t>(1, t.getElementTypeBitWidth() / 8);
    int64_t to = std::max<int64_t>(1, e.getElementTypeBitWidth() / 8);
    for (auto &[m, c] : p.terms)
      c = c / from * to;
    return p;
  }

  int symbol(Value v, int64_t d, std::string what) {
    SizeAnalysis::Dim lead = sizes.leader(v, d);
    auto it = ids.find(lead);
    if (it != ids.end())
      return it->second;
    std::string name;
    Operation *def = v.getDefiningOp();
    if (what.empty() && def && isa<FilterOp>(def)) {
      name = countNames++ ? "count" + std::to_string(countNames) : "count";
      what = "the number of elements kept by the filter at " +
             locString(def->getLoc());
    } else {
      static const char *letters[] = {"n", "m", "k", "p", "q", "r", "s"};
      name = plainNames < 7 ? letters[plainNames]
                            : "s" + std::to_string(plainNames);
      ++plainNames;
      if (what.empty())
        what = "dim " + std::to_string(d) + " of the value at " +
               locString(v.getLoc());
    }
    int id = names.size();
    names.push_back(name);
    legend.push_back(name + " = " + what);
    ids[lead] = id;
    return id;
  }

  FunctionOpInterface func;
  SizeAnalysis sizes;
  llvm::DenseMap<SizeAnalysis::Dim, int> ids;
  llvm::DenseMap<SizeAnalysis::Dim, Product> products;
  std::vector<std::string> names, legend;
  int plainNames = 0, countNames = 0;
};

struct Traffic {
  Poly read, write;
  int kernels = 1;
  std::string note;
};

/// Tensors read by a group: each operand once, a gather source only at its
/// indices, a broadcast's input once, a tensor whose sizes alone are read
/// not at all.
Traffic groupTraffic(Model &m, GroupOp group) {
  Traffic t;
  Block &body = group.getBody().front();
  for (auto [operand, bodyArg] :
       llvm::zip_equal(group.getOperands(), body.getArguments())) {
    Value arg = bodyArg; // captured below (bindings cannot be before C++20)
    if (!isa<RankedTensorType>(operand.getType()))
      continue;
    // Only its sizes read (a map's unread input, a tensor.dim): no bytes.
    if (onlySizesRead(arg))
      continue;
    // Only read as gather sources: one element per index.
    bool onlyGather = !arg.use_empty() &&
                      llvm::all_of(arg.getUsers(), [&](Operation *u) {
                        auto g = dyn_cast<GatherOp>(u);
                        return g && g.getSource() == arg &&
                               g.getIndices() != arg;
                      });
    if (onlyGather) {
      for (Operation *u : arg.getUsers())
        t.read.add(
            m.bytesAs(cast<GatherOp>(u).getIndices(), operand));
      continue;
    }
    t.read.add(m.bytes(operand));
  }
  for (Value r : group.getResults())
    t.write.add(m.bytes(r));
  GroupKind kind = group.getKind();
  if (kind == GroupKind::Reduce) {
    t.kernels = 2;
    t.note = "per-block partials, then the finishing stage";
  } else if (kind == GroupKind::RowReduce) {
    t.kernels = 1;
    for (Value v : group.getOperands())
      if (auto ty = dyn_cast<RankedTensorType>(v.getType()))
        if (ty.getRank() == 2 && ty.isDynamicDim(1))
          t.note = "each row is read once when it fits on chip (dynamic "
                   "row length: checked at run time)";
  } else if (kind == GroupKind::LineReduce) {
    t.kernels = 1;
    t.note = "a thread a line, or a block a run of rows; lines too few to "
             "fill the GPU are split, their partials combined by a second "
             "kernel";
  } else if (kind == GroupKind::Scan || kind == GroupKind::Filter) {
    t.kernels = 1;
    t.note = "single pass with decoupled look-back";
  } else if (kind == GroupKind::Histogram) {
    t.kernels = 1;
    t.note = "counts zeroed, then one pass: each block counts in shared "
             "memory and adds its counts to them";
  } else if (kind == GroupKind::SegmentedReduce) {
    t.kernels = 1;
    t.note = "one pass over the segments: 8 lanes, a warp or a block a "
             "segment by the mean length; elements in no segment are not "
             "read";
  }
  return t;
}

/// A fuse op outside any group is its own pass over memory.
Traffic opTraffic(Model &m, Operation *op) {
  Traffic t;
  for (Value v : op->getOperands())
    if (isa<RankedTensorType>(v.getType()))
      t.read.add(m.bytes(v));
  if (auto g = dyn_cast<GatherOp>(op)) {
    t.read = m.bytes(g.getIndices());
    t.read.add(m.bytesAs(g.getIndices(), g.getSource()));
  }
  for (Value r : op->getResults())
    t.write.add(m.bytes(r));
  if (auto r = dyn_cast<ReduceOp>(op))
    if (r.isFullReduction())
      t.kernels = 2;
  return t;
}

struct FuseExplainPass : fuse::impl::FuseExplainPassBase<FuseExplainPass> {
  void runOnOperation() override {
    getOperation()->walk([&](FunctionOpInterface func) { explain(func); });
  }

  void explain(FunctionOpInterface func) {
    Model m(func);
    Poly totalRead, totalWrite;
    int groups = 0, kernels = 0;
    func->walk([&](Operation *op) {
      if (!isa_and_nonnull<FuseDialect>(op->getDialect()) || isa<YieldOp>(op))
        return WalkResult::advance();
      if (op->getParentOfType<GroupOp>() ||
          (op->getParentOp() &&
           isa_and_nonnull<FuseDialect>(op->getParentOp()->getDialect())))
        return WalkResult::skip();
      if (isa<PrefixOp>(op)) {
        // A view of its source: no pass and no bytes of its own.
        auto diag = emitRemark(op->getLoc());
        diag << "fuse.prefix: a view of its source's first elements, no "
                "pass";
        if (ArrayAttr reasons =
                FuseDialect::NotFusedAttrHelper(op->getContext()).getAttr(op))
          for (Attribute r : reasons)
            if (auto s = dyn_cast<StringAttr>(r))
              diag << "\n  not fused: " << s.getValue();
        return WalkResult::skip();
      }
      Traffic t;
      std::string head, fused;
      if (auto group = dyn_cast<GroupOp>(op)) {
        t = groupTraffic(m, group);
        head = "group \"" + stringifyGroupKind(group.getKind()).str() + "\"";
        for (Operation &inner : group.getBody().front().without_terminator()) {
          if (!isa_and_nonnull<FuseDialect>(inner.getDialect()))
            continue;
          if (!fused.empty())
            fused += ", ";
          fused += inner.getName().getStringRef().str() + " at " +
                   locString(inner.getLoc());
        }
      } else {
        t = opTraffic(m, op);
        head = "unfused " + op->getName().getStringRef().str();
        fused = op->getName().getStringRef().str() + " at " +
                locString(op->getLoc());
      }
      ++groups;
      kernels += t.kernels;
      totalRead.add(t.read);
      totalWrite.add(t.write);
      auto diag = emitRemark(op->getLoc());
      diag << head << ": read " << t.read.str(m.names) << " bytes, write "
           << t.write.str(m.names) << " bytes, 1 pass, " << t.kernels
           << (t.kernels == 1 ? " kernel" : " kernels");
      if (!t.note.empty())
        diag << " (" << t.note << ")";
      diag << "\n  fused: " << fused;
      if (ArrayAttr reasons = FuseDialect::NotFusedAttrHelper(op->getContext())
                                  .getAttr(op))
        for (Attribute r : reasons)
          if (auto s = dyn_cast<StringAttr>(r))
            diag << "\n  not fused: " << s.getValue();
      return WalkResult::skip();
    });
    if (groups == 0)
      return;
    numGroups += groups;
    numKernels += kernels;
    auto diag = emitRemark(func->getLoc());
    diag << "total for @" << func.getName() << ": " << groups
         << (groups == 1 ? " pass, " : " passes, ") << kernels
         << (kernels == 1 ? " kernel" : " kernels") << ", read "
         << totalRead.str(m.names) << " bytes, write "
         << totalWrite.str(m.names) << " bytes";
    if (!m.legend.empty()) {
      diag << "; where ";
      for (auto [i, l] : llvm::enumerate(m.legend))
        diag << (i ? "; " : "") << l;
    }
  }
};

} // namespace
