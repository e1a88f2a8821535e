// Restrictions of the GPU code generator (convert-fuse-to-gpu) that only
// hand-written fuse.group IR reaches: the verifier checks a group's kind
// but not that its body fits the kind's kernel pattern, and fusion never
// forms such groups (gpu-codegen-restrictions.mlir has the restrictions a
// program of plain fuse ops reaches, and the list of messages that guard
// internal invariants only). One case per restriction, each a clean "GPU
// code generation: ..." error at the op it is about. Fusion leaves existing
// groups alone, so the cases give the same errors with it (second RUN
// line) and through fuse-compile, the full pipeline, each case on its own
// (third RUN line, Inputs/each-case.py).
//
// RUN: fuse-opt %s -split-input-file -verify-diagnostics --convert-fuse-to-gpu -o /dev/null
// RUN: fuse-opt %s -split-input-file -verify-diagnostics --fuse-fusion --fuse-tile --convert-fuse-to-gpu -o /dev/null
// RUN: rm -rf %t && %python %S/Inputs/each-case.py %s %t fuse-compile --emit=ptx | FileCheck %s --check-prefix=FULL
// FULL-NOT: FAIL
// FULL: 31 cases: 27 rejected cleanly with the expected error, 4 compiled as marked, 0 failed

// -----

//===--- reduce groups ---===//

func.func @reduce_group_without_reduce(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{GPU code generation: a reduce group needs a fuse.reduce}}
  %r = fuse.group reduce (%x) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?xf32>):
    %m = fuse.map %a : tensor<?xf32> -> tensor<?xf32> {
    ^bb0(%e: f32):
      fuse.yield %e : f32
    }
    fuse.yield %m : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

func.func @reduce_group_partial(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %r = fuse.group reduce (%x) : (tensor<?x?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?x?xf32>):
    // expected-error @+1 {{GPU code generation: a reduce group takes full reductions only (use a row_reduce group)}}
    %s = fuse.reduce add %a dims [1] : tensor<?x?xf32> -> tensor<?xf32>
    fuse.yield %s : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

// The same with a custom combiner (the ordered reduce kernels' check).
func.func @reduce_group_partial_custom(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %r = fuse.group reduce (%x) : (tensor<?x?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?x?xf32>):
    %z = arith.constant 0.0 : f32
    // expected-error @+1 {{GPU code generation: a reduce group takes full reductions only (use a row_reduce group)}}
    %s = fuse.reduce %a init(%z : f32) dims [1] : tensor<?x?xf32> -> tensor<?xf32> {
    ^bb0(%acc: f32, %e: f32):
      %p = arith.addf %acc, %e : f32
      fuse.yield %p : f32
    }
    fuse.yield %s : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

// A scan result is not an elementwise value of the reduced domain.
func.func @reduce_group_unsupported_value(%x: tensor<?xf32>) -> tensor<f32> {
  // expected-error @+1 {{GPU code generation: unsupported value in a reduce group body}}
  %r = fuse.group reduce (%x) : (tensor<?xf32>) -> tensor<f32> {
  ^bb0(%a: tensor<?xf32>):
    %c = fuse.scan inclusive add %a : tensor<?xf32> -> tensor<?xf32>
    %s = fuse.reduce add %c : tensor<?xf32> -> tensor<f32>
    fuse.yield %s : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

func.func @reduce_group_unsupported_value_custom(%x: tensor<?xf32>) -> tensor<f32> {
  // expected-error @+1 {{GPU code generation: unsupported value in a reduce group body}}
  %r = fuse.group reduce (%x) : (tensor<?xf32>) -> tensor<f32> {
  ^bb0(%a: tensor<?xf32>):
    %c = fuse.scan inclusive add %a : tensor<?xf32> -> tensor<?xf32>
    %z = arith.constant 0.0 : f32
    %s = fuse.reduce %c init(%z : f32) : tensor<?xf32> -> tensor<f32> {
    ^bb0(%acc: f32, %e: f32):
      %p = arith.addf %acc, %e : f32
      fuse.yield %p : f32
    }
    fuse.yield %s : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// The result's size is known, but not the first reduction's domain: an
// iota sized by a scalar computed in the body.
func.func @reduce_group_unsized(%x: tensor<?xf32>, %n: index) -> tensor<f32> {
  // expected-error @+1 {{GPU code generation: cannot size the reduction}}
  %r = fuse.group reduce (%x, %n) : (tensor<?xf32>, index) -> tensor<f32> {
  ^bb0(%a: tensor<?xf32>, %k: index):
    %c1 = arith.constant 1 : index
    %m = arith.addi %k, %c1 : index
    %io = fuse.iota %m : tensor<?xf32>
    %r1 = fuse.reduce add %io : tensor<?xf32> -> tensor<f32>
    %r2 = fuse.reduce add %a : tensor<?xf32> -> tensor<f32>
    %s = fuse.map %r2, %r1 : tensor<f32>, tensor<f32> -> tensor<f32> {
    ^bb0(%p: f32, %q: f32):
      %t = arith.addf %p, %q : f32
      fuse.yield %t : f32
    }
    fuse.yield %s : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

//===--- row_reduce groups ---===//

func.func @row_reduce_group_without_reduce(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{GPU code generation: a row_reduce group needs a fuse.reduce}}
  %r = fuse.group row_reduce (%x) : (tensor<?x?xf32>) -> tensor<?x?xf32> {
  ^bb0(%a: tensor<?x?xf32>):
    %m = fuse.map %a : tensor<?x?xf32> -> tensor<?x?xf32> {
    ^bb0(%e: f32):
      fuse.yield %e : f32
    }
    fuse.yield %m : tensor<?x?xf32>
  }
  return %r : tensor<?x?xf32>
}

// -----

func.func @row_reduce_group_rank3_operand(%x: tensor<?x?xf32>, %y: tensor<2x3x4xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{GPU code generation: row_reduce operands must have rank <= 2}}
  %r = fuse.group row_reduce (%x, %y) : (tensor<?x?xf32>, tensor<2x3x4xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?x?xf32>, %b: tensor<2x3x4xf32>):
    %s = fuse.reduce add %a dims [1] : tensor<?x?xf32> -> tensor<?xf32>
    fuse.yield %s : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

func.func @row_reduce_group_scan(%x: tensor<?x?xf32>, %v: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %r:2 = fuse.group row_reduce (%x, %v) : (tensor<?x?xf32>, tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  ^bb0(%a: tensor<?x?xf32>, %b: tensor<?xf32>):
    %s = fuse.reduce add %a dims [1] : tensor<?x?xf32> -> tensor<?xf32>
    // expected-error @+1 {{GPU code generation: not supported in a row_reduce group}}
    %c = fuse.scan inclusive add %b : tensor<?xf32> -> tensor<?xf32>
    fuse.yield %s, %c : tensor<?xf32>, tensor<?xf32>
  }
  return %r#0, %r#1 : tensor<?xf32>, tensor<?xf32>
}

// -----

// full pipeline: compiles (nothing uses the broadcast: it goes before code generation)
func.func @row_reduce_group_rank3_value(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %r = fuse.group row_reduce (%x) : (tensor<?x?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?x?xf32>):
    %s = fuse.reduce add %a dims [1] : tensor<?x?xf32> -> tensor<?xf32>
    // expected-error @+1 {{GPU code generation: row_reduce values must have rank <= 2}}
    %b = fuse.broadcast %a dims [2] : tensor<?x?xf32> -> tensor<?x?x2xf32>
    fuse.yield %s : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

func.func @row_reduce_group_rank0_result(%x: tensor<?x?xf32>, %t: tensor<f32>) -> (tensor<?xf32>, tensor<f32>) {
  // expected-error @+1 {{GPU code generation: a row_reduce group yields rank-1 or rank-2 tensors only}}
  %r:2 = fuse.group row_reduce (%x, %t) : (tensor<?x?xf32>, tensor<f32>) -> (tensor<?xf32>, tensor<f32>) {
  ^bb0(%a: tensor<?x?xf32>, %b: tensor<f32>):
    %s = fuse.reduce add %a dims [1] : tensor<?x?xf32> -> tensor<?xf32>
    %m = fuse.map %b : tensor<f32> -> tensor<f32> {
    ^bb0(%e: f32):
      fuse.yield %e : f32
    }
    fuse.yield %s, %m : tensor<?xf32>, tensor<f32>
  }
  return %r#0, %r#1 : tensor<?xf32>, tensor<f32>
}

// -----

// The rows are read through a tensor.cast (not a fuse op) in the body.
func.func @row_reduce_group_unsupported_value(%x: tensor<4x?xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{GPU code generation: unsupported value in a row_reduce group body}}
  %r = fuse.group row_reduce (%x) : (tensor<4x?xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4x?xf32>):
    %c = tensor.cast %a : tensor<4x?xf32> to tensor<?x?xf32>
    %s = fuse.reduce add %c dims [1] : tensor<?x?xf32> -> tensor<?xf32>
    %t = tensor.cast %s : tensor<?xf32> to tensor<4xf32>
    fuse.yield %t : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// The result's size is known, but not the first row reduction's rows.
func.func @row_reduce_group_unsized(%x: tensor<?x?xf32>, %v: tensor<?xf32>, %n: index) -> tensor<?xf32> {
  // expected-error @+1 {{GPU code generation: cannot size the rows}}
  %r = fuse.group row_reduce (%x, %v, %n) : (tensor<?x?xf32>, tensor<?xf32>, index) -> tensor<?xf32> {
  ^bb0(%a: tensor<?x?xf32>, %w: tensor<?xf32>, %k: index):
    %c1 = arith.constant 1 : index
    %m = arith.addi %k, %c1 : index
    %b = fuse.broadcast %w dims [1] (%m) : tensor<?xf32> -> tensor<?x?xf32>
    %r1 = fuse.reduce add %b dims [1] : tensor<?x?xf32> -> tensor<?xf32>
    %r2 = fuse.reduce add %a dims [1] : tensor<?x?xf32> -> tensor<?xf32>
    %s = fuse.map %r2, %r1 : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {
    ^bb0(%p: f32, %q: f32):
      %t = arith.addf %p, %q : f32
      fuse.yield %t : f32
    }
    fuse.yield %s : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

//===--- scan groups ---===//

func.func @scan_group_without_scan(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{GPU code generation: a scan group needs a fuse.scan}}
  %r = fuse.group scan (%x) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?xf32>):
    %m = fuse.map %a : tensor<?xf32> -> tensor<?xf32> {
    ^bb0(%e: f32):
      fuse.yield %e : f32
    }
    fuse.yield %m : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

func.func @scan_group_two_scans(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  // expected-error @+1 {{GPU code generation: a scan group takes one fuse.scan}}
  %r:2 = fuse.group scan (%x) : (tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  ^bb0(%a: tensor<?xf32>):
    %s = fuse.scan inclusive add %a : tensor<?xf32> -> tensor<?xf32>
    %t = fuse.scan inclusive max %a : tensor<?xf32> -> tensor<?xf32>
    fuse.yield %s, %t : tensor<?xf32>, tensor<?xf32>
  }
  return %r#0, %r#1 : tensor<?xf32>, tensor<?xf32>
}

// -----

// A rank-2 value inside the group (rank-2 operands: @scan_rank2 in
// gpu-codegen-restrictions.mlir, @filter_group_rank2_operand below).
// full pipeline: compiles (nothing uses the rank-2 value: it goes before code generation)
func.func @scan_group_rank2_value(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{GPU code generation: a scan group over rank > 1 tensors is not supported yet}}
  %r = fuse.group scan (%x) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?xf32>):
    %io = fuse.iota dim 1 : tensor<2x3xf32>
    %s = fuse.scan inclusive add %a : tensor<?xf32> -> tensor<?xf32>
    fuse.yield %s : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

// full pipeline: compiles (nothing uses the reduction: it goes before code generation)
func.func @scan_group_reduce(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = fuse.group scan (%x) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?xf32>):
    // expected-error @+1 {{GPU code generation: a reduction cannot be part of a scan group}}
    %t = fuse.reduce add %a : tensor<?xf32> -> tensor<f32>
    %s = fuse.scan inclusive add %a : tensor<?xf32> -> tensor<?xf32>
    fuse.yield %s : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

func.func @scan_group_rank0_result(%x: tensor<?xf32>, %t: tensor<f32>) -> (tensor<?xf32>, tensor<f32>) {
  // expected-error @+1 {{GPU code generation: every result of a scan group must be rank 1}}
  %r:2 = fuse.group scan (%x, %t) : (tensor<?xf32>, tensor<f32>) -> (tensor<?xf32>, tensor<f32>) {
  ^bb0(%a: tensor<?xf32>, %b: tensor<f32>):
    %s = fuse.scan inclusive add %a : tensor<?xf32> -> tensor<?xf32>
    %m = fuse.map %b : tensor<f32> -> tensor<f32> {
    ^bb0(%e: f32):
      fuse.yield %e : f32
    }
    fuse.yield %s, %m : tensor<?xf32>, tensor<f32>
  }
  return %r#0, %r#1 : tensor<?xf32>, tensor<f32>
}

// -----

// A scan of a filter's (compacted) result in the same group.
func.func @scan_group_unsupported_value(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{GPU code generation: unsupported value in a scan group body}}
  %r = fuse.group scan (%x) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?xf32>):
    %f = fuse.filter %a : tensor<?xf32> -> tensor<?xf32> {
    ^bb0(%e: f32):
      %z = arith.constant 0.0 : f32
      %p = arith.cmpf ogt, %e, %z : f32
      fuse.yield %p : i1
    }
    %c = fuse.scan inclusive add %f : tensor<?xf32> -> tensor<?xf32>
    fuse.yield %c : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

// The result's size is known (from %a), but not the scan's domain.
func.func @scan_group_unsized(%x: tensor<?xf32>, %n: index) -> tensor<?xf32> {
  // expected-error @+1 {{GPU code generation: cannot size the scan or filter}}
  %r = fuse.group scan (%x, %n) : (tensor<?xf32>, index) -> tensor<?xf32> {
  ^bb0(%a: tensor<?xf32>, %k: index):
    %c1 = arith.constant 1 : index
    %m = arith.addi %k, %c1 : index
    %io = fuse.iota %m : tensor<?xf32>
    %c = fuse.scan inclusive add %io : tensor<?xf32> -> tensor<?xf32>
    %s = fuse.map %a, %c : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {
    ^bb0(%p: f32, %q: f32):
      %t = arith.addf %p, %q : f32
      fuse.yield %t : f32
    }
    fuse.yield %s : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

//===--- filter groups ---===//

func.func @filter_group_without_filter(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{GPU code generation: a filter group needs a fuse.filter}}
  %r = fuse.group filter (%x) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?xf32>):
    %m = fuse.map %a : tensor<?xf32> -> tensor<?xf32> {
    ^bb0(%e: f32):
      fuse.yield %e : f32
    }
    fuse.yield %m : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

func.func @filter_group_two_filters(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  // expected-error @+1 {{GPU code generation: a filter group takes one fuse.filter}}
  %r:2 = fuse.group filter (%x) : (tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  ^bb0(%a: tensor<?xf32>):
    %f = fuse.filter %a : tensor<?xf32> -> tensor<?xf32> {
    ^bb0(%e: f32):
      %z = arith.constant 0.0 : f32
      %p = arith.cmpf ogt, %e, %z : f32
      fuse.yield %p : i1
    }
    %g = fuse.filter %a : tensor<?xf32> -> tensor<?xf32> {
    ^bb0(%e: f32):
      %z = arith.constant 0.0 : f32
      %p = arith.cmpf olt, %e, %z : f32
      fuse.yield %p : i1
    }
    fuse.yield %f, %g : tensor<?xf32>, tensor<?xf32>
  }
  return %r#0, %r#1 : tensor<?xf32>, tensor<?xf32>
}

// -----

func.func @filter_group_rank2_operand(%x: tensor<?xf32>, %y: tensor<?x?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{GPU code generation: a filter group over rank > 1 tensors is not supported yet}}
  %r = fuse.group filter (%x, %y) : (tensor<?xf32>, tensor<?x?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?xf32>, %b: tensor<?x?xf32>):
    %f = fuse.filter %a : tensor<?xf32> -> tensor<?xf32> {
    ^bb0(%e: f32):
      %z = arith.constant 0.0 : f32
      %p = arith.cmpf ogt, %e, %z : f32
      fuse.yield %p : i1
    }
    fuse.yield %f : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

// full pipeline: compiles (nothing uses the reduction: it goes before code generation)
func.func @filter_group_reduce(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = fuse.group filter (%x) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?xf32>):
    // expected-error @+1 {{GPU code generation: a reduction cannot be part of a filter group}}
    %t = fuse.reduce add %a : tensor<?xf32> -> tensor<f32>
    %f = fuse.filter %a : tensor<?xf32> -> tensor<?xf32> {
    ^bb0(%e: f32):
      %z = arith.constant 0.0 : f32
      %p = arith.cmpf ogt, %e, %z : f32
      fuse.yield %p : i1
    }
    fuse.yield %f : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

func.func @filter_group_rank0_result(%x: tensor<?xf32>, %t: tensor<f32>) -> (tensor<?xf32>, tensor<f32>) {
  // expected-error @+1 {{GPU code generation: every result of a filter group must be rank 1}}
  %r:2 = fuse.group filter (%x, %t) : (tensor<?xf32>, tensor<f32>) -> (tensor<?xf32>, tensor<f32>) {
  ^bb0(%a: tensor<?xf32>, %b: tensor<f32>):
    %f = fuse.filter %a : tensor<?xf32> -> tensor<?xf32> {
    ^bb0(%e: f32):
      %z = arith.constant 0.0 : f32
      %p = arith.cmpf ogt, %e, %z : f32
      fuse.yield %p : i1
    }
    %m = fuse.map %b : tensor<f32> -> tensor<f32> {
    ^bb0(%e: f32):
      fuse.yield %e : f32
    }
    fuse.yield %f, %m : tensor<?xf32>, tensor<f32>
  }
  return %r#0, %r#1 : tensor<?xf32>, tensor<f32>
}

// -----

// A map of the kept elements in the filter's own group.
func.func @filter_group_result_used(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = fuse.group filter (%x) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?xf32>):
    %f = fuse.filter %a : tensor<?xf32> -> tensor<?xf32> {
    ^bb0(%e: f32):
      %z = arith.constant 0.0 : f32
      %p = arith.cmpf ogt, %e, %z : f32
      fuse.yield %p : i1
    }
    // expected-error @+1 {{GPU code generation: the result of a fuse.filter can only be yielded by its group}}
    %m = fuse.map %f : tensor<?xf32> -> tensor<?xf32> {
    ^bb0(%e: f32):
      %d = arith.mulf %e, %e : f32
      fuse.yield %d : f32
    }
    fuse.yield %m : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

// A filter of a scan's result in the same group.
func.func @filter_group_unsupported_value(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{GPU code generation: unsupported value in a filter group body}}
  %r = fuse.group filter (%x) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?xf32>):
    %c = fuse.scan inclusive add %a : tensor<?xf32> -> tensor<?xf32>
    %f = fuse.filter %c : tensor<?xf32> -> tensor<?xf32> {
    ^bb0(%e: f32):
      %z = arith.constant 0.0 : f32
      %p = arith.cmpf ogt, %e, %z : f32
      fuse.yield %p : i1
    }
    fuse.yield %f : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

//===--- elementwise groups ---===//

// A full reduction inside an elementwise group, read back at every element.
func.func @elementwise_group_unsupported_value(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{GPU code generation: unsupported value in an elementwise group body}}
  %r = fuse.group elementwise (%x) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?xf32>):
    %s = fuse.reduce add %a : tensor<?xf32> -> tensor<f32>
    %c0 = arith.constant 0 : index
    %n = tensor.dim %a, %c0 : tensor<?xf32>
    %b = fuse.broadcast %s dims [0] (%n) : tensor<f32> -> tensor<?xf32>
    %m = fuse.map %a, %b : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {
    ^bb0(%e: f32, %t: f32):
      %d = arith.subf %e, %t : f32
      fuse.yield %d : f32
    }
    fuse.yield %m : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

// An iota sized by a scalar computed in the body: the host cannot size the
// result.
func.func @elementwise_group_unsized_result(%n: index) -> tensor<?xf32> {
  // expected-error @+1 {{GPU code generation: cannot compute the size of result #0 on the host}}
  %r = fuse.group elementwise (%n) : (index) -> tensor<?xf32> {
  ^bb0(%k: index):
    %c1 = arith.constant 1 : index
    %m = arith.addi %k, %c1 : index
    %io = fuse.iota %m : tensor<?xf32>
    fuse.yield %io : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

// A rank-2 scan group that also returns a 0-d operand: line-scan kernels
// write results of the scan's shape only.
func.func @scan_rank2_group_scalar_result(%x: tensor<?x?xf32>, %s: tensor<f32>) -> (tensor<?x?xf32>, tensor<f32>) {
  // expected-error @+1 {{GPU code generation: every result of a scan group over rank > 1 tensors has the scan's shape}}
  %r:2 = fuse.group scan (%x, %s) : (tensor<?x?xf32>, tensor<f32>) -> (tensor<?x?xf32>, tensor<f32>) {
  ^bb0(%a: tensor<?x?xf32>, %b: tensor<f32>):
    %y = fuse.scan inclusive add %a dim 1 : tensor<?x?xf32> -> tensor<?x?xf32>
    fuse.yield %y, %b : tensor<?x?xf32>, tensor<f32>
  }
  return %r#0, %r#1 : tensor<?x?xf32>, tensor<f32>
}

// -----

// A rank-1 value computed inside a rank-2 elementwise group and broadcast:
// only group operands may have the lower rank (fusion keeps the rank-1 map
// in a group of its own).
func.func @elementwise_group_rank1_value(%x: tensor<?x?xf32>, %v: tensor<?xf32>, %n: index) -> tensor<?x?xf32> {
  // expected-error @+1 {{GPU code generation: an elementwise group must read and write tensors of one shape (rank-0 broadcasts and broadcasts of group operands aside)}}
  %r = fuse.group elementwise (%x, %v, %n) : (tensor<?x?xf32>, tensor<?xf32>, index) -> tensor<?x?xf32> {
  ^bb0(%a: tensor<?x?xf32>, %b: tensor<?xf32>, %m: index):
    %w = fuse.map %b : tensor<?xf32> -> tensor<?xf32> {
    ^bb0(%e: f32):
      %t = arith.addf %e, %e : f32
      fuse.yield %t : f32
    }
    %c = fuse.broadcast %w dims [1] (%m) : tensor<?xf32> -> tensor<?x?xf32>
    %y = fuse.map %a, %c : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
    ^bb0(%p: f32, %q: f32):
      %d = arith.subf %p, %q : f32
      fuse.yield %d : f32
    }
    fuse.yield %y : tensor<?x?xf32>
  }
  return %r : tensor<?x?xf32>
}
