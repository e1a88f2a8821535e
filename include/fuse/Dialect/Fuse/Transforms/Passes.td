//===- Passes.td - fuse fusion and tiling passes -----------*- tablegen -*-===//
#ifndef FUSE_DIALECT_FUSE_TRANSFORMS_PASSES_TD
#define FUSE_DIALECT_FUSE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FuseFusionPass : Pass<"fuse-fusion"> {
  let summary = "Partition fuse ops into fuse.group ops (one pass over "
                "memory each)";
  let description = [{
    Partitions the fuse ops of every block into `fuse.group` ops so that
    intermediates stay on chip, minimising bytes moved through memory
    without duplicating unbounded work. Ops are visited in program order;
    each joins the group of its producers when the result is still one pass:

    - producer-consumer: map->map, map->reduce, map->scan, map->filter,
      scan->map (epilogue); `fuse.iota`, `fuse.broadcast` and `fuse.gather`
      are inlined into their consumers (a broadcast of a 0-d reduction
      result makes the 0-d tensor a group operand, read in place);
      maps over the 0-d results of a reduce group are its finishing
      epilogue (e.g. `mean = sum / n`).
    - multi-output: a value both used outside and reduced is yielded by
      the group; sibling full reductions over the same domain share a group;
      an iota or broadcast used outside the groups (returned) is yielded by
      the elementwise group of its shape that computes a copy of it, rather
      than computed again by a group of its own.
    - row-wise: reductions over the last dimension of a rank-2 tensor, maps
      over the same rows that read them through `fuse.broadcast`, and maps
      over the row results form one `row_reduce` group (softmax,
      logsumexp, rmsnorm) when a row fits on chip: with a static row of
      more than `max-row-bytes` bytes (counting every row-sized value the
      group keeps), the broadcast consumer starts a new group instead.
    - must-not-fuse (recorded in the `fuse.not_fused` string array of the
      consumer group, printed by `fuse-explain`): a map reading a full
      reduction of its own group (needs a second pass over memory); a
      producer whose body has more than `max-recompute-ops` ops is never
      duplicated into a second group, it is materialised once; cheaper
      map producers are recomputed in each consumer group instead.
    - variance: `reduce add (map (x - c) * (x - c))` where the 0-d `c`
      depends on a full reduction of the same `x` (mean((x-mean(x))^2))
      is rewritten to one pass: a Welford tuple reduction over `x`
      (count: i64, mean, M2; merged with Chan's formula) next to the other
      reductions of `x`, and `sum((x-c)^2) = M2 + count*(mean-c)^2`, an
      identity exact for any `c`, computed by the finishing epilogue.
      Numerics: Welford's update is backward stable (no cancellation of
      sum(x^2) - n*mean^2); the correction term is tiny when c is the mean.
      GPU code generation recognises this tuple reduction by its element
      tuples (1, x, 0) and a combiner region identical to the merge fusion
      builds (compared op by op, lib/Dialect/Fuse/Utils/Welford.cpp), and
      accumulates it with per-thread shifted sums; any other combiner keeps
      its own meaning (the CPU path always runs the combiner region). Off with `welford=false`
      (two passes, the reason is stated).

    - order: a group lands where its last op is. An op joining a group
      whose results another group reads earlier in the program moves that
      group (and what must move with it: its other members and their users
      before the op) to just after the op, when the op does not depend on
      it; otherwise the op starts a group of its own (the reason: one
      group would depend on itself).

    Non-fuse ops are left alone (except that an op using a moved op's
    results moves with it), and the results are unchanged except for
    float reassociation of reductions. Constants used by bodies are cloned
    into the group; other scalars become group operands.

    Before:
    ```mlir
    %sq = fuse.map %x : tensor<?xf32> -> tensor<?xf32> { ... mulf ... }
    %s = fuse.reduce add %sq : tensor<?xf32> -> tensor<f32>
    ```
    After:
    ```mlir
    %s = fuse.group reduce (%x) : (tensor<?xf32>) -> tensor<f32> {
    ^bb0(%a: tensor<?xf32>):
      %sq = fuse.map %a : tensor<?xf32> -> tensor<?xf32> { ... }
      %r = fuse.reduce add %sq : tensor<?xf32> -> tensor<f32>
      fuse.yield %r : tensor<f32>
    }
    ```
  }];
  let options = [
    Option<"maxRowBytes", "max-row-bytes", "int64_t", /*default=*/"-1",
           "Bytes of on-chip memory one row of a row_reduce group may use "
           "(-1: the shared memory a block of the module's fuse.target may "
           "opt in to; sm_90: 227 KiB)">,
    Option<"maxRecomputeOps", "max-recompute-ops", "int64_t",
           /*default=*/"8",
           "A map producer with at most this many body ops is recomputed in "
           "each consumer group; a costlier one is materialised once">,
    Option<"welford", "welford", "bool", /*default=*/"true",
           "Rewrite mean((x - mean(x))^2) to a one-pass Welford reduction">
  ];
  let statistics = [
    Statistic<"numGroups", "groups", "Number of fuse.group ops created">,
    Statistic<"numFusedOps", "fused-ops", "Number of fuse ops put in groups">,
    Statistic<"numNotFused", "not-fused",
              "Number of producer-consumer edges left unfused">,
    Statistic<"numWelford", "welford-rewrites",
              "Number of two-pass variances rewritten to one pass">
  ];
  let dependentDialects = ["::fuse::FuseDialect",
                           "::mlir::arith::ArithDialect"];
}

def FuseWidenAccumulatorsPass : Pass<"fuse-widen-accumulators"> {
  let summary = "Accumulate f16 and bf16 sums and products in f32";
  let description = [{
    The numerics of half-precision reductions (docs/dialect.md): a
    `fuse.reduce`, `fuse.scan` or `fuse.segmented_reduce` whose built-in
    kind is `add` or `mul` over f16 or bf16 accumulates in f32 and rounds
    each result once to the input's type. Every pipeline (fuse-to-cpu,
    fuse-to-gpu) runs this pass first, so the CPU and GPU backends agree
    and a sum of 2^20 ones is 1048576 rounded once (inf in f16, 1048576 in
    bf16), not the 2048 at which f16 steps of one stop counting.

    The input is widened by a map (`arith.extf`), which fusion folds into
    the reduction's pass: no f32 copy is written. The init is widened with
    it, the result narrowed by a map (`arith.truncf`). Other kinds (min,
    max) are exact in any type; combiner regions compute in the types
    they are written in (write the region in f32 over an `arith.extf` map
    for f32 accumulation).

    Before:
    ```mlir
    %s = fuse.reduce add %x : tensor<?xbf16> -> tensor<bf16>
    ```
    After:
    ```mlir
    %w = fuse.map %x : tensor<?xbf16> -> tensor<?xf32> { arith.extf }
    %a = fuse.reduce add %w : tensor<?xf32> -> tensor<f32>
    %s = fuse.map %a : tensor<f32> -> tensor<bf16> { arith.truncf }
    ```
  }];
  let statistics = [
    Statistic<"numWidened", "widened",
              "Number of half-precision accumulations widened to f32">
  ];
  let dependentDialects = ["::fuse::FuseDialect",
                           "::mlir::arith::ArithDialect"];
}

def FuseBoolBytesPass : Pass<"fuse-bool-bytes"> {
  let summary = "Carry i1 tensors across group boundaries as bytes (GPU)";
  let description = [{
    GPU kernels load and store whole bytes, and an i1 tensor in memory is
    one byte an element, 0 or 1 (LLVM's layout of i1, the CPU backend's
    memrefs, NumPy's and torch's bool). Each i1 tensor a `fuse.group`
    reads or writes becomes i8 at the group's boundary: inside the body, a
    map truncates an operand's bytes (a gather or broadcast of it moves
    the bytes first) and widens a yielded value (a filter's own result
    compacts bytes instead, its input widened in the prologue). Outside,
    a function argument becomes bytes through `arith.extui` and a result
    that leaves for something other than a group through `arith.trunci`,
    views of the same buffer that the GPU entry maps to it. Operands read
    at data-dependent positions other than a gather's source, and results
    of segmented reductions, stay i1, and code generation rejects them.
    The GPU pipeline runs it after fusion.

    Before:
    ```mlir
    %m = fuse.group elementwise (%x) : (tensor<?xf32>) -> tensor<?xi1> {
    ^bb0(%a: tensor<?xf32>):
      %c = fuse.map %a : tensor<?xf32> -> tensor<?xi1> { ... arith.cmpf ... }
      fuse.yield %c : tensor<?xi1>
    }
    return %m : tensor<?xi1>
    ```
    After:
    ```mlir
    %g = fuse.group elementwise (%x) : (tensor<?xf32>) -> tensor<?xi8> {
    ^bb0(%a: tensor<?xf32>):
      %c = fuse.map %a : tensor<?xf32> -> tensor<?xi1> { ... arith.cmpf ... }
      %w = fuse.map %c : tensor<?xi1> -> tensor<?xi8> { arith.extui }
      fuse.yield %w : tensor<?xi8>
    }
    %m = arith.trunci %g : tensor<?xi8> to tensor<?xi1>
    return %m : tensor<?xi1>
    ```
  }];
  let dependentDialects = ["::fuse::FuseDialect",
                           "::mlir::arith::ArithDialect"];
}

def FuseSortPositionsPass : Pass<"fuse-sort-positions"> {
  let summary = "Sort by keys with their positions instead of an iota "
                "tensor (GPU)";
  let description = [{
    A `fuse.sort` whose values are a `fuse.iota` (i64, rank 1) of the
    keys' length (the same size by the shape rules: static and equal, or
    both following one dimension) becomes a `positions` sort: the same
    results, but no tensor of positions is written for the sort to read,
    and the GPU lowerings move the positions as 4-byte words below 2^31
    elements (the radix sort's passes and the merge sort's), widening them
    at the end. The GPU pipeline runs it first (the CPU lowering builds
    the same iota either way).

    Before:
    ```mlir
    %n = tensor.dim %k, %c0 : tensor<?xf32>
    %i = fuse.iota %n : tensor<?xi64>
    %s, %p = fuse.sort ascending %k, %i
        : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>, tensor<?xi64>
    ```
    After:
    ```mlir
    %s, %p = fuse.sort ascending positions %k
        : tensor<?xf32> -> tensor<?xf32>, tensor<?xi64>
    ```
  }];
  let dependentDialects = ["::fuse::FuseDialect"];
}

def FuseSearchSortedTablePass : Pass<"fuse-searchsorted-table"> {
  let summary = "Search 8-bit needles through a table of the 256 answers "
                "(GPU)";
  let description = [{
    A `fuse.searchsorted` whose needles are `i8` (signed or unsigned order)
    has at most 256 different answers. It becomes the same search of all
    256 values (a `fuse.iota` of `tensor<256xi8>`: element k is the value
    whose byte is k) and a `fuse.gather` of that table at each needle's
    byte (a `fuse.map` zero-extending it). A needle then costs one read of
    a 2 KB table instead of a binary search, `ceil(log2(size(sorted) +
    1))` dependent reads of `sorted`; the table is one small group more.
    Needles that are a `fuse.broadcast` (canonicalization searches its
    source once a value) or that number 256 or fewer are left alone. The
    CPU pipeline keeps the search (the reference the GPU is checked
    against).

    Before:
    ```mlir
    %i = fuse.searchsorted right %a, %x
        : tensor<?xi8>, tensor<?xi8> -> tensor<?xi64>
    ```
    After:
    ```mlir
    %bytes = fuse.iota : tensor<256xi8>
    %table = fuse.searchsorted right %a, %bytes
        : tensor<?xi8>, tensor<256xi8> -> tensor<256xi64>
    %k = fuse.map %x : tensor<?xi8> -> tensor<?xi64> {
    ^bb0(%v: i8):
      %e = arith.extui %v : i8 to i64
      fuse.yield %e : i64
    }
    %i = fuse.gather %table[%k] : tensor<256xi64>, tensor<?xi64>
        -> tensor<?xi64>
    ```
  }];
  let dependentDialects = ["::fuse::FuseDialect",
                           "::mlir::arith::ArithDialect"];
}

def FuseComparatorKeysPass : Pass<"fuse-comparator-keys"> {
  let summary = "Sort by a computed key where a comparator compares one "
                "function of each key (GPU)";
  let description = [{
    A `fuse.sort` whose comparator region yields `k(a) < k(b)` or
    `k(a) > k(b)` (either way round; `arith.cmpf olt/ogt` or `arith.cmpi
    slt/sgt/ult/ugt`), where the two sides compute the same function k of
    `a` and of `b` (the same side-effect-free ops, values of neither
    argument shared), orders its keys as the key order of `k(x)` does. It
    becomes a `positions` sort of `fuse.map(k)` of the keys (the runtime's
    radix sort on the GPU, instead of the generated merge sort's passes
    with the comparator) and `fuse.gather`s of the keys and values at the
    sorted positions. Both sorts are stable and break ties by input
    position, so the results are the same wherever the comparator is a
    strict weak order, and fuse.sort leaves the order unspecified
    elsewhere. For float keys the comparison may be joined by "a NaN goes
    last": `lt | (!isnan(k(a)) & isnan(k(b)))` (ascending by k only; the
    tests on k(a) and k(b), or on `a` and `b` where k is made of `absf`,
    `negf`, `extf` and `truncf`, which keep NaN exactly); the map makes
    every NaN key one positive NaN, which the key order puts after +inf,
    so NaNs keep their input order as the comparator's ties do. Key types:
    f16, bf16, f32, f64 and integers of 8 to 64 bits. With k(x) = x the
    comparator is the key order itself: a sort without it, no map and no
    gathers. The CPU pipeline keeps the comparator (its merge sort is the
    reference).

    Before:
    ```mlir
    %s, %p = fuse.sort ascending positions %k
        : tensor<?xf32> -> tensor<?xf32>, tensor<?xi64> {
    ^bb0(%a: f32, %b: f32):
      %aa = math.absf %a : f32
      %bb = math.absf %b : f32
      %lt = arith.cmpf olt, %aa, %bb : f32
      fuse.yield %lt : i1
    }
    ```
    After:
    ```mlir
    %m = fuse.map %k : tensor<?xf32> -> tensor<?xf32> {
    ^bb0(%x: f32):
      %ax = math.absf %x : f32
      %nan = arith.cmpf uno, %ax, %ax : f32
      %q = arith.constant 0x7FC00000 : f32
      %key = arith.select %nan, %q, %ax : f32
      fuse.yield %key : f32
    }
    %sm, %p = fuse.sort ascending positions %m
        : tensor<?xf32> -> tensor<?xf32>, tensor<?xi64>
    %s = fuse.gather %k[%p] : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>
    ```
  }];
  let dependentDialects = ["::fuse::FuseDialect",
                           "::mlir::arith::ArithDialect"];
}

def FuseMergeReductionsPass : Pass<"fuse-merge-reductions"> {
  let summary = "Merge partial reductions of one tensor over the same "
                "dimensions into one fuse.reduce";
  let description = [{
    Partial reductions that fusion leaves to themselves (any but full
    reductions and the rows of a rank-2 tensor: column sums, reductions
    over a middle dimension) each read their input once. Reductions with
    built-in kinds and no inits whose first input is the same tensor,
    reduced over the same dimensions, become one `fuse.reduce` with every
    input and kind: independent sibling reductions done in one pass, so
    the input is read once (`x.sum(0)`, `x.max(0)` and `x.mean(0)`: one
    pass instead of three). Each result is computed exactly as before.
    The merged op takes the place of the first of them; a later one joins
    only when its inputs are defined before that place. Both pipelines run
    it before fusion when fusion is on.

    Before:
    ```mlir
    %s = fuse.reduce add %x dims [0] : tensor<?x?xf32> -> tensor<?xf32>
    %m = fuse.reduce max %x dims [0] : tensor<?x?xf32> -> tensor<?xf32>
    ```
    After:
    ```mlir
    %s, %m = fuse.reduce add, max %x, %x dims [0]
        : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?xf32>, tensor<?xf32>
    ```
  }];
  let dependentDialects = ["::fuse::FuseDialect"];
}

def FuseBuiltinCombinersPass : Pass<"fuse-builtin-combiners"> {
  let summary = "Rewrite combiner regions that spell out built-in kinds as "
                "those kinds";
  let description = [{
    A `fuse.reduce`, `fuse.scan` or `fuse.segmented_reduce` whose combiner
    region yields, for each input i, one built-in op on accumulator i and
    element i (`arith.addf %acc, %x`, `arith.maxui %x, %acc`, ...) takes
    that list of kinds instead, its inits kept. Both forms mean
    `init (+) x0 (+) x1 ...` with the same ops, so the rewrite is exact;
    the GPU has kernels for built-in kinds that regions lack (row groups,
    reductions over scattered dims) or run slower. Float ops qualify only
    as `acc (+) x` (which NaN's payload an op keeps can depend on the
    order), integer ops in either order; f16 and bf16 add and mul stay
    regions, since built-in kinds accumulate those in f32
    (fuse-widen-accumulators). The same rewrite is a canonicalization of
    the three ops. Every pipeline runs this pass before fusion when fusion
    is on (the unfused CPU reference lowers regions as written).

    Before:
    ```mlir
    %s = fuse.reduce %x init(%z : f32) dims [1] : tensor<?x?xf32> -> tensor<?xf32> {
    ^bb0(%a: f32, %b: f32):
      %m = arith.addf %a, %b : f32
      fuse.yield %m : f32
    }
    ```
    After:
    ```mlir
    %s = fuse.reduce add %x init(%z : f32) dims [1] : tensor<?x?xf32> -> tensor<?xf32>
    ```
  }];
  let statistics = [
    Statistic<"numRewritten", "rewritten",
              "Number of combiner regions rewritten as built-in kinds">
  ];
  let dependentDialects = ["::fuse::FuseDialect"];
}

def FuseSplitReductionsPass : Pass<"fuse-split-reductions"> {
  let summary = "Split reductions over scattered dimensions into a chain "
                "the GPU kernels take";
  let description = [{
    A `fuse.reduce` with built-in kinds over several (not all) dimensions
    that are not a leading or trailing block (dims `[0, 2]` of a rank-3
    tensor) becomes a reduction over its last dimension, from the kinds'
    identities, then one over the remaining dimensions from the original
    inits; the second is split again where it still needs it. The GPU
    kernels take a reduction over one dimension and, after
    `fuse-collapse-rows`, over a leading or trailing block. Floats are
    summed in another grouping than one pass over the elements would (as
    every GPU reduction is); a combiner region is left as written (it need
    not have an identity), and the GPU rejects it with the reason.
    fuse-to-gpu runs it before fuse-collapse-rows (with fusion on).

    Before:
    ```mlir
    %s = fuse.reduce add %x dims [0, 2] : tensor<?x?x?xf32> -> tensor<?xf32>
    ```
    After:
    ```mlir
    %r = fuse.reduce add %x dims [2] : tensor<?x?x?xf32> -> tensor<?x?xf32>
    %s = fuse.reduce add %r dims [0] : tensor<?x?xf32> -> tensor<?xf32>
    ```
  }];
  let statistics = [
    Statistic<"numSplit", "split",
              "Number of reductions split off a scattered reduction">
  ];
  let dependentDialects = ["::fuse::FuseDialect"];
}

def FuseCollapseRowsPass : Pass<"fuse-collapse-rows"> {
  let summary = "Compute rank > 2 row reductions over the rows of the "
                "collapsed matrix";
  let description = [{
    A reduction over the last dimension of a rank-R tensor (R > 2) is a
    row reduction of the `[d0 * ... * d(R-2), C]` matrix that holds the
    same bytes. This pass rewrites each such `fuse.reduce`, each
    `fuse.broadcast` back along the rows (of one value per row, dims
    `[R-1]`, or of one value per column, a rank-1 tensor broadcast along
    dims `[0, ..., R-2]`), and each `fuse.map` between them (reading
    function arguments or rewritten values) over operands collapsed with
    `tensor.collapse_shape`, and expands the results back with
    `tensor.expand_shape`; expand -> collapse pairs between rewritten ops
    fold away. Fusion then forms the one-pass row groups of rank 2
    (softmax or layer norm over the last axis of batch x heads x
    columns); the reshapes left at the function's arguments and results
    are views of the same buffers. A map that reads a tensor a rewritten
    row reduction or map reads (a sibling) is rewritten too, so fusion
    merges it into the row group and the tensor is read once. A map of
    the rewritten row reductions' results (one value a row: the narrowing
    of a sum that fuse-widen-accumulators made wider, a mix of two row
    results) is rewritten over the collapsed `[d0 * ... * d(R-2)]`, so it
    stays in the row group instead of splitting it. Other ops,
    and maps that do not touch a rewritten value, keep their rank. A
    reduction over a leading or
    trailing block of two or more (not all) dimensions becomes a column or
    row reduction of `[d0 * ... * d(s-1), ds * ... * d(R-1)]` (the GPU
    kernels take those, not reductions over two of three dimensions). A
    full reduction of expanded values reduces the collapsed ones instead
    (the same elements in the same order), so it joins the group of the
    map that makes them. A
    product of collapsed dimensions is not a size the entry's checks relate
    to the arguments (two rank-3 arguments zipped over their rows would no
    longer have their leading dimensions checked against each other), so
    the checks of the function as written that the rewritten one does not
    imply are recorded on it (`fuse.size_checks`, #fuse.size_check) and
    every entry made from it checks them too. fuse-to-gpu runs it before
    fuse-fusion (with fusion on).

    Before:
    ```mlir
    %m = fuse.reduce max %x dims [2] : tensor<?x?x?xf32> -> tensor<?x?xf32>
    ```
    After:
    ```mlir
    %c = tensor.collapse_shape %x [[0, 1], [2]] : tensor<?x?x?xf32> into tensor<?x?xf32>
    %r = fuse.reduce max %c dims [1] : tensor<?x?xf32> -> tensor<?xf32>
    %m = tensor.expand_shape %r [[0, 1]] output_shape [%d0, %d1] : tensor<?xf32> into tensor<?x?xf32>
    ```
  }];
  let statistics = [
    Statistic<"numCollapsed", "collapsed",
              "Number of rank > 2 row ops rewritten over collapsed rows">,
    Statistic<"numRecorded", "recorded-checks",
              "Number of size checks recorded on functions "
              "(fuse.size_checks): the collapsed rows no longer imply them">
  ];
  let dependentDialects = ["::fuse::FuseDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FuseFastMathPass : Pass<"fuse-fastmath"> {
  let summary = "Give every float op that takes fast-math flags the given "
                "flags (fuse-compile --fastmath)";
  let description = [{
    Adds `flags` (MLIR's arith fast-math flags, comma-separated: reassoc,
    nnan, ninf, nsz, arcp, contract, afn, or fast for all) to the
    `fastmath` attribute of every op under the root that has one (arith
    float arithmetic, comparisons and min/max, math functions), inside
    fuse bodies and outside. Flags already on an op stay. `arcp` lets a
    division by a row-wide value become one reciprocal a row on the GPU,
    `afn` makes math.exp the two-instruction ex2.approx form
    (docs/gpu-codegen.md, "Fast-math flags").
  }];
  let options = [
    Option<"flags", "flags", "std::string", /*default=*/"\"\"",
           "Fast-math flags to add, comma-separated (e.g. arcp,afn)">
  ];
}

def FuseShardPass : Pass<"fuse-shard", "::mlir::ModuleOp"> {
  let summary = "Rewrite entries to run once a shard, each on its part of "
                "the data";
  let description = [{
    Rewrites every public entry into the program that each of G shards
    runs on its own contiguous part of the split data (ShardPlan.h: the
    leading dimension of one argument, rows of a 2-d one, and every size
    tied to it). The same IR serves any G: the shard's index and the count
    come from `fuse.shard_rank`, and shards meet only in `fuse.all_gather`
    and `fuse.all_concat`.

    - Maps, broadcasts, filters, row groups and anything that does not
      cross the split dimension run as written on the local part; a
      filter's kept elements stay split.
    - A reduction over the split dimension reduces the local part (the
      init on shard 0 only), gathers the partial results and folds them in
      shard order, so every shard holds the result and the bits do not
      depend on timing. A histogram of split indices sums the shards'
      counts the same way.
    - A scan along the split dimension scans the local part, gathers the
      shards' totals (a row of them for rows scanned a column at a time)
      and combines the fold of the totals of the shards before it into
      every element.
    - Combiner regions have no identity, so their values carry a
      "present" flag and the region is lifted to the pairs (an absent
      value is the identity); built-in kinds use their identity.
    - An element of a split rank-1 array read at the top
      (`tensor.extract`) is read by the shard holding it and or-ed as
      bits over the shards. Other ops that read split data at positions
      of the whole array (a gather's source, a searchsorted's table, a
      segmented reduction's inputs, an element of rows, or a body that
      reads the split value from above) read the whole array,
      `fuse.all_concat` of the parts; in such a body, `tensor.dim` of the
      split value is the total. A sort of split keys sorts the whole array on every
      shard, and each keeps its own part.
    - An iota along the split dimension adds the shard's start (the sizes
      of the shards before it); a `tensor.dim` of a split size is the
      local size where it sizes a tensor and the total elsewhere (a mean
      divides by the total).
    - Static split sizes become dynamic (each shard holds its own rows);
      an iota, broadcast or `tensor.empty` that took the size from its
      type takes the local rows. A rank-1 array that no split value feeds
      but that the pipeline ties to the split size (a constant zipped
      with split data) is whole on every shard, and each reads its own
      part of it.
    - A prefix of split data (the whole array's first `count` elements)
      takes the local elements before `count` less the shard's start;
      its result stays split.
    - Results split along the leading dimension are the shard's part; the
      others are the same on every shard.

    Floating-point reductions and scans associate differently for each G;
    for a given G the results are the same run to run. Entries that
    cannot run sharded get an error at the op: a constant of rank 2 or
    more tied to the split rows, or a split size that is not leading.
  }];
  let options = [
    Option<"splitArg", "split-arg", "int64_t", /*default=*/"-1",
           "The argument whose leading dimension is split (-1: the first "
           "tensor argument of rank 1 or more)">
  ];
  let statistics = [
    Statistic<"numCollectives", "collectives",
              "Number of all_gather ops made">
  ];
  let dependentDialects = ["::fuse::FuseDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FuseExplainPass : Pass<"fuse-explain"> {
  let summary = "Report the predicted memory traffic of every fused group";
  let description = [{
    The traffic model. For every `fuse.group` (and every fuse op outside a
    group, counted as its own pass) emits an MLIR remark at the group's
    location (the location of its last op) with:

    - the group kind and the ops fused, with their locations;
    - the predicted bytes read and written, symbolic in the dynamic sizes
      (`read 4*n bytes, write 4 bytes`; the legend names each symbol, e.g.
      `n = dim 0 of %arg0`; sizes proven equal by the ops share a symbol,
      a filter's result size is `count`), numeric for static shapes;
    - the passes over memory and the kernels it needs;
    - for every producer that was not fused, why (from `fuse.not_fused`).

    Each tensor operand is read once and each result written once (a
    row_reduce group keeps its row on chip; a gather reads one source
    element per index). A last remark per function gives the totals. The
    pass never changes the IR. Remarks go to the diagnostic stream
    (stderr with fuse-opt).
  }];
  let statistics = [
    Statistic<"numGroups", "groups", "Number of groups explained">,
    Statistic<"numKernels", "kernels", "Predicted number of kernels">
  ];
}

def FuseTilePass : Pass<"fuse-tile"> {
  let summary = "Choose the GPU tiling of each fused group (fuse.tiling)";
  let description = [{
    Attaches to every `fuse.group` a `fuse.tiling` attribute, a
    `#fuse.tiling` (its verifier bounds every field), from the module's
    `fuse.target` (fuse-attach-target; sm_90's figures when absent):

    - `blockThreads`: threads per block. 256 for elementwise, reduce,
      row_reduce and filter groups, 512 for scan groups, at most the
      target's threads per block.
    - `vectorWidth`: elements per load of the target's vector bytes of the
      widest element type the group loads or stores (its operands and
      results; values computed in the body stay in registers): 4 for f32
      with 16 bytes.
    - `itemsPerThread`: elements per thread per grid-stride step,
      a multiple of vectorWidth chosen to keep 64 bytes of loads in
      flight per thread over all input streams (row_reduce groups whose
      results are all per row, e.g. logsumexp, 128 bytes and at most 32
      items; filter groups 80 bytes, scan groups 128, at most 32 items,
      an item counting the most of its loaded operands, its scanned or
      filtered values and its results, all of which the thread holds in
      registers); for elementwise groups one vector (vectorWidth).
    - `grid`: persistent grid, the target's SM count * blocks per SM (the
      option `blocks-per-sm`, or the target's threads per SM over
      blockThreads); capped by the number of tiles when every size is
      static (never 0: a group over 0 elements has one block that does
      nothing). Blocks loop grid-stride over tiles. Elementwise groups
      are not persistent: one block per tile (the number of tiles when
      every size is static, else 0: the host launches
      ceil(vectors / blockThreads) blocks), measured faster than the
      persistent grid (docs/performance.md).
    - the fields of one kernel family, from the options below, set only
      on the groups of that family.

    Options set to a non-zero value override the chosen field.

    ```mlir
    %s = fuse.group reduce (%x) {fuse.tiling = #fuse.tiling<
        blockThreads = 256, grid = 1056,
        itemsPerThread = 16, vectorWidth = 4, finishPrefetch = 4>} ...
    ```
  }];
  let options = [
    Option<"blocksPerSM", "blocks-per-sm", "int64_t", /*default=*/"0",
           "Resident blocks per SM for the persistent grid (0: occupancy)">,
    Option<"blockThreads", "block-threads", "int64_t", /*default=*/"0",
           "Override block_threads (0: cost model)">,
    Option<"itemsPerThread", "items-per-thread", "int64_t", /*default=*/"0",
           "Override items_per_thread (0: cost model)">,
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"0",
           "Override vector_width (0: cost model)">,
    Option<"grid", "grid", "int64_t", /*default=*/"0",
           "Override grid (0: cost model)">,
    Option<"stageTiles", "stage-tiles", "int64_t", /*default=*/"1",
           "Scan and filter groups: 1 stages the block's next tile in shared "
           "memory with cp.async (4 blocks of 256 threads per SM), 0 holds "
           "it in registers (3 blocks). Scans at the cost model's 512 "
           "threads are always held in registers (one block per SM)">,
    Option<"pollDelay", "poll-delay", "int64_t",
           /*default=*/"::fuse::kDefaultPollDelay",
           "Scan and filter groups: nanoseconds a look-back sleeps before "
           "reading a window again">,
    Option<"lookbackDelay", "lookback-delay", "int64_t",
           /*default=*/"::fuse::kDefaultLookbackDelay",
           "Scan and filter groups: nanoseconds a tile sleeps after "
           "publishing its aggregate, before its first look-back read">,
    Option<"sharedScatter", "shared-scatter", "int64_t", /*default=*/"1",
           "Filter groups: 1 gathers a tile's kept elements in shared memory "
           "and stores them with consecutive threads on consecutive "
           "elements (coalesced), 0 stores each kept element from its "
           "thread (scattered)">,
    Option<"finishPrefetch", "finish-prefetch", "int64_t", /*default=*/"4",
           "Reduce groups: partials each thread of the finish kernel keeps "
           "loading ahead of the one it folds, 0-8 (0: each partial is "
           "loaded where it is folded)">,
    Option<"longRowItems", "long-row-items", "int64_t", /*default=*/"8",
           "Row-reduce groups, rows longer than the register path holds: "
           "elements each thread loads per step of the walk that writes "
           "the rank-2 results, all before any is stored, 0-32 (0: one "
           "element per step)">,
    Option<"longRowStageItems", "long-row-stage-items", "int64_t",
           /*default=*/"8",
           "Row-reduce groups, rows longer than the register path holds: "
           "elements each thread loads per step of a reduction's walk over "
           "the row, all before any is folded (the fold order is the "
           "same), 1-32">,
    Option<"onlineMaxSum", "online-max-sum", "int64_t", /*default=*/"1",
           "Row-reduce groups, rows longer than the register path holds: "
           "1 computes a row maximum and the following sum of exp(x - max) "
           "(logsumexp, softmax) in one walk over the row with online "
           "rescaling, 0 in two walks (one more read of the row)">,
    Option<"oneWalkVariance", "one-walk-variance", "int64_t",
           /*default=*/"1",
           "Row-reduce groups, rows longer than the register path holds: "
           "1 computes a row sum S and the following sum of squared "
           "deviations (x - f(S))^2 (layer norm's variance) in one walk "
           "over the row with shifted sums, and walks the row again for "
           "the deviations only where S, f(S) or the result is not "
           "finite; 0 in two walks (one more read of the row)">,
    Option<"narrowRows", "narrow-rows", "int64_t", /*default=*/"1",
           "Row-reduce groups: N > 0 gives a row that needs at most half "
           "the block's threads (need = ceil(cols / items-per-thread) <= "
           "block-threads / 2) a group of R threads, the power of two >= "
           "need and >= N, several rows per block (warp reductions only "
           "for groups of up to 32 threads; rows on the vector path and "
           "rows off it in kernels of their own; with row-wide results, "
           "groups under 4 threads only for rows of up to two vectors a "
           "thread); N is a power of two up to 32; 0 keeps one row per "
           "block">,
    Option<"stagedRows", "staged-rows", "int64_t", /*default=*/"-1",
           "Row-reduce groups with row-wide results (softmax), rows longer "
           "than the register path holds: rows whose operands take at most "
           "this many bytes are copied once into shared memory and every "
           "walk (the reductions', the results') reads them there: one read "
           "of the row from memory instead of two (0: off; -1 and at most: "
           "the shared memory a block of the target may opt in to, less "
           "1 KiB in code generation; none before sm_80)">,
    Option<"stagedThreads", "staged-threads", "int64_t", /*default=*/"1024",
           "Row-reduce groups with staged rows (staged-rows): threads per "
           "block of staged rows that take over half the chip's shared "
           "memory a block (one block an SM; smaller staged rows run with "
           "the group's blockThreads), a multiple of 32 up to "
           "the target's threads per block (0: the group's blockThreads)">,
    Option<"wideRowThreads", "wide-row-threads", "int64_t",
           /*default=*/"1024",
           "Row-reduce groups: threads per block of a second register-path "
           "kernel, for rows longer than the group's block holds in "
           "registers (block-threads x items-per-thread) and from half to "
           "all of what this many threads hold (each thread the same "
           "items): such a row is read from memory once, in registers, "
           "instead of walked or staged in shared memory; a multiple of 32 "
           "up to the target's threads per block (0, or no more than the "
           "group's block: no such kernel)">,
    Option<"segmentPiece", "segment-piece", "int64_t",
           /*default=*/"::fuse::kDefaultSegmentPiece",
           "Segmented-reduce groups with built-in kinds: where the mean "
           "segment takes a block, segments of mean length L are split "
           "into max(1, L / N) pieces of equal length, a block each, whose "
           "partials a second kernel combines in order; 0 keeps a block a "
           "segment">
  ];
}

#endif // FUSE_DIALECT_FUSE_TRANSFORMS_PASSES_TD
