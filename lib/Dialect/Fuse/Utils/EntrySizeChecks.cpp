//===- EntrySizeChecks.cpp - run-time size checks of an entry -------------===//

#include "fuse/Dialect/Fuse/Utils/EntrySizeChecks.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/Fuse/Utils/SizeAnalysis.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

#include <cstdio>
#include <functional>
#include <map>
#include <set>

using namespace mlir;
using namespace fuse;

std::string BoundarySize::describe() const {
  switch (kind) {
  case Kind::ArgDim:
    return "in" + std::to_string(arg) + " dimension " + std::to_string(dim);
  case Kind::ScalarArg:
    return "in" + std::to_string(arg);
  case Kind::Constant:
    return std::to_string(value);
  }
  return "";
}

/// `text` with '%' doubled, for a printf format (entry names may hold any
/// character when quoted).
static std::string escapePercent(StringRef text) {
  std::string out;
  for (char c : text) {
    out.push_back(c);
    if (c == '%')
      out.push_back('%');
  }
  return out;
}

/// "filter keeps" or "prefix takes", as messages say what a count is.
static StringRef countVerb(Operation *op) {
  return isa<PrefixOp>(op) ? "prefix takes" : "filter keeps";
}

/// Where `op` is, as "file:line:col", or "" where its location has none.
static std::string where(Operation *op) {
  auto loc = dyn_cast<FileLineColLoc>(op->getLoc());
  if (!loc) {
    if (auto named = dyn_cast<NameLoc>(op->getLoc()))
      loc = dyn_cast<FileLineColLoc>(named.getChildLoc());
  }
  if (!loc)
    return "";
  return (loc.getFilename().getValue() + ":" + Twine(loc.getLine()) + ":" +
          Twine(loc.getColumn()))
      .str();
}

/// "the filter at f.mlir:3:8 keeps" (or without the place).
static std::string countSubject(Operation *op) {
  StringRef verb = countVerb(op);
  auto [noun, action] = verb.split(' ');
  std::string at = where(op);
  return "the " + noun.str() + (at.empty() ? "" : " at " + at) + " " +
         action.str();
}

std::string SizeCheck::messageFormat(StringRef entry) const {
  std::string head = escapePercent(entry) + ": ";
  if (kind == Kind::NonNegative)
    return head + "invalid size: " + lhs.describe() +
           " is %lld, but it sizes a tensor and cannot be negative";
  if (rhs.kind == BoundarySize::Kind::Constant)
    return head + "size mismatch: " + lhs.describe() +
           " is %lld but the pipeline's type says %lld";
  return head + "size mismatch: " + lhs.describe() + " is %lld but " +
         rhs.describe() +
         " is %lld; the pipeline combines them, so they must be equal";
}

std::string UncheckedSize::messageFormat(StringRef entry) const {
  return escapePercent(entry) + ": size mismatch: " + size.describe() +
         " is %lld but the " + countVerb(filter).str() +
         " %lld elements; the pipeline combines them, so they must be equal";
}

std::string CountPair::messageFormat(StringRef entry) const {
  return escapePercent(entry) +
         ": size mismatch: " + escapePercent(countSubject(first)) +
         " %lld elements but " + escapePercent(countSubject(second)) +
         " %lld; the pipeline combines them, so they must be equal";
}

std::string SizeCheck::message(StringRef entry, int64_t lhsValue,
                               int64_t rhsValue) const {
  std::string format = messageFormat(entry);
  int n = std::snprintf(nullptr, 0, format.c_str(), (long long)lhsValue,
                        (long long)rhsValue);
  std::string out(n > 0 ? n : 0, '\0');
  std::snprintf(out.data(), out.size() + 1, format.c_str(), (long long)lhsValue,
                (long long)rhsValue);
  return out;
}

/// Calls `fn(size, key)` for every size at `entry`'s boundary (each
/// dimension of a tensor argument, each `index` argument) with its class
/// in `sizes`.
static void forEachBoundarySize(
    func::FuncOp entry, const SizeAnalysis &sizes,
    function_ref<void(const BoundarySize &, SizeAnalysis::Dim)> fn) {
  for (BlockArgument a : entry.getBody().front().getArguments()) {
    if (auto t = dyn_cast<RankedTensorType>(a.getType())) {
      for (int64_t d = 0; d < t.getRank(); ++d)
        fn({BoundarySize::Kind::ArgDim, a.getArgNumber(), d},
           sizes.leader(a, d));
    } else if (isa<IndexType>(a.getType())) {
      fn({BoundarySize::Kind::ScalarArg, a.getArgNumber()},
         sizes.leader(a, -1));
    }
  }
}

/// `s` as the boundary size a #fuse.size names (arg_dim, arg or static).
static BoundarySize boundaryOf(SizeAttr s) {
  switch (s.getSource()) {
  case SizeSource::ArgDim:
    return {BoundarySize::Kind::ArgDim, static_cast<unsigned>(s.getValue()),
            s.getDim()};
  case SizeSource::Arg:
    return {BoundarySize::Kind::ScalarArg, static_cast<unsigned>(s.getValue())};
  default:
    return {BoundarySize::Kind::Constant, 0, 0, s.getValue()};
  }
}

static SizeAttr attrOf(MLIRContext *ctx, const BoundarySize &b) {
  switch (b.kind) {
  case BoundarySize::Kind::ArgDim:
    return SizeAttr::get(ctx, SizeSource::ArgDim, b.arg, b.dim);
  case BoundarySize::Kind::ScalarArg:
    return SizeAttr::get(ctx, SizeSource::Arg, b.arg, 0);
  case BoundarySize::Kind::Constant:
    return SizeAttr::get(ctx, SizeSource::Static, b.value, 0);
  }
  return {};
}

/// The checks recorded on `fn` (`fuse.size_checks`, verified by the
/// dialect).
static SmallVector<SizeCheck> recordedChecks(func::FuncOp fn) {
  SmallVector<SizeCheck> out;
  auto list = fn->getAttrOfType<ArrayAttr>(SizeCheckAttr::getAttrName());
  if (!list)
    return out;
  for (auto c : list.getAsRange<SizeCheckAttr>()) {
    BoundarySize lhs = boundaryOf(c.getLhs());
    if (c.getKind() == SizeCheckKind::NonNegative)
      out.push_back({SizeCheck::Kind::NonNegative, lhs, lhs});
    else
      out.push_back({SizeCheck::Kind::Equal, lhs, boundaryOf(c.getRhs())});
  }
  return out;
}

bool fuse::impliesChecks(ArrayRef<SizeCheck> after,
                         ArrayRef<SizeCheck> before) {
  // Union-find over the sizes' descriptions ("in0 dimension 1", "in3", a
  // constant).
  std::map<std::string, std::string> parent;
  std::function<std::string(const std::string &)> find =
      [&](const std::string &x) -> std::string {
    auto it = parent.find(x);
    if (it == parent.end() || it->second == x)
      return x;
    return it->second = find(it->second);
  };
  std::set<std::string> nonNegative;
  for (const SizeCheck &c : after) {
    if (c.kind == SizeCheck::Kind::NonNegative)
      nonNegative.insert(c.lhs.describe());
    else
      parent[find(c.lhs.describe())] = find(c.rhs.describe());
  }
  return llvm::all_of(before, [&](const SizeCheck &c) {
    if (c.kind == SizeCheck::Kind::NonNegative)
      return nonNegative.count(c.lhs.describe()) > 0;
    return find(c.lhs.describe()) == find(c.rhs.describe());
  });
}

Attribute fuse::sizeCheckAttr(MLIRContext *ctx, const SizeCheck &c) {
  bool eq = c.kind == SizeCheck::Kind::Equal;
  return SizeCheckAttr::get(
      ctx, eq ? SizeCheckKind::Equal : SizeCheckKind::NonNegative,
      attrOf(ctx, c.lhs), eq ? attrOf(ctx, c.rhs) : SizeAttr());
}

unsigned fuse::recordSizeChecks(func::FuncOp fn, ArrayRef<SizeCheck> checks) {
  SmallVector<SizeCheck> have = entrySizeChecks(fn);
  MLIRContext *ctx = fn.getContext();
  SmallVector<Attribute> list;
  if (auto old = fn->getAttrOfType<ArrayAttr>(SizeCheckAttr::getAttrName()))
    llvm::append_range(list, old.getValue());
  unsigned n = 0;
  for (const SizeCheck &c : checks) {
    if (impliesChecks(have, c))
      continue;
    list.push_back(sizeCheckAttr(ctx, c));
    have.push_back(c);
    ++n;
  }
  if (n)
    fn->setAttr(SizeCheckAttr::getAttrName(), ArrayAttr::get(ctx, list));
  return n;
}

SmallVector<SizeCheck> fuse::entrySizeChecks(func::FuncOp fn) {
  SmallVector<SizeCheck> checks;
  if (fn.isDeclaration())
    return checks;
  SmallVector<SizeCheck> recorded = recordedChecks(fn);
  SizeAnalysis sizes(fn);
  Block &body = fn.getBody().front();

  // The boundary sizes of each class of equal sizes, in argument order.
  llvm::MapVector<SizeAnalysis::Dim, SmallVector<BoundarySize>> classes;
  forEachBoundarySize(fn, sizes,
                      [&](const BoundarySize &b, SizeAnalysis::Dim key) {
                        classes[key].push_back(b);
                      });

  // A static size in a class fixes it: the first one found (two different
  // ones in one class cannot both hold; the verifiers reject most such IR
  // and the check against the first reports it at run time).
  // A class holding some tensor's dimension is a size: its `index`
  // scalars must not be negative.
  DenseMap<SizeAnalysis::Dim, int64_t> fixed;
  llvm::DenseSet<SizeAnalysis::Dim> sized;
  auto note = [&](Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t)
      return;
    for (int64_t d = 0; d < t.getRank(); ++d) {
      SizeAnalysis::Dim key = sizes.leader(v, d);
      if (!classes.count(key))
        continue;
      sized.insert(key);
      if (!t.isDynamicDim(d))
        fixed.try_emplace(key, t.getDimSize(d));
    }
  };
  for (BlockArgument a : body.getArguments())
    note(a);
  fn.walk([&](Operation *op) {
    for (Value r : op->getResults())
      note(r);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument a : block.getArguments())
          note(a);
  });

  for (auto &[key, members] : classes) {
    auto it = fixed.find(key);
    for (const BoundarySize &m : members)
      if (m.kind == BoundarySize::Kind::ScalarArg && sized.count(key))
        checks.push_back({SizeCheck::Kind::NonNegative, m, m});
    if (it != fixed.end()) {
      BoundarySize c{BoundarySize::Kind::Constant, 0, 0, it->second};
      for (const BoundarySize &m : members)
        checks.push_back({SizeCheck::Kind::Equal, m, c});
      continue;
    }
    for (const BoundarySize &m : llvm::drop_begin(members))
      checks.push_back({SizeCheck::Kind::Equal, m, members.front()});
  }
  for (const SizeCheck &c : recorded)
    if (!impliesChecks(checks, c))
      checks.push_back(c);
  // Non-negative scalars first: a negative size is reported as itself, not
  // as a mismatch.
  llvm::stable_sort(checks, [](const SizeCheck &a, const SizeCheck &b) {
    return a.kind == SizeCheck::Kind::NonNegative &&
           b.kind != SizeCheck::Kind::NonNegative;
  });
  return checks;
}

SmallVector<UncheckedSize> fuse::entryUncheckedSizes(func::FuncOp fn) {
  SmallVector<UncheckedSize> out;
  if (fn.isDeclaration())
    return out;
  SizeAnalysis sizes(fn);
  DenseMap<SizeAnalysis::Dim, Operation *> kept;
  fn.walk([&](Operation *op) {
    if (isa<FilterOp, PrefixOp>(op))
      for (Value r : op->getResults())
        kept.try_emplace(sizes.leader(r, 0), op);
  });
  forEachBoundarySize(fn, sizes,
                      [&](const BoundarySize &b, SizeAnalysis::Dim key) {
                        if (Operation *f = kept.lookup(key))
                          out.push_back({f, b});
                      });
  return out;
}

SmallVector<CountPair> fuse::entryCountPairs(func::FuncOp fn) {
  SmallVector<CountPair> out;
  if (fn.isDeclaration())
    return out;
  SizeAnalysis sizes(fn);
  llvm::MapVector<SizeAnalysis::Dim, SmallVector<Operation *>> counts;
  fn.walk([&](Operation *op) {
    if (isa<FilterOp, PrefixOp>(op))
      counts[sizes.leader(op->getResult(0), 0)].push_back(op);
  });
  for (auto &[key, ops] : counts)
    for (Operation *op : llvm::drop_begin(ops))
      out.push_back({ops.front(), op});
  return out;
}

void fuse::warnUncheckedSizes(func::FuncOp fn) {
  for (const UncheckedSize &u : entryUncheckedSizes(fn))
    u.filter->emitWarning()
        << "'" << fn.getSymName() << "': " << u.size.describe()
        << " must equal the number of elements this "
        << (isa<PrefixOp>(u.filter) ? "prefix takes" : "filter keeps")
        << " (they are combined); that number is known only while the "
           "pipeline runs, so it is checked then, not before the call: "
           "another size fails the call with a size mismatch after the "
           "steps before it have run";
  for (const CountPair &p : entryCountPairs(fn))
    p.second->emitWarning()
        << "'" << fn.getSymName() << "': the number of elements this "
        << (isa<PrefixOp>(p.second) ? "prefix takes" : "filter keeps")
        << " must equal the number " << countSubject(p.first)
        << " (they are combined); both are known only while the pipeline "
           "runs, so they are checked then: different numbers fail the "
           "call with a size mismatch after the steps before it have run";
}
