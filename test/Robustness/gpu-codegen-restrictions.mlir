// Restrictions of the GPU code generator (convert-fuse-to-gpu) that a
// verifier-valid program of plain fuse ops reaches through fusion
// (docs/reliability.md, checklist row 4): one case per restriction, each a
// clean "GPU code generation: ..." error at the op it is about, never a
// crash or an internal error. The restrictions only hand-written fuse.group
// IR reaches (kinds whose body does not fit the kernel pattern, sizes the
// host cannot compute) are in gpu-codegen-restrictions-groups.mlir. The
// second RUN line compiles every case on its own with fuse-compile, the
// full pipeline: each must fail with the same error at the same line
// (Inputs/each-case.py).
//
// RUN: fuse-opt %s -split-input-file -verify-diagnostics --fuse-fusion --fuse-bool-bytes --fuse-tile --convert-fuse-to-gpu -o /dev/null
// RUN: rm -rf %t && %python %S/Inputs/each-case.py %s %t fuse-compile --emit=ptx | FileCheck %s --check-prefix=FULL
// FULL-NOT: FAIL
// FULL: 12 cases: 9 rejected cleanly with the expected error, 3 compiled as marked, 0 failed
//
// Messages of lib/Conversion/FuseToGPU that guard internal invariants,
// not reachable from valid IR (tried; the reason each time):
// - "operand not available on the host" (an index_cast on the host),
//   "operand not available on the host" and "scalar operand not available
//   on the host" (group operands): every value of an entry function is an
//   argument, a tensor.dim, a scalar op or a group result (anything else
//   is rejected first, "unsupported op in an entry function"), and each is
//   given its host value before any later op can use it.
// - "tensor.dim needs a constant index on a known tensor", the "known
//   tensor" half: every tensor of an entry function is an argument or a
//   group result, all known (the non-constant index is tested below).
// - "every result must be produced by a fuse.group in the function":
//   a tensor result is a group result, an op rejected first ("unsupported
//   op in an entry function"), or an argument, which is copied by a map
//   (test/Pipelines/gpu-returned-argument.mlir).
// - "unsupported plan": every group kernel builder sets a plan.
// - "no size for result #N on the host": results with an out_count are
//   rank-1 group results, whose host sizes are always recorded.
// - "group kind '...' is not supported yet": the fuse.group verifier
//   (group_c1) admits exactly the five kinds that have builders.
// - "custom combiner regions take the ordered reduce kernels" and the
//   ordered builder's "a reduce group needs a fuse.reduce": the dispatch
//   sends a reduce group to the ordered kernels exactly when it has a
//   custom-combiner reduction, and to the built-in ones otherwise.
// - "unsupported value in a reduce group body" of the two finishing
//   kernels (built-in and ordered): a finishing kernel evaluates only what
//   the partial kernel's one-block path already evaluated (the same
//   finalize), so the partial kernel fails first.
// - "cannot size the rows" and "cannot size the scan or filter" when the
//   group has no reduction/scan/filter or the reduction is not rank 2:
//   the kernel builders rejected those groups before (the size failures
//   themselves are tested in gpu-codegen-restrictions-groups.mlir).

// -----

// An entry function is one block (a loop of blocks, which canonicalization
// cannot merge).
// expected-error @+1 {{GPU code generation: entry functions must have one block}}
func.func @multi_block(%x: tensor<?xf32>, %p: i1) -> tensor<?xf32> {
  %m = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %s = arith.mulf %a, %a : f32
    fuse.yield %s : f32
  }
  cf.br ^bb1
^bb1:
  cf.cond_br %p, ^bb1, ^bb2
^bb2:
  return %m : tensor<?xf32>
}

// -----

// Between groups the host runs scalar code only: no tensor op.
func.func @tensor_op_on_host(%x: tensor<?xf32>) -> f32 {
  %s = fuse.reduce add %x : tensor<?xf32> -> tensor<f32>
  // expected-error @+1 {{GPU code generation: unsupported op in an entry function (expected fuse.group, fuse.sort, fuse.prefix, scalar ops, tensor.dim or tensor reshapes)}}
  %e = tensor.extract %s[] : tensor<f32>
  return %e : f32
}

// -----

// expected-error @+1 {{GPU code generation: unsupported argument type 'vector<4xf32>'}}
func.func @vector_argument(%x: tensor<?xf32>, %v: vector<4xf32>) -> tensor<?xf32> {
  %m = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    fuse.yield %a : f32
  }
  return %m : tensor<?xf32>
}

// -----

// expected-error @+1 {{GPU code generation: results must be tensors}}
func.func @scalar_result(%x: tensor<?xf32>, %y: f32) -> (tensor<?xf32>, f32) {
  %m = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    fuse.yield %a : f32
  }
  return %m, %y : tensor<?xf32>, f32
}

// -----

func.func @dim_not_constant(%x: tensor<?x?xf32>, %i: index) -> tensor<?xf32> {
  // expected-error @+1 {{GPU code generation: tensor.dim needs a constant index on a known tensor}}
  %n = tensor.dim %x, %i : tensor<?x?xf32>
  %io = fuse.iota %n : tensor<?xf32>
  return %io : tensor<?xf32>
}

// -----

// An i1 tensor read at positions computed from data, as a searchsorted's
// table: it stays i1 at the group's boundary (fuse-bool-bytes turns other
// i1 operands and results into bytes).
func.func @i1_searchsorted_table(%t: tensor<?xi1>, %v: tensor<?xi1>) -> tensor<?xi64> {
  // expected-error @+1 {{GPU code generation: element type 'i1' cannot be read or written by a kernel (fuse-bool-bytes makes i1 tensors bytes at group boundaries, except a searchsorted's table and a segmented reduction's inputs)}}
  %p = fuse.searchsorted left %t, %v : tensor<?xi1>, tensor<?xi1> -> tensor<?xi64>
  return %p : tensor<?xi64>
}

// -----

// A partial reduction over two dimensions of a rank-3 tensor that are not
// a leading or trailing block (those fuse-collapse-rows makes a column or
// row reduction of a matrix), with a combiner region: fuse-split-reductions
// splits only built-in kinds (the first reduction needs an identity), so it
// becomes a row_reduce group of its own; one reduced dimension takes the
// line kernel (gpu-reduce-lines.mlir), two do not. (The region keeps the
// value of larger magnitude: a region that is one built-in kind's op
// becomes that kind, fuse-builtin-combiners, and is split.)
func.func @reduce_two_dims(%x: tensor<?x?x?xf32>, %i: f32) -> tensor<?xf32> {
  // expected-error @+1 {{GPU code generation: a reduction over dims [0, 2] of a rank-3 tensor is not supported on the GPU yet (a row_reduce group takes dimension 1 of rank-2 tensors, which the last dimension of a rank > 2 tensor becomes; a reduction over one other dimension takes the line kernel, and fuse-split-reductions makes a chain of those of one with built-in kinds)}}
  %s = fuse.reduce %x init(%i : f32) dims [0, 2] : tensor<?x?x?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    %aa = math.absf %a : f32
    %ab = math.absf %b : f32
    %ge = arith.cmpf oge, %aa, %ab : f32
    %m = arith.select %ge, %a, %b : f32
    fuse.yield %m : f32
  }
  return %s : tensor<?xf32>
}

// -----

// A scan along the rows of gathered rows: rank > 1 scans compile
// (line-scan kernels, gpu-scan-rank2.mlir) when every tensor of the group
// has the scan's shape; the gather's rank-1 source does not.
func.func @scan_rank2_gather(%src: tensor<?xf32>, %idx: tensor<?x?xi64>) -> tensor<?x?xf32> {
  %g = fuse.gather %src[%idx] : tensor<?xf32>, tensor<?x?xi64> -> tensor<?x?xf32>
  // expected-error @+1 {{GPU code generation: a scan group over rank > 1 tensors takes tensors of the scan's shape only (rank-0 operands and broadcasts of operands aside)}}
  %y = fuse.scan inclusive add %g dim 1 : tensor<?x?xf32> -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

// A broadcast that adds no dimension (valid: canonicalization folds it, but
// fusion does not canonicalize) is pulled into the scan group.
// full pipeline: compiles (a broadcast that adds no dimension folds to its input)
func.func @scan_broadcast_rank1(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{GPU code generation: only rank-0 broadcasts are supported in a scan group}}
  %b = fuse.broadcast %x dims [] : tensor<?xf32> -> tensor<?xf32>
  %y = fuse.scan inclusive add %b : tensor<?xf32> -> tensor<?xf32>
  return %y : tensor<?xf32>
}

// -----

// full pipeline: compiles (a broadcast that adds no dimension folds to its input)
func.func @filter_broadcast_rank1(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{GPU code generation: only rank-0 broadcasts are supported in a filter group}}
  %b = fuse.broadcast %x dims [] : tensor<?xf32> -> tensor<?xf32>
  %f = fuse.filter %b : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%e: f32):
    %z = arith.constant 0.0 : f32
    %p = arith.cmpf ogt, %e, %z : f32
    fuse.yield %p : i1
  }
  return %f : tensor<?xf32>
}

// -----

// A comparator region reading a value from the function (not a constant):
// the merge-sort kernels see only their keys.
func.func @comparator_reads_outside(%k: tensor<?xf32>, %c: f32) -> tensor<?xf32> {
  // expected-error @+1 {{'fuse.sort' op GPU code generation: the comparator region reads a value computed outside it; only constants can be used there on the GPU}}
  %s = fuse.sort ascending %k : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    %x = arith.subf %a, %c : f32
    %lt = arith.cmpf olt, %x, %b : f32
    fuse.yield %lt : i1
  }
  return %s : tensor<?xf32>
}

// -----

// Two inputs reduced together over a trailing block of dims: the GPU
// takes no reduction over two of three dims. The full pipeline's
// fuse-collapse-rows makes it a row reduction of [d0, d1 * d2]; the inputs'
// middle sizes then meet only as products, so it records their
// equalities on the function for the entry to check.
// full pipeline: compiles (fuse-collapse-rows reduces the rows of [d0, d1 * d2] and records the size checks the products lose)
func.func @two_inputs_trailing(%x: tensor<?x?x?xf32>, %y: tensor<?x?x?xi64>) -> (tensor<?xf32>, tensor<?xi64>) {
  // expected-error @+1 {{GPU code generation: a reduction over dims [1, 2] of a rank-3 tensor is not supported on the GPU yet}}
  %s, %t = fuse.reduce (add, add) %x, %y dims [1, 2] : tensor<?x?x?xf32>, tensor<?x?x?xi64> -> tensor<?xf32>, tensor<?xi64>
  return %s, %t : tensor<?xf32>, tensor<?xi64>
}
