//===- Fusion.cpp - partition fuse ops into fuse.group ops ----------------===//
//
// See the description of FuseFusionPass in Passes.td. Outline:
//   1. (optional) rewrite two-pass variances to a Welford tuple reduction
//      (VarianceRewrite.cpp);
//   2. visit the fuse ops of each block in order; each op joins the groups
//      of its producers when the result is still one pass over memory
//      (joinKind says why not otherwise), cheap map producers of a foreign
//      group are recomputed, broadcasts and iotas follow their consumers;
//   3. merge sibling groups that read a common tensor over the same space;
//   4. materialise each group as a fuse.group at the place of its last op.
//
//===----------------------------------------------------------------------===//

#include "VarianceRewrite.h"

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/Fuse/Transforms/Passes.h"
#include "fuse/Dialect/Fuse/Utils/SizeAnalysis.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

#include <optional>

namespace fuse {
#define GEN_PASS_DEF_FUSEFUSIONPASS
#include "fuse/Dialect/Fuse/Transforms/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

namespace {

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

std::string describe(Operation *op) {
  return (op->getName().getStringRef() + " at " + locString(op->getLoc()))
      .str();
}

bool isLeaf(Operation *op) { return isa<BroadcastOp, IotaOp>(op); }

int64_t bodyOpCount(MapOp map) {
  int64_t n = 0;
  map.getBody().walk([&](Operation *op) {
    if (!isa<YieldOp>(op))
      ++n;
  });
  return n;
}

//===----------------------------------------------------------------------===//
// Partitioning
//===----------------------------------------------------------------------===//

struct Group {
  GroupKind kind;
  SmallVector<Operation *> ops;
  Value domain; // the iteration space
  std::vector<std::string> notFused;
  bool alive = true;
};

class Partitioner {
public:
  Partitioner(Block &block, SizeAnalysis &sizes, int64_t maxRowBytes,
              int64_t maxRecomputeOps)
      : block(block), sizes(sizes), maxRowBytes(maxRowBytes),
        maxRecomputeOps(maxRecomputeOps) {}

  void run();
  void materialise(int &numGroups, int &numFused);
  int numNotFused = 0;

private:
  int find(int g) {
    while (groups[g].alive == false)
      g = mergedInto[g];
    return g;
  }
  std::optional<int> groupOf(Operation *op) {
    auto it = assign.find(op);
    if (it == assign.end())
      return std::nullopt;
    return find(it->second);
  }
  std::optional<int> groupOfValue(Value v) {
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != &block)
      return std::nullopt;
    return groupOf(def);
  }

  int newGroup(GroupKind kind, Value domain) {
    groups.push_back(Group{kind, {}, domain, {}, true});
    mergedInto.push_back(-1);
    return groups.size() - 1;
  }
  void addOp(int g, Operation *op) {
    groups[g].ops.push_back(op);
    assign[op] = g;
  }
  void mergeInto(int dst, int src) {
    for (Operation *op : groups[src].ops) {
      groups[dst].ops.push_back(op);
      assign[op] = dst;
    }
    for (auto &r : groups[src].notFused)
      groups[dst].notFused.push_back(r);
    groups[src].ops.clear();
    groups[src].alive = false;
    mergedInto[src] = dst;
  }

  void visit(Operation *op);
  std::optional<std::string> crossRowBroadcast(ArrayRef<int> trial,
                                               GroupKind merged);
  std::optional<std::string> joinKind(int g, Operation *op, GroupKind &kind);
  SmallVector<Operation *> earlyUsers(ArrayRef<int> gs, Operation *op);
  std::optional<std::string> sinkAfter(ArrayRef<int> gs, Operation *op);
  void pullLeaves(int g, Operation *op);
  bool joinCopyGroup(Operation *leaf);
  void recompute(int g, Operation *op, ArrayRef<int> excluded, int depth);
  void mergeSiblings();
  std::optional<std::string> rowFits(int g);
  Operation *lastOp(int g);
  Operation *ancestorInBlock(Operation *op) {
    return block.findAncestorOpInBlock(*op);
  }

  Block &block;
  SizeAnalysis &sizes;
  int64_t maxRowBytes, maxRecomputeOps;
  std::vector<Group> groups;
  std::vector<int> mergedInto;
  DenseMap<Operation *, int> assign;
  DenseMap<Operation *, std::vector<std::string>> opReasons;
};

/// A kind's name, for the not-fused reasons.
std::string name(GroupKind k) { return stringifyGroupKind(k).str(); }

std::optional<std::string> singletonKind(Operation *op, GroupKind &kind) {
  if (isElementwiseOp(op)) {
    kind = GroupKind::Elementwise;
    return std::nullopt;
  }
  if (auto r = dyn_cast<ReduceOp>(op)) {
    switch (reduceShape(r)) {
    case ReduceShape::Full:
      kind = GroupKind::Reduce;
      return std::nullopt;
    case ReduceShape::Rows:
      kind = GroupKind::RowReduce;
      return std::nullopt;
    case ReduceShape::Lines:
      kind = GroupKind::LineReduce;
      return std::nullopt;
    case ReduceShape::Other:
      return std::string("a reduction over several dimensions but not all "
                         "is left to the per-op lowering");
    }
  }
  if (isa<ScanOp>(op)) {
    kind = GroupKind::Scan;
    return std::nullopt;
  }
  if (isa<FilterOp>(op)) {
    kind = GroupKind::Filter;
    return std::nullopt;
  }
  if (isa<HistogramOp>(op)) {
    kind = GroupKind::Histogram;
    return std::nullopt;
  }
  if (isa<SegmentedReduceOp>(op)) {
    kind = GroupKind::SegmentedReduce;
    return std::nullopt;
  }
  if (auto sort = dyn_cast<SortOp>(op))
    return std::string(sort.hasComparator()
                           ? "a sort is a device-wide algorithm (a merge "
                             "sort by its comparator over the whole input): "
                             "it is not fused"
                           : "a sort is a device-wide algorithm (a radix sort "
                             "over the whole input): it is not fused");
  if (isa<PrefixOp>(op))
    return std::string("a prefix is a view of its source's buffer, of a "
                       "length held in memory (on the GPU the kernels that "
                       "read it load the count): no pass of its own");
  return std::string("not a fuse op fusion handles");
}

Value domainOf(Operation *op) {
  if (auto s = dyn_cast<SegmentedReduceOp>(op))
    return s.getStarts(); // one iteration per segment
  if (isa<ReduceOp, ScanOp, FilterOp, HistogramOp>(op))
    return op->getOperand(0);
  return op->getResult(0);
}

/// Kinds that can share a group: elementwise joins anything; two reduce
/// (two row_reduce) groups are siblings.
std::optional<GroupKind> mergeKinds(GroupKind a, GroupKind b) {
  if (a == GroupKind::Elementwise)
    return b;
  if (b == GroupKind::Elementwise || a == b) {
    if (a == b &&
        (a == GroupKind::Scan || a == GroupKind::Filter ||
         a == GroupKind::Histogram || a == GroupKind::SegmentedReduce ||
         a == GroupKind::LineReduce))
      return std::nullopt;
    return a;
  }
  return std::nullopt;
}

Operation *Partitioner::lastOp(int g) {
  Operation *last = nullptr;
  for (Operation *op : groups[g].ops)
    if (!last || last->isBeforeInBlock(op))
      last = op;
  return last;
}

std::optional<std::string> Partitioner::rowFits(int g) {
  auto t = cast<RankedTensorType>(groups[g].domain.getType());
  if (t.getRank() != 2 || t.isDynamicDim(1))
    return std::nullopt; // dynamic rows: code generation checks at run time
  // Every rank-2 tensor the group reads is kept on chip for its row.
  int64_t bytes = 0;
  llvm::SmallPtrSet<Value, 4> seen;
  for (Operation *op : groups[g].ops)
    for (Value v : op->getOperands()) {
      auto vt = dyn_cast<RankedTensorType>(v.getType());
      if (!vt || vt.getRank() != 2 || !seen.insert(v).second)
        continue;
      std::optional<int> pg = groupOfValue(v);
      if (pg && *pg == g)
        continue;
      bytes += t.getDimSize(1) * vt.getElementTypeBitWidth() / 8;
    }
  if (bytes <= maxRowBytes)
    return std::nullopt;
  return "a row of the group takes " + std::to_string(bytes) +
         " bytes, above max-row-bytes=" + std::to_string(maxRowBytes) +
         ": the rows are read again by a second group";
}

/// Can `op` join group `g`? On success sets `kind` to the group's new kind.
std::optional<std::string> Partitioner::joinKind(int g, Operation *op,
                                                 GroupKind &kind) {
  Group &grp = groups[g];
  auto memberResult = [&](Value v) -> Operation * {
    std::optional<int> vg = groupOfValue(v);
    return vg && *vg == g ? v.getDefiningOp() : nullptr;
  };
  auto isElementwiseMember = [&](Value v) {
    Operation *d = memberResult(v);
    return d && isElementwiseOp(d) &&
           cast<RankedTensorType>(v.getType()).getRank() ==
               cast<RankedTensorType>(grp.domain.getType()).getRank();
  };
  std::string prod = "producer group (" + name(grp.kind) + ")";

  if (isa<MapOp, GatherOp, SearchSortedOp>(op)) {
    Value res = op->getResult(0);
    int64_t rank = cast<RankedTensorType>(res.getType()).getRank();
    int64_t domRank = cast<RankedTensorType>(grp.domain.getType()).getRank();
    for (OpOperand &use : op->getOpOperands())
      if (isReadAtComputedPositions(use) && memberResult(use.get()))
        return "the " + op->getName().stripDialect().str() + " reads " +
               describe(use.get().getDefiningOp()) +
               " at positions computed from data, not at its own: a cheap "
               "map is recomputed at each position read, anything else is "
               "materialised";
    // Values read from the group: directly or through a broadcast.
    for (Value in : op->getOperands()) {
      Value src = in;
      bool viaBroadcast = false;
      if (auto bc = in.getDefiningOp<BroadcastOp>()) {
        if (!groupOf(bc) || *groupOf(bc) != g) {
          src = bc.getInput();
          viaBroadcast = true;
        }
      }
      Operation *d = memberResult(src);
      if (!d)
        continue;
      if (isa<FilterOp>(d))
        return "reads the result of " + describe(d) +
               ", a compaction whose size is known only after its pass";
      if (isa<HistogramOp>(d))
        return "reads the result of " + describe(d) +
               ", counts that are complete only after its pass";
      auto st = cast<RankedTensorType>(src.getType());
      if (viaBroadcast) {
        // A row_reduce group knows its rank-1 values one row at a time:
        // only a broadcast along the row (dims [1]) reads them in place.
        if (grp.kind == GroupKind::RowReduce && st.getRank() == 1 && rank == 2 &&
            sizes.sameShape(res, grp.domain)) {
          if (in.getDefiningOp<BroadcastOp>().getDims() !=
              ArrayRef<int64_t>{1})
            return "broadcasts a row result of the producer group along "
                   "its columns (dims [0]): every row needs every row's "
                   "result, a second pass";
          if (std::optional<std::string> r = rowFits(g))
            return r;
          continue;
        }
        if (st.getRank() == 0 && grp.kind == GroupKind::Reduce)
          return "reads " + describe(d) +
                 ", a full reduction in the producer group, at every element: "
                 "that needs a second pass over memory";
        return "broadcasts a value of the producer group over a different "
               "iteration space";
      }
      if (isa<ScanOp>(d) && grp.kind != GroupKind::Scan)
        return "reads a scan result outside a scan group";
    }
    if (rank == domRank && sizes.sameShape(res, grp.domain)) {
      kind = grp.kind;
      return std::nullopt;
    }
    if (rank == 0 && grp.kind == GroupKind::Reduce) {
      kind = grp.kind; // finishing epilogue
      return std::nullopt;
    }
    if (grp.kind == GroupKind::RowReduce && rank == 1 &&
        sizes.sameDim(res, 0, grp.domain, 0)) {
      kind = grp.kind; // per-row epilogue
      return std::nullopt;
    }
    return "iterates over a different space than " + prod;
  }
  if (auto r = dyn_cast<ReduceOp>(op)) {
    for (Value in : r.getInputs())
      if (memberResult(in) && !isElementwiseMember(in))
        return "reduces a value that is not elementwise in " + prod;
    if (!sizes.sameShape(r.getInputs()[0], grp.domain))
      return "reduces over a different space than " + prod;
    switch (reduceShape(r)) {
    case ReduceShape::Full:
      if (grp.kind != GroupKind::Elementwise && grp.kind != GroupKind::Reduce)
        return "a full reduction cannot join a " + name(grp.kind) + " group";
      kind = GroupKind::Reduce;
      return std::nullopt;
    case ReduceShape::Rows:
      if (grp.kind != GroupKind::Elementwise &&
          grp.kind != GroupKind::RowReduce)
        return "a row reduction cannot join a " + name(grp.kind) + " group";
      kind = GroupKind::RowReduce;
      return std::nullopt;
    case ReduceShape::Lines:
      // The line kernels fold one reduction, its input computed at each
      // element it reads.
      if (grp.kind != GroupKind::Elementwise)
        return "a reduction along one dimension (a line_reduce group) "
               "cannot join a " +
               name(grp.kind) + " group";
      kind = GroupKind::LineReduce;
      return std::nullopt;
    case ReduceShape::Other:
      return std::string("reductions over several dimensions but not all "
                         "are not fused");
    }
  }
  if (auto seg = dyn_cast<SegmentedReduceOp>(op)) {
    if (grp.kind != GroupKind::Elementwise)
      return "a segmented_reduce cannot join a " + name(grp.kind) + " group";
    for (Value in : seg.getInputs())
      if (memberResult(in))
        return "the segmented_reduce reads " + describe(in.getDefiningOp()) +
               " at the positions of its segments, not at its own: a cheap "
               "map is recomputed at each position read, anything else is "
               "materialised";
    for (Value in : {seg.getStarts(), seg.getEnds()})
      if (memberResult(in) && !isElementwiseMember(in))
        return "reads offsets that are not elementwise in " + prod;
    if (!sizes.sameShape(seg.getStarts(), grp.domain))
      return "iterates over a different space than " + prod;
    kind = GroupKind::SegmentedReduce;
    return std::nullopt;
  }
  if (isa<ScanOp, FilterOp, HistogramOp>(op)) {
    GroupKind k = isa<ScanOp>(op)     ? GroupKind::Scan
                  : isa<FilterOp>(op) ? GroupKind::Filter
                                      : GroupKind::Histogram;
    if (grp.kind != GroupKind::Elementwise)
      return "a " + name(k) + " cannot join a " + name(grp.kind) + " group";
    for (Value in : op->getOperands())
      if (memberResult(in) && !isElementwiseMember(in))
        return "reads a value that is not elementwise in " + prod;
    if (!sizes.sameShape(op->getOperand(0), grp.domain))
      return "iterates over a different space than " + prod;
    kind = k;
    return std::nullopt;
  }
  return std::string("not fusable");
}

/// Users of the groups' ops that lie outside the union and come before
/// `op`: merged at `op`, the groups would not exist yet where these read
/// them. Unassigned broadcasts/iotas are looked through (they move with
/// the group).
SmallVector<Operation *> Partitioner::earlyUsers(ArrayRef<int> gs,
                                                 Operation *op) {
  llvm::SmallDenseSet<int> set(gs.begin(), gs.end());
  SmallVector<Value> work;
  for (int g : gs)
    for (Operation *m : groups[g].ops)
      for (Value r : m->getResults())
        work.push_back(r);
  llvm::SmallPtrSet<Operation *, 8> seenLeaves;
  SmallVector<Operation *> early;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation *user : v.getUsers()) {
      Operation *u = ancestorInBlock(user);
      if (!u || u == op)
        continue;
      std::optional<int> ug = groupOf(u);
      if (ug && set.contains(*ug))
        continue;
      if (!ug && isLeaf(u)) {
        if (seenLeaves.insert(u).second)
          for (Value r : u->getResults())
            work.push_back(r);
        continue;
      }
      if (u->isBeforeInBlock(op) && !llvm::is_contained(early, u))
        early.push_back(u);
    }
  }
  return early;
}

/// Moves the early users of the groups `gs` (earlyUsers) to just after
/// `op`, where the merged group will be, with what must move with them:
/// the users before `op` of anything moved and the members before `op` of
/// a moved op's group (a group lands where its last op is). A reordering
/// of independent ops: refused, with nothing moved, where `op` or a member
/// of `gs` would have to move (`op` would depend on the groups' users, a
/// cycle), or an op with side effects; the reason is returned then.
/// Without it a map reading a row reduction's result would stay out of the
/// row group whenever another group read that result earlier in the
/// program, and its input would be read a second time.
std::optional<std::string> Partitioner::sinkAfter(ArrayRef<int> gs,
                                                  Operation *op) {
  const std::string cycle = "it depends on a group that reads this group's "
                            "results (one group would depend on itself)";
  llvm::SmallDenseSet<int> set(gs.begin(), gs.end());
  SmallVector<Operation *> work = earlyUsers(gs, op);
  llvm::SetVector<Operation *> moved;
  while (!work.empty()) {
    Operation *u = work.pop_back_val();
    if (!u->isBeforeInBlock(op) || !moved.insert(u))
      continue;
    std::optional<int> ug = groupOf(u);
    if (ug && set.contains(*ug))
      return cycle;
    // (An op with side effects keeps its place among the others.)
    if (!isMemoryEffectFree(u))
      return "the ops reading its results earlier would move, among them " +
             describe(u) + ", which has side effects";
    if (ug)
      for (Operation *m : groups[*ug].ops)
        work.push_back(m);
    for (Value r : u->getResults())
      for (Operation *user : r.getUsers()) {
        Operation *a = ancestorInBlock(user);
        if (a == op)
          return cycle;
        if (a)
          work.push_back(a);
      }
  }
  SmallVector<Operation *> order(moved.begin(), moved.end());
  llvm::sort(order,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  Operation *after = op;
  for (Operation *m : order) {
    m->moveAfter(after);
    after = m;
  }
  return std::nullopt;
}

/// Broadcast and iota operands follow their consumer (cloned when they
/// have other users), so a 0-d reduction result is read in place.
void Partitioner::pullLeaves(int g, Operation *op) {
  for (OpOperand &use : op->getOpOperands()) {
    Operation *def = use.get().getDefiningOp();
    if (!def || def->getBlock() != &block || !isLeaf(def) || groupOf(def))
      continue;
    Operation *leaf = def;
    if (!def->hasOneUse()) {
      OpBuilder b(op);
      leaf = b.clone(*def);
      use.set(leaf->getResult(0));
    }
    addOp(g, leaf);
  }
}

/// Cheap map producers in groups `op` could not join are cloned into
/// `op`'s group, so their results need not be written to memory. A
/// broadcast in such a group is cloned too: `op`'s group then reads the
/// broadcast's small input instead of the full-size tensor it makes.
void Partitioner::recompute(int g, Operation *op, ArrayRef<int> excluded,
                            int depth) {
  for (OpOperand &use : op->getOpOperands()) {
    if (auto bc = use.get().getDefiningOp<BroadcastOp>();
        bc && bc->getBlock() == &block) {
      std::optional<int> pg = groupOf(bc);
      if (pg && *pg != g && llvm::is_contained(excluded, *pg)) {
        OpBuilder b(op);
        Operation *clone = b.clone(*bc);
        use.set(clone->getResult(0));
        addOp(g, clone);
      }
      continue;
    }
    auto map = use.get().getDefiningOp<MapOp>();
    if (!map || map->getBlock() != &block)
      continue;
    std::optional<int> pg = groupOf(map);
    if (!pg || *pg == g || !llvm::is_contained(excluded, *pg))
      continue;
    // A body with side effects (an unregistered op, say) must run once
    // per element: never duplicate it.
    if (!isMemoryEffectFree(map)) {
      groups[g].notFused.push_back("producer " + describe(map) +
                                   " has side effects: materialised once "
                                   "and read from memory");
      ++numNotFused;
      continue;
    }
    int64_t cost = bodyOpCount(map);
    if (cost > maxRecomputeOps || depth > 3) {
      groups[g].notFused.push_back(
          "producer " + describe(map) + " has " + std::to_string(cost) +
          " body ops (max-recompute-ops=" + std::to_string(maxRecomputeOps) +
          "): materialised once and read from memory");
      ++numNotFused;
      continue;
    }
    OpBuilder b(op);
    Operation *clone = b.clone(*map);
    use.set(clone->getResult(
        cast<OpResult>(use.get()).getResultNumber()));
    addOp(g, clone);
    pullLeaves(g, clone);
    recompute(g, clone, excluded, depth + 1);
  }
}

/// Merging groups through a common consumer can put a broadcast of one
/// group's row values into a row_reduce group with them: the rule of a
/// direct join (joinKind) holds there too, only a broadcast along the row
/// (dims [1]) reads them in place.
std::optional<std::string>
Partitioner::crossRowBroadcast(ArrayRef<int> trial, GroupKind merged) {
  if (merged != GroupKind::RowReduce)
    return std::nullopt;
  for (int h : trial)
    for (Operation *m : groups[h].ops) {
      auto bc = dyn_cast<BroadcastOp>(m);
      if (!bc || bc.getDims() == ArrayRef<int64_t>{1})
        continue;
      std::optional<int> src = groupOfValue(bc.getInput());
      if (src && *src != h && llvm::is_contained(trial, *src))
        return "merging would broadcast a row result of one group along "
               "its columns (dims [0]) in the other: every row needs every "
               "row's result, a second pass";
    }
  return std::nullopt;
}

void Partitioner::visit(Operation *op) {
  // The collectives of a sharded entry (and the shard's index) are no
  // pass over memory: they stay outside groups.
  if (!isa_and_nonnull<FuseDialect>(op->getDialect()) || isLeaf(op) ||
      isa<GroupOp, YieldOp, ShardRankOp, AllGatherOp, AllConcatOp>(op))
    return;
  GroupKind ownKind = GroupKind::Elementwise; // set by singletonKind
  if (std::optional<std::string> r = singletonKind(op, ownKind)) {
    MLIRContext *ctx = op->getContext();
    FuseDialect::NotFusedAttrHelper(ctx).setAttr(
        op, ArrayAttr::get(ctx, {StringAttr::get(ctx, *r)}));
    return;
  }
  // Candidate producer groups, directly or through a broadcast.
  SmallVector<int> cands;
  for (Value in : op->getOperands()) {
    std::optional<int> g = groupOfValue(in);
    if (!g)
      if (auto bc = in.getDefiningOp<BroadcastOp>())
        if (bc->getBlock() == &block)
          g = groupOfValue(bc.getInput());
    if (g && !llvm::is_contained(cands, *g))
      cands.push_back(*g);
  }
  std::vector<std::string> reasons;
  SmallVector<int> ok, excluded;
  GroupKind kind = GroupKind::Elementwise;
  for (int g : cands) {
    GroupKind k;
    std::optional<std::string> why = joinKind(g, op, k);
    if (!why) {
      std::optional<GroupKind> merged = mergeKinds(kind, k);
      // Elementwise producers that are a scan, filter, histogram or
      // segmented_reduce group only by `op` itself (its several inputs or
      // offsets) become one group of that kind.
      auto elementwise = [&](int h) {
        return groups[h].kind == GroupKind::Elementwise;
      };
      if (!merged && k == kind && elementwise(g) &&
          llvm::all_of(ok, elementwise))
        merged = k;
      if (merged && (ok.empty() || sizes.sameShape(groups[ok.front()].domain,
                                                   groups[g].domain))) {
        SmallVector<int> trial(ok);
        trial.push_back(g);
        if (std::optional<std::string> cross =
                crossRowBroadcast(trial, *merged)) {
          why = *cross;
        } else if (!(why = sinkAfter(trial, op))) {
          ok.push_back(g);
          kind = *merged;
          continue;
        }
      } else if (!merged) {
        why = "would mix a " + name(kind) + " and a " + name(k) +
              " in one group";
      } else {
        why = "the groups iterate over different spaces";
      }
    }
    reasons.push_back("not fused with " +
                      describe(groups[g].ops.back()) + " (" +
                      name(groups[g].kind) + " group): " + *why);
    excluded.push_back(g);
    ++numNotFused;
  }
  int target;
  if (ok.empty()) {
    kind = ownKind;
    target = newGroup(kind, domainOf(op));
  } else {
    target = ok.front();
    for (int g : ArrayRef<int>(ok).drop_front())
      mergeInto(target, g);
    groups[target].kind = kind;
  }
  // A reduction, scan or filter defines the iteration space of the group.
  if (isa<ReduceOp, ScanOp, FilterOp>(op))
    groups[target].domain = domainOf(op);
  addOp(target, op);
  for (auto &r : reasons)
    groups[target].notFused.push_back(r);
  pullLeaves(target, op);
  recompute(target, op, excluded, 0);
}

/// Groups over the same space that read a common tensor and do not depend
/// on each other are siblings: one pass reads the tensor once.
void Partitioner::mergeSiblings() {
  auto externalTensors = [&](int g) {
    llvm::SetVector<Value> ins;
    for (Operation *op : groups[g].ops)
      for (Value v : op->getOperands())
        if (isa<RankedTensorType>(v.getType())) {
          std::optional<int> vg = groupOfValue(v);
          if (!vg || *vg != g)
            ins.insert(v);
        }
    return ins;
  };
  bool changed = true;
  while (changed) {
    changed = false;
    for (size_t i = 0; i < groups.size() && !changed; ++i) {
      if (!groups[i].alive || groups[i].ops.empty())
        continue;
      for (size_t j = i + 1; j < groups.size() && !changed; ++j) {
        if (!groups[j].alive || groups[j].ops.empty())
          continue;
        std::optional<GroupKind> k =
            mergeKinds(groups[i].kind, groups[j].kind);
        if (!k || !sizes.sameShape(groups[i].domain, groups[j].domain))
          continue;
        auto a = externalTensors(i), b = externalTensors(j);
        bool shared = llvm::any_of(a, [&](Value v) {
          return b.contains(v) &&
                 sizes.sameShape(v, groups[i].domain);
        });
        if (!shared)
          continue;
        int first = lastOp(i)->isBeforeInBlock(lastOp(j)) ? i : j;
        int second = first == (int)i ? j : i;
        // No use of the first group's results may come before the end of
        // the second (that would be a dependency or a dominance problem).
        Operation *end = lastOp(second);
        SmallVector<int> one{first};
        bool dep = false;
        for (Operation *m : groups[first].ops)
          for (Value r : m->getResults())
            for (Operation *user : r.getUsers()) {
              Operation *u = ancestorInBlock(user);
              std::optional<int> ug = u ? groupOf(u) : std::nullopt;
              if (ug && *ug == first)
                continue;
              if (u && (u == end || u->isBeforeInBlock(end)))
                dep = true;
            }
        if (dep)
          continue;
        groups[first].kind = *k;
        mergeInto(first, second);
        changed = true;
      }
    }
  }
}

void Partitioner::run() {
  SmallVector<Operation *> ops;
  for (Operation &op : block)
    ops.push_back(&op);
  for (Operation *op : ops)
    visit(op);
  mergeSiblings();
  // Leaves no consumer pulled in: dead ones go, used ones get a group.
  for (Operation *op : llvm::reverse(ops)) {
    if (!isLeaf(op) || groupOf(op))
      continue;
    if (op->use_empty()) {
      op->erase();
      continue;
    }
    if (joinCopyGroup(op))
      continue;
    int g = newGroup(GroupKind::Elementwise, op->getResult(0));
    addOp(g, op);
  }
}

/// A leaf still used outside the groups (a returned iota) whose copy an
/// elementwise group of its shape computes is replaced by that copy: the
/// group writes the values it computes anyway, instead of a kernel of its
/// own computing them again (an iota returned beside a map of it: one
/// kernel, and the iota's coordinates once an element).
bool Partitioner::joinCopyGroup(Operation *leaf) {
  for (size_t g = 0; g < groups.size(); ++g) {
    Group &grp = groups[g];
    if (!grp.alive || grp.ops.empty() || grp.kind != GroupKind::Elementwise ||
        !sizes.sameShape(grp.domain, leaf->getResult(0)))
      continue;
    auto copy = llvm::find_if(grp.ops, [&](Operation *m) {
      return m != leaf && isLeaf(m) &&
             OperationEquivalence::isEquivalentTo(
                 m, leaf, OperationEquivalence::IgnoreLocations);
    });
    if (copy == grp.ops.end())
      continue;
    // The group's results appear at its last op: every other use of the
    // leaf must come after it.
    Operation *end = lastOp(g);
    if (llvm::any_of(leaf->getUsers(), [&](Operation *user) {
          Operation *u = ancestorInBlock(user);
          return !u || u == end || u->isBeforeInBlock(end);
        }))
      continue;
    // The group's copy stands for the leaf (not the other way round: the
    // copy's users in the group may come before the leaf, which a
    // broadcast cannot move above).
    leaf->getResult(0).replaceAllUsesWith((*copy)->getResult(0));
    leaf->erase();
    return true;
  }
  return false;
}

void Partitioner::materialise(int &numGroups, int &numFused) {
  // Order the groups by their last op; each lands where its last op was.
  SmallVector<int> order;
  for (size_t g = 0; g < groups.size(); ++g)
    if (groups[g].alive && !groups[g].ops.empty())
      order.push_back(g);
  llvm::sort(order, [&](int a, int b) {
    return lastOp(a)->isBeforeInBlock(lastOp(b));
  });
  for (int g : order) {
    Group &grp = groups[g];
    llvm::sort(grp.ops, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    llvm::SmallPtrSet<Operation *, 16> members(grp.ops.begin(),
                                               grp.ops.end());
    Operation *last = grp.ops.back();
    MLIRContext *ctx = last->getContext();
    // Operands: values used by the members (nested uses included) that are
    // defined outside them. Constants are cloned in instead.
    llvm::SetVector<Value> inputs;
    llvm::SetVector<Operation *> constants;
    for (Operation *m : grp.ops)
      m->walk([&](Operation *inner) {
        for (Value v : inner->getOperands()) {
          Operation *def = v.getDefiningOp();
          Operation *owner =
              def ? def : v.getParentRegion()->getParentOp();
          Operation *anc = owner ? block.findAncestorOpInBlock(*owner)
                                 : nullptr;
          if (anc && members.contains(anc))
            continue;
          if (def && def->hasTrait<OpTrait::ConstantLike>() &&
              def->getNumResults() == 1 &&
              !isa<ShapedType>(v.getType())) {
            constants.insert(def);
            continue;
          }
          inputs.insert(v);
        }
      });
    SmallVector<Value> outputs;
    for (Operation *m : grp.ops)
      for (Value r : m->getResults())
        if (llvm::any_of(r.getUsers(), [&](Operation *u) {
              Operation *a = block.findAncestorOpInBlock(*u);
              return !a || !members.contains(a);
            }))
          outputs.push_back(r);
    if (outputs.empty()) {
      // Nothing is used: the whole group is dead.
      for (Operation *m : llvm::reverse(grp.ops))
        m->erase();
      continue;
    }
    OpBuilder b(last);
    SmallVector<Type> resultTypes;
    for (Value v : outputs)
      resultTypes.push_back(v.getType());
    auto group = GroupOp::create(b, last->getLoc(), resultTypes,
                                 GroupKindAttr::get(ctx, grp.kind),
                                 inputs.getArrayRef());
    SmallVector<Type> argTypes;
    SmallVector<Location> argLocs;
    for (Value v : inputs) {
      argTypes.push_back(v.getType());
      argLocs.push_back(v.getLoc());
    }
    Block *body = b.createBlock(&group.getBody(), {}, argTypes, argLocs);
    IRMapping map;
    map.map(inputs.getArrayRef(), body->getArguments());
    b.setInsertionPointToStart(body);
    for (Operation *c : constants)
      b.clone(*c, map);
    for (Operation *m : grp.ops)
      b.clone(*m, map);
    SmallVector<Value> yielded;
    for (Value v : outputs)
      yielded.push_back(map.lookup(v));
    YieldOp::create(b, last->getLoc(), yielded);
    for (auto [v, r] : llvm::zip_equal(outputs, group.getResults()))
      v.replaceUsesWithIf(r, [&](OpOperand &use) {
        return !group->isAncestor(use.getOwner());
      });
    if (!grp.notFused.empty()) {
      SmallVector<Attribute> rs;
      for (auto &s : grp.notFused)
        rs.push_back(StringAttr::get(ctx, s));
      FuseDialect::NotFusedAttrHelper(ctx).setAttr(group,
                                                   ArrayAttr::get(ctx, rs));
    }
    for (Operation *m : llvm::reverse(grp.ops)) {
      m->dropAllUses();
      m->erase();
    }
    ++numGroups;
    numFused += grp.ops.size();
  }
  // A group lands where its last op was, which can be before a group it
  // reads: a row reduction's broadcast that is recomputed inside the row
  // group and also used outside it becomes a group of its own at the
  // broadcast's place, before the row group (at its map) that now computes
  // the reduction. The partition has no cycles, so a stable topological
  // sort of the block puts every group after the ones it reads and leaves
  // the rest in order.
  sortTopologically(&block);
}

struct FuseFusionPass : fuse::impl::FuseFusionPassBase<FuseFusionPass> {
  using Base::Base;
  void runOnOperation() override {
    if (maxRowBytes < -1) {
      getOperation()->emitError()
          << "fuse-fusion: max-row-bytes must be -1 (the target's) or a "
             "byte count, not "
          << static_cast<int64_t>(maxRowBytes);
      return signalPassFailure();
    }
    // Blocks holding fuse ops that are not themselves inside fuse ops.
    SmallVector<Block *> blocks;
    getOperation()->walk([&](Block *blk) {
      Operation *parent = blk->getParentOp();
      if (parent && isa_and_nonnull<FuseDialect>(parent->getDialect()))
        return;
      if (llvm::any_of(*blk, [](Operation &op) {
            return isa_and_nonnull<FuseDialect>(op.getDialect()) &&
                   !isa<GroupOp>(op);
          }))
        blocks.push_back(blk);
    });
    for (Block *blk : blocks) {
      if (welford) {
        SmallVector<ReduceOp> reds;
        for (Operation &op : *blk)
          if (auto r = dyn_cast<ReduceOp>(op))
            reds.push_back(r);
        for (ReduceOp r : reds)
          if (rewriteVarianceToWelford(r))
            ++numWelford;
      }
      SizeAnalysis sizes(getOperation());
      int64_t rowBytes =
          maxRowBytes >= 0
              ? static_cast<int64_t>(maxRowBytes)
              : TargetAttr::lookup(getOperation()).getSharedMemoryPerBlock();
      Partitioner p(*blk, sizes, rowBytes, maxRecomputeOps);
      p.run();
      int ng = 0, nf = 0;
      p.materialise(ng, nf);
      numGroups += ng;
      numFusedOps += nf;
      numNotFused += p.numNotFused;
    }
  }
};

} // namespace
