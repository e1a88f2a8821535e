// One case per tagged verifier check of FuseOps.td / FuseOps.cpp; the tag
// is in the comment above each case.
// RUN: fuse-opt %s -split-input-file -verify-diagnostics --allow-unregistered-dialect

// all_c1
func.func @huge_static_shape(%x: tensor<4611686018427387904x4611686018427387904xf32>) {
  // expected-error @+1 {{'fuse.reduce' op operand #0 has type 'tensor<4611686018427387904x4611686018427387904xf32>' whose size overflows 64 bits (at most 2^63-1 bytes)}}
  %0 = fuse.reduce add %x : tensor<4611686018427387904x4611686018427387904xf32> -> tensor<f32>
  return
}

// -----

// all_c1 (the element count fits, the byte size does not)
func.func @huge_static_bytes() {
  // expected-error @+1 {{'fuse.iota' op result #0 has type 'tensor<2305843009213693952xf32>' whose size overflows 64 bits (at most 2^63-1 bytes)}}
  %0 = fuse.iota : tensor<2305843009213693952xf32>
  return
}

// -----

// map_c1
func.func @map_no_input() {
  // expected-error @+1 {{'fuse.map' op requires at least one input}}
  %0 = "fuse.map"() ({
  ^bb0:
    %c = arith.constant 1.0 : f32
    fuse.yield %c : f32
  }) : () -> tensor<f32>
  return
}

// -----

// map_c2
func.func @map_shapes(%x: tensor<4xf32>, %y: tensor<5xf32>) {
  // expected-error @+1 {{'fuse.map' op requires all inputs to have the same shape, but #0 is [4] and #1 is [5]}}
  %0 = fuse.map %x, %y : tensor<4xf32>, tensor<5xf32> -> tensor<4xf32> {
  ^bb0(%a: f32, %b: f32):
    fuse.yield %a : f32
  }
  return
}

// -----

// map_c2 (ranks differ)
func.func @map_ranks(%x: tensor<?xf32>, %y: tensor<?x?xf32>) {
  // expected-error @+1 {{requires all inputs to have the same shape, but #0 is [?] and #1 is [?, ?]}}
  %0 = fuse.map %x, %y : tensor<?xf32>, tensor<?x?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    fuse.yield %a : f32
  }
  return
}

// -----

// map_c3
func.func @map_no_result(%x: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.map' op requires at least one result}}
  "fuse.map"(%x) ({
  ^bb0(%a: f32):
    fuse.yield
  }) : (tensor<?xf32>) -> ()
  return
}

// -----

// map_c4
func.func @map_result_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{'fuse.map' op result #0 has shape [5], but the inputs have shape [4]}}
  %0 = fuse.map %x : tensor<4xf32> -> tensor<5xf32> {
  ^bb0(%a: f32):
    fuse.yield %a : f32
  }
  return
}

// -----

// map_c5 (count)
func.func @map_block_arity(%x: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.map' op expects the body block to take 1 arguments, but it takes 2}}
  %0 = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    fuse.yield %a : f32
  }
  return
}

// -----

// map_c5 (type)
func.func @map_block_type(%x: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.map' op expects body block argument #0 to have type 'f32', but it has type 'f64'}}
  %0 = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f64):
    %t = arith.truncf %a : f64 to f32
    fuse.yield %t : f32
  }
  return
}

// -----

// map_c6 (count)
func.func @map_yield_count(%x: tensor<?xf32>) {
  %0 = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    // expected-error @+1 {{'fuse.yield' op yields 2 values, but the body of fuse.map needs 1}}
    fuse.yield %a, %a : f32, f32
  }
  return
}

// -----

// map_c6 (type)
func.func @map_yield_type(%x: tensor<?xf32>) {
  %0 = fuse.map %x : tensor<?xf32> -> tensor<?xi32> {
  ^bb0(%a: f32):
    // expected-error @+1 {{'fuse.yield' op operand #0 has type 'f32', but the body of fuse.map needs 'i32'}}
    fuse.yield %a : f32
  }
  return
}

// -----

// map_c6 (terminator)
func.func @map_no_yield(%x: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.map' op expects the body block to end with fuse.yield}}
  %0 = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    "test.terminator"(%a) : (f32) -> ()
  }
  return
}

// -----

// map: ODS region constraint (one block)
func.func @map_two_blocks(%x: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.map' op region #0 ('body') failed to verify constraint: region with 1 blocks}}
  %0 = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    cf.br ^bb1
  ^bb1:
    fuse.yield %a : f32
  }
  return
}

// -----

// map: ODS type constraint (element types)
func.func @map_index_elements(%x: tensor<?xindex>) {
  // expected-error @+1 {{'fuse.map' op operand #0 must be variadic of ranked tensor of fuse element type}}
  %0 = fuse.map %x : tensor<?xindex> -> tensor<?xindex> {
  ^bb0(%a: index):
    fuse.yield %a : index
  }
  return
}

// -----

// reduce_c1
func.func @reduce_no_input() {
  // expected-error @+1 {{'fuse.reduce' op requires at least one input}}
  %0 = "fuse.reduce"() <{operandSegmentSizes = array<i32: 0, 0>, kinds = []}> ({}) : () -> tensor<f32>
  return
}

// -----

// reduce_c2
func.func @reduce_shapes(%x: tensor<4xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'fuse.reduce' op requires all inputs to have the same shape, but #0 is [4] and #1 is [3]}}
  %0:2 = fuse.reduce (add, add) %x, %y : tensor<4xf32>, tensor<3xf32> -> tensor<f32>, tensor<f32>
  return
}

// -----

// reduce_c3
func.func @reduce_result_count(%x: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.reduce' op has 2 results for 1 inputs}}
  %0:2 = fuse.reduce add %x : tensor<?xf32> -> tensor<f32>, tensor<f32>
  return
}

// -----

// reduce_c4 (range)
func.func @reduce_dim_range(%x: tensor<?x?xf32>) {
  // expected-error @+1 {{'fuse.reduce' op reduction dimension 2 is out of range for rank 2}}
  %0 = fuse.reduce add %x dims [2] : tensor<?x?xf32> -> tensor<?x?xf32>
  return
}

// -----

// reduce_c4 (negative)
func.func @reduce_dim_negative(%x: tensor<?x?xf32>) {
  // expected-error @+1 {{'fuse.reduce' op reduction dimension -1 is out of range for rank 2}}
  %0 = fuse.reduce add %x dims [-1] : tensor<?x?xf32> -> tensor<?xf32>
  return
}

// -----

// reduce_c4 (order)
func.func @reduce_dim_order(%x: tensor<?x?xf32>) {
  // expected-error @+1 {{'fuse.reduce' op reduction dimensions must be sorted and unique}}
  %0 = fuse.reduce add %x dims [1, 0] : tensor<?x?xf32> -> tensor<f32>
  return
}

// -----

// reduce_c5 (shape)
func.func @reduce_result_shape(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'fuse.reduce' op result #0 has shape [5], but reducing dims of [4, 5] leaves [4]}}
  %0 = fuse.reduce add %x dims [1] : tensor<4x5xf32> -> tensor<5xf32>
  return
}

// -----

// reduce_c5 (element type)
func.func @reduce_result_type(%x: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.reduce' op result #0 has element type 'f64', but input #0 has 'f32'}}
  %0 = fuse.reduce add %x : tensor<?xf32> -> tensor<f64>
  return
}

// -----

// reduce_c6
func.func @reduce_kind_count(%x: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.reduce' op has 2 combiner kinds for 1 inputs}}
  %0 = fuse.reduce (add, mul) %x : tensor<?xf32> -> tensor<f32>
  return
}

// -----

// reduce_c7
func.func @reduce_kind_type(%x: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.reduce' op combiner kind 'xor' is not defined on element type 'f32' (input #0)}}
  %0 = fuse.reduce xor %x : tensor<?xf32> -> tensor<f32>
  return
}

// -----

// reduce_c7 (unsigned order on a float)
func.func @reduce_kind_umax_float(%x: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.reduce' op combiner kind 'umax' is not defined on element type 'f32' (input #0)}}
  %0 = fuse.reduce umax %x : tensor<?xf32> -> tensor<f32>
  return
}

// -----

// reduce_c8 (built-in kinds)
func.func @reduce_init_count_kinds(%x: tensor<?xf32>, %y: tensor<?xf32>, %i: f32) {
  // expected-error @+1 {{'fuse.reduce' op has 1 init values for 2 inputs}}
  %0:2 = fuse.reduce (add, max) %x, %y init(%i : f32) : tensor<?xf32>, tensor<?xf32> -> tensor<f32>, tensor<f32>
  return
}

// -----

// reduce_c8 (combiner region)
func.func @reduce_init_count_region(%x: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.reduce' op with a combiner region needs one init value per input (1), but has 0}}
  %0 = fuse.reduce %x : tensor<?xf32> -> tensor<f32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuse.yield %s : f32
  }
  return
}

// -----

// reduce_c9
func.func @reduce_init_type(%x: tensor<?xf32>, %i: f64) {
  // expected-error @+1 {{'fuse.reduce' op init value #0 has type 'f64', but input #0 has element type 'f32'}}
  %0 = fuse.reduce add %x init(%i : f64) : tensor<?xf32> -> tensor<f32>
  return
}

// -----

// reduce_c10 (neither)
func.func @reduce_no_combiner(%x: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.reduce' op needs a combiner: built-in kinds or a combiner region}}
  %0 = fuse.reduce %x : tensor<?xf32> -> tensor<f32>
  return
}

// -----

// reduce_c10 (both)
func.func @reduce_both_combiners(%x: tensor<?xf32>, %i: f32) {
  // expected-error @+1 {{'fuse.reduce' op has both built-in combiner kinds and a combiner region}}
  %0 = fuse.reduce add %x init(%i : f32) : tensor<?xf32> -> tensor<f32> {
  ^bb0(%a: f32, %b: f32):
    fuse.yield %a : f32
  }
  return
}

// -----

// reduce_c11 (blocks)
func.func @reduce_two_blocks(%x: tensor<?xf32>, %i: f32) {
  // expected-error @+1 {{'fuse.reduce' op expects a combiner region with one block}}
  %0 = fuse.reduce %x init(%i : f32) : tensor<?xf32> -> tensor<f32> {
  ^bb0(%a: f32, %b: f32):
    cf.br ^bb1
  ^bb1:
    fuse.yield %a : f32
  }
  return
}

// -----

// reduce_c11 (arity)
func.func @reduce_combiner_arity(%x: tensor<?xf32>, %i: f32) {
  // expected-error @+1 {{'fuse.reduce' op expects the combiner block to take 2 arguments, but it takes 1}}
  %0 = fuse.reduce %x init(%i : f32) : tensor<?xf32> -> tensor<f32> {
  ^bb0(%a: f32):
    fuse.yield %a : f32
  }
  return
}

// -----

// reduce_c11 (types)
func.func @reduce_combiner_type(%x: tensor<?xf32>, %i: f32) {
  // expected-error @+1 {{'fuse.reduce' op expects combiner block argument #1 to have type 'f32', but it has type 'i32'}}
  %0 = fuse.reduce %x init(%i : f32) : tensor<?xf32> -> tensor<f32> {
  ^bb0(%a: f32, %b: i32):
    fuse.yield %a : f32
  }
  return
}

// -----

// reduce_c12 (count)
func.func @reduce_yield_count(%x: tensor<?xf32>, %i: f32) {
  %0 = fuse.reduce %x init(%i : f32) : tensor<?xf32> -> tensor<f32> {
  ^bb0(%a: f32, %b: f32):
    // expected-error @+1 {{'fuse.yield' op yields 0 values, but the combiner of fuse.reduce needs 1}}
    fuse.yield
  }
  return
}

// -----

// reduce_c12 (type)
func.func @reduce_yield_type(%x: tensor<?xf32>, %i: f32) {
  %0 = fuse.reduce %x init(%i : f32) : tensor<?xf32> -> tensor<f32> {
  ^bb0(%a: f32, %b: f32):
    %c = arith.cmpf olt, %a, %b : f32
    // expected-error @+1 {{'fuse.yield' op operand #0 has type 'i1', but the combiner of fuse.reduce needs 'f32'}}
    fuse.yield %c : i1
  }
  return
}

// -----

// reduce_c12 (terminator)
func.func @reduce_no_yield(%x: tensor<?xf32>, %i: f32) {
  // expected-error @+1 {{'fuse.reduce' op expects the combiner block to end with fuse.yield}}
  %0 = fuse.reduce %x init(%i : f32) : tensor<?xf32> -> tensor<f32> {
  ^bb0(%a: f32, %b: f32):
    "test.terminator"() : () -> ()
  }
  return
}

// -----

// scan_c1
func.func @scan_no_input() {
  // expected-error @+1 {{'fuse.scan' op requires at least one input}}
  "fuse.scan"() <{operandSegmentSizes = array<i32: 0, 0>, kinds = []}> ({}) : () -> ()
  return
}

// -----

// scan_c2
func.func @scan_shapes(%x: tensor<4xi32>, %y: tensor<?x4xi32>) {
  // expected-error @+1 {{'fuse.scan' op requires all inputs to have the same shape, but #0 is [4] and #1 is [?, 4]}}
  %0:2 = fuse.scan inclusive (add, add) %x, %y : tensor<4xi32>, tensor<?x4xi32> -> tensor<4xi32>, tensor<?x4xi32>
  return
}

// -----

// scan_c3
func.func @scan_result_count(%x: tensor<?xi32>) {
  // expected-error @+1 {{'fuse.scan' op has 0 results for 1 inputs}}
  "fuse.scan"(%x) <{operandSegmentSizes = array<i32: 1, 0>, kinds = [#fuse.kind<add>]}> ({}) : (tensor<?xi32>) -> ()
  return
}

// -----

// scan_c4 (rank 0)
func.func @scan_rank0(%x: tensor<i32>) {
  // expected-error @+1 {{'fuse.scan' op cannot scan a rank-0 tensor}}
  %0 = fuse.scan inclusive add %x : tensor<i32> -> tensor<i32>
  return
}

// -----

// scan_c4 (range)
func.func @scan_dim_range(%x: tensor<?x?xi32>) {
  // expected-error @+1 {{'fuse.scan' op scan dimension 2 is out of range for rank 2}}
  %0 = fuse.scan inclusive add %x dim 2 : tensor<?x?xi32> -> tensor<?x?xi32>
  return
}

// -----

// scan_c4 (negative)
func.func @scan_dim_negative(%x: tensor<?x?xi32>) {
  // expected-error @+1 {{'fuse.scan' op scan dimension -1 is out of range for rank 2}}
  %0 = fuse.scan inclusive add %x dim -1 : tensor<?x?xi32> -> tensor<?x?xi32>
  return
}

// -----

// scan_c5
func.func @scan_result_type(%x: tensor<?xi32>) {
  // expected-error @+1 {{'fuse.scan' op result #0 has type 'tensor<?xi64>', but input #0 has type 'tensor<?xi32>'}}
  %0 = fuse.scan inclusive add %x : tensor<?xi32> -> tensor<?xi64>
  return
}

// -----

// scan_c6
func.func @scan_kind_count(%x: tensor<?xi32>, %y: tensor<?xi32>) {
  // expected-error @+1 {{'fuse.scan' op has 1 combiner kinds for 2 inputs}}
  %0:2 = fuse.scan inclusive add %x, %y : tensor<?xi32>, tensor<?xi32> -> tensor<?xi32>, tensor<?xi32>
  return
}

// -----

// scan_c7
func.func @scan_kind_type(%x: tensor<?xf16>) {
  // expected-error @+1 {{'fuse.scan' op combiner kind 'and' is not defined on element type 'f16' (input #0)}}
  %0 = fuse.scan exclusive and %x : tensor<?xf16> -> tensor<?xf16>
  return
}

// -----

// scan_c8
func.func @scan_init_count(%x: tensor<?xi32>) {
  // expected-error @+1 {{'fuse.scan' op with a combiner region needs one init value per input (1), but has 0}}
  %0 = fuse.scan inclusive %x : tensor<?xi32> -> tensor<?xi32> {
  ^bb0(%a: i32, %b: i32):
    fuse.yield %a : i32
  }
  return
}

// -----

// scan_c9
func.func @scan_init_type(%x: tensor<?xi32>, %i: i64) {
  // expected-error @+1 {{'fuse.scan' op init value #0 has type 'i64', but input #0 has element type 'i32'}}
  %0 = fuse.scan inclusive add %x init(%i : i64) : tensor<?xi32> -> tensor<?xi32>
  return
}

// -----

// scan_c10
func.func @scan_no_combiner(%x: tensor<?xi32>) {
  // expected-error @+1 {{'fuse.scan' op needs a combiner: built-in kinds or a combiner region}}
  %0 = fuse.scan inclusive %x : tensor<?xi32> -> tensor<?xi32>
  return
}

// -----

// scan_c11
func.func @scan_combiner_arity(%x: tensor<?xi32>, %i: i32) {
  // expected-error @+1 {{'fuse.scan' op expects the combiner block to take 2 arguments, but it takes 3}}
  %0 = fuse.scan inclusive %x init(%i : i32) : tensor<?xi32> -> tensor<?xi32> {
  ^bb0(%a: i32, %b: i32, %c: i32):
    fuse.yield %a : i32
  }
  return
}

// -----

// scan_c12
func.func @scan_yield_type(%x: tensor<?xi32>, %i: i32) {
  %0 = fuse.scan inclusive %x init(%i : i32) : tensor<?xi32> -> tensor<?xi32> {
  ^bb0(%a: i32, %b: i32):
    %e = arith.extsi %a : i32 to i64
    // expected-error @+1 {{'fuse.yield' op operand #0 has type 'i64', but the combiner of fuse.scan needs 'i32'}}
    fuse.yield %e : i64
  }
  return
}

// -----

// filter_c1
func.func @filter_no_input() {
  // expected-error @+1 {{'fuse.filter' op requires at least one input}}
  "fuse.filter"() ({
  ^bb0:
    %t = arith.constant true
    fuse.yield %t : i1
  }) : () -> ()
  return
}

// -----

// filter_c2
func.func @filter_shapes(%x: tensor<3xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{'fuse.filter' op requires all inputs to have the same shape, but #0 is [3] and #1 is [4]}}
  %0:2 = fuse.filter %x, %y : tensor<3xf32>, tensor<4xf32> -> tensor<?xf32>, tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    %t = arith.constant true
    fuse.yield %t : i1
  }
  return
}

// -----

// filter_c3
func.func @filter_rank2(%x: tensor<?x?xf32>) {
  // expected-error @+1 {{'fuse.filter' op requires rank-1 inputs, but input #0 has rank 2}}
  %0 = fuse.filter %x : tensor<?x?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %t = arith.constant true
    fuse.yield %t : i1
  }
  return
}

// -----

// filter_c4
func.func @filter_result_count(%x: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.filter' op has 2 results for 1 inputs}}
  %0:2 = fuse.filter %x : tensor<?xf32> -> tensor<?xf32>, tensor<?xf32> {
  ^bb0(%a: f32):
    %t = arith.constant true
    fuse.yield %t : i1
  }
  return
}

// -----

// filter_c5 (static result)
func.func @filter_static_result(%x: tensor<8xf32>) {
  // expected-error @+1 {{'fuse.filter' op result #0 must be 'tensor<?xf32>', but is 'tensor<8xf32>'}}
  %0 = fuse.filter %x : tensor<8xf32> -> tensor<8xf32> {
  ^bb0(%a: f32):
    %t = arith.constant true
    fuse.yield %t : i1
  }
  return
}

// -----

// filter_c5 (element type)
func.func @filter_result_type(%x: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.filter' op result #0 must be 'tensor<?xf32>', but is 'tensor<?xi32>'}}
  %0 = fuse.filter %x : tensor<?xf32> -> tensor<?xi32> {
  ^bb0(%a: f32):
    %t = arith.constant true
    fuse.yield %t : i1
  }
  return
}

// -----

// filter_c6
func.func @filter_pred_args(%x: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.filter' op expects the predicate block to take 1 arguments, but it takes 0}}
  %0 = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
    %t = arith.constant true
    fuse.yield %t : i1
  }
  return
}

// -----

// filter_c7
func.func @filter_pred_yield(%x: tensor<?xf32>) {
  %0 = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    // expected-error @+1 {{'fuse.yield' op operand #0 has type 'f32', but the predicate of fuse.filter needs 'i1'}}
    fuse.yield %a : f32
  }
  return
}

// -----

// iota_c1
func.func @iota_rank0() {
  // expected-error @+1 {{'fuse.iota' op requires a result of rank 1 or more}}
  %0 = fuse.iota : tensor<i32>
  return
}

// -----

// iota_c2
func.func @iota_dim(%n: index) {
  // expected-error @+1 {{'fuse.iota' op dimension 1 is out of range for rank 1}}
  %0 = fuse.iota %n dim 1 : tensor<?xi32>
  return
}

// -----

// iota_c3
func.func @iota_sizes(%n: index) {
  // expected-error @+1 {{'fuse.iota' op has 1 size operands, but the result type has 0 dynamic dimensions}}
  %0 = fuse.iota %n : tensor<8xi32>
  return
}

// -----

// iota_c4
func.func @iota_i1() {
  // expected-error @+1 {{'fuse.iota' op cannot produce indices of type i1}}
  %0 = fuse.iota : tensor<8xi1>
  return
}

// -----

// all_gather_c1 (no leading dimension)
func.func @all_gather_same_type(%x: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.all_gather' op result must be 'tensor<?x?xf32>' (the input's type with a leading dimension of the shard count), but is 'tensor<?xf32>'}}
  %0 = fuse.all_gather %x : tensor<?xf32> -> tensor<?xf32>
  return
}

// -----

// all_gather_c1 (a static shard count)
func.func @all_gather_static(%x: tensor<f32>) {
  // expected-error @+1 {{'fuse.all_gather' op result must be 'tensor<?xf32>' (the input's type with a leading dimension of the shard count), but is 'tensor<4xf32>'}}
  %0 = fuse.all_gather %x : tensor<f32> -> tensor<4xf32>
  return
}

// -----

// all_concat_c1
func.func @all_concat_rank0(%x: tensor<f32>) {
  // expected-error @+1 {{'fuse.all_concat' op requires an input of rank 1 or more (parts along the leading dimension), but it has rank 0}}
  %0 = fuse.all_concat %x : tensor<f32> -> tensor<f32>
  return
}

// -----

// all_concat_c2
func.func @all_concat_static(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'fuse.all_concat' op result must be 'tensor<?x3xf32>' (the input's type with a dynamic leading dimension), but is 'tensor<4x3xf32>'}}
  %0 = fuse.all_concat %x : tensor<4x3xf32> -> tensor<4x3xf32>
  return
}

// -----

// prefix_c1
func.func @prefix_rank2(%x: tensor<?x4xf32>, %n: tensor<i64>) {
  // expected-error @+1 {{'fuse.prefix' op requires a rank-1 source, but it has rank 2}}
  %0 = fuse.prefix %x, %n : tensor<?x4xf32>, tensor<i64> -> tensor<?xf32>
  return
}

// -----

// prefix_c2 (static result)
func.func @prefix_static_result(%x: tensor<8xf32>, %n: tensor<i64>) {
  // expected-error @+1 {{'fuse.prefix' op result must be 'tensor<?xf32>', but is 'tensor<8xf32>'}}
  %0 = fuse.prefix %x, %n : tensor<8xf32>, tensor<i64> -> tensor<8xf32>
  return
}

// -----

// prefix_c2 (element type)
func.func @prefix_result_type(%x: tensor<?xf32>, %n: tensor<i64>) {
  // expected-error @+1 {{'fuse.prefix' op result must be 'tensor<?xf32>', but is 'tensor<?xi32>'}}
  %0 = fuse.prefix %x, %n : tensor<?xf32>, tensor<i64> -> tensor<?xi32>
  return
}

// -----

// the count is a rank-0 i64 tensor (ODS)
func.func @prefix_count_type(%x: tensor<?xf32>, %n: tensor<1xi64>) {
  // expected-error @+1 {{'fuse.prefix' op operand #1 must be 0D tensor of 64-bit signless integer values}}
  %0 = fuse.prefix %x, %n : tensor<?xf32>, tensor<1xi64> -> tensor<?xf32>
  return
}

// -----

// gather_c1
func.func @gather_rank2_source(%s: tensor<?x?xf32>, %i: tensor<?xi64>) {
  // expected-error @+1 {{'fuse.gather' op requires a rank-1 source, but it has rank 2}}
  %0 = fuse.gather %s[%i] : tensor<?x?xf32>, tensor<?xi64> -> tensor<?xf32>
  return
}

// -----

// gather_c2
func.func @gather_shape(%s: tensor<?xf32>, %i: tensor<4xi64>) {
  // expected-error @+1 {{'fuse.gather' op result shape [5] differs from the indices' shape [4]}}
  %0 = fuse.gather %s[%i] : tensor<?xf32>, tensor<4xi64> -> tensor<5xf32>
  return
}

// -----

// gather_c3
func.func @gather_type(%s: tensor<?xf32>, %i: tensor<?xi64>) {
  // expected-error @+1 {{'fuse.gather' op result element type 'f64' differs from the source's 'f32'}}
  %0 = fuse.gather %s[%i] : tensor<?xf32>, tensor<?xi64> -> tensor<?xf64>
  return
}

// -----

// gather: ODS type constraint (indices are i32 or i64)
func.func @gather_i16(%s: tensor<?xf32>, %i: tensor<?xi16>) {
  // expected-error @+1 {{'fuse.gather' op operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = fuse.gather %s[%i] : tensor<?xf32>, tensor<?xi16> -> tensor<?xf32>
  return
}

// -----

// broadcast_c1
func.func @broadcast_rank(%x: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.broadcast' op result rank 3 is not the input rank 1 plus 1 added dimensions}}
  %0 = fuse.broadcast %x dims [0] : tensor<?xf32> -> tensor<2x3x?xf32>
  return
}

// -----

// broadcast_c2 (range)
func.func @broadcast_dim_range(%x: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.broadcast' op added dimension 2 is out of range for result rank 2}}
  %0 = fuse.broadcast %x dims [2] : tensor<?xf32> -> tensor<?x4xf32>
  return
}

// -----

// broadcast_c2 (order)
func.func @broadcast_dim_order(%x: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.broadcast' op added dimensions must be sorted and unique}}
  %0 = fuse.broadcast %x dims [2, 0] : tensor<?xf32> -> tensor<4x?x4xf32>
  return
}

// -----

// broadcast_c3
func.func @broadcast_type(%x: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.broadcast' op result element type 'i32' differs from the input's 'f32'}}
  %0 = fuse.broadcast %x dims [0] : tensor<?xf32> -> tensor<4x?xi32>
  return
}

// -----

// broadcast_c4
func.func @broadcast_kept(%x: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.broadcast' op result dimension 1 ([7]) must equal input dimension 0 ([?])}}
  %0 = fuse.broadcast %x dims [0] : tensor<?xf32> -> tensor<4x7xf32>
  return
}

// -----

// broadcast_c5
func.func @broadcast_sizes(%x: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.broadcast' op has 0 size operands, but 1 added dimensions are dynamic}}
  %0 = fuse.broadcast %x dims [0] : tensor<?xf32> -> tensor<?x?xf32>
  return
}

// -----

// group_c1
func.func @group_kind(%x: tensor<?xf32>) {
  // expected-error @+1 {{unknown group kind 'sort'; expected elementwise, reduce, row_reduce, scan, filter, histogram or segmented_reduce}}
  %0 = fuse.group sort (%x) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?xf32>):
    fuse.yield %a : tensor<?xf32>
  }
  return
}

// -----

// group_c2
func.func @group_operand(%x: memref<?xf32>) {
  // expected-error @+1 {{'fuse.group' op operand #0 has type 'memref<?xf32>'; expected a ranked tensor or a scalar}}
  fuse.group elementwise (%x) : (memref<?xf32>) -> () {
  ^bb0(%a: memref<?xf32>):
    fuse.yield
  }
  return
}

// -----

// group_c3
func.func @group_block_args(%x: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.group' op expects body block argument #0 to have type 'tensor<?xf32>', but it has type 'tensor<?xf64>'}}
  fuse.group elementwise (%x) : (tensor<?xf32>) -> () {
  ^bb0(%a: tensor<?xf64>):
    fuse.yield
  }
  return
}

// -----

// group_c4
func.func @group_yield(%x: tensor<?xf32>) {
  %0 = fuse.group elementwise (%x) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?xf32>):
    // expected-error @+1 {{'fuse.yield' op yields 0 values, but the body of fuse.group needs 1}}
    fuse.yield
  }
  return
}

// -----

// group_c5
func.func @group_row_broadcast_cols(%m: tensor<?x?xf32>, %r: index) {
  %0 = fuse.group row_reduce (%m, %r) : (tensor<?x?xf32>, index) -> tensor<?x?xf32> {
  ^bb0(%a: tensor<?x?xf32>, %n: index):
    %v = fuse.reduce add %a dims [1] : tensor<?x?xf32> -> tensor<?xf32>
    // expected-error @+1 {{'fuse.broadcast' op broadcasts a per-row value of its row_reduce group along dims [0]; a row_reduce group can only broadcast its row values along the row (dims [1])}}
    %b = fuse.broadcast %v dims [0] (%n) : tensor<?xf32> -> tensor<?x?xf32>
    %s = fuse.map %b, %a : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
    ^bb1(%x: f32, %y: f32):
      %d = arith.subf %x, %y : f32
      fuse.yield %d : f32
    }
    fuse.yield %s : tensor<?x?xf32>
  }
  return
}

// -----

// group: IsolatedFromAbove
func.func @group_isolated(%x: tensor<?xf32>, %k: f32) {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = fuse.group elementwise (%x) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?xf32>):
    %m = fuse.map %a : tensor<?xf32> -> tensor<?xf32> {
    ^bb1(%e: f32):
      // expected-error @+1 {{'arith.addf' op using value defined outside the region}}
      %s = arith.addf %e, %k : f32
      fuse.yield %s : f32
    }
    fuse.yield %m : tensor<?xf32>
  }
  return
}

// -----

// yield: ODS parent constraint
func.func @yield_outside() {
  // expected-error @+1 {{'fuse.yield' op expects parent op to be one of 'fuse.map, fuse.reduce, fuse.scan, fuse.segmented_reduce, fuse.filter, fuse.sort, fuse.group'}}
  fuse.yield
  return
}

// -----

// fuse.target: a chip name fuse can read
// expected-error @+1 {{target chip 'gfx90a' is not sm_ and a compute capability}}
module attributes {fuse.target = #fuse.target<chip = "gfx90a", smCount = 108, maxThreadsPerBlock = 1024, maxThreadsPerSM = 2048, sharedMemoryPerBlock = 166912, sharedMemoryPerSM = 167936, registersPerSM = 65536, l2Bytes = 41943040, vectorBytes = 16>} {}

// -----

// fuse.target: positive figures
// expected-error @+1 {{target figures must be positive}}
module attributes {fuse.target = #fuse.target<chip = "sm_80", smCount = 0, maxThreadsPerBlock = 1024, maxThreadsPerSM = 2048, sharedMemoryPerBlock = 166912, sharedMemoryPerSM = 167936, registersPerSM = 65536, l2Bytes = 41943040, vectorBytes = 16>} {}

// -----

// fuse.target: a block's shared memory is at most its SM's
// expected-error @+1 {{target sharedMemoryPerBlock (300000) exceeds sharedMemoryPerSM (167936)}}
module attributes {fuse.target = #fuse.target<chip = "sm_80", smCount = 108, maxThreadsPerBlock = 1024, maxThreadsPerSM = 2048, sharedMemoryPerBlock = 300000, sharedMemoryPerSM = 167936, registersPerSM = 65536, l2Bytes = 41943040, vectorBytes = 16>} {}

// -----

// fuse.target: whole warps a block
// expected-error @+1 {{target maxThreadsPerBlock (1000) is not a multiple of the warp (32)}}
module attributes {fuse.target = #fuse.target<chip = "sm_80", smCount = 108, maxThreadsPerBlock = 1000, maxThreadsPerSM = 2048, sharedMemoryPerBlock = 166912, sharedMemoryPerSM = 167936, registersPerSM = 65536, l2Bytes = 41943040, vectorBytes = 16>} {}

// -----

// fuse.tiling: whole warps a block
func.func @tiling_threads(%x: tensor<?xf32>) {
  // expected-error @+1 {{tiling blockThreads must be a multiple of 32 from 32 to 1024, not 48}}
  %0 = fuse.group elementwise (%x) {fuse.tiling = #fuse.tiling<blockThreads = 48, grid = 0, itemsPerThread = 4, vectorWidth = 4>} : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?xf32>):
    fuse.yield %a : tensor<?xf32>
  }
  return
}

// -----

// sort_c1
func.func @sort_rank2_keys(%k: tensor<?x?xf32>) {
  // expected-error @+1 {{'fuse.sort' op requires rank-1 keys, but they have rank 2}}
  %0 = fuse.sort ascending %k : tensor<?x?xf32> -> tensor<?x?xf32>
  return
}

// -----

// sort_c2
func.func @sort_values_rank2(%k: tensor<?xf32>, %v: tensor<?x?xi64>) {
  // expected-error @+1 {{'fuse.sort' op requires rank-1 values, but they have rank 2}}
  %0:2 = fuse.sort ascending %k, %v : tensor<?xf32>, tensor<?x?xi64> -> tensor<?xf32>, tensor<?x?xi64>
  return
}

// -----

// sort_c2 (the lengths)
func.func @sort_values_length(%k: tensor<8xf32>, %v: tensor<9xi64>) {
  // expected-error @+1 {{'fuse.sort' op values of shape [9] do not match the keys' shape [8]}}
  %0:2 = fuse.sort ascending %k, %v : tensor<8xf32>, tensor<9xi64> -> tensor<8xf32>, tensor<9xi64>
  return
}

// -----

// sort_c3
func.func @sort_missing_result(%k: tensor<?xf32>, %v: tensor<?xi64>) {
  // expected-error @+1 {{'fuse.sort' op has 1 results for 2 operands (keys and optional values)}}
  %0 = fuse.sort ascending %k, %v : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>
  return
}

// -----

// sort_c3 (the types)
func.func @sort_result_type(%k: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.sort' op result #0 has type 'tensor<?xf64>', but its operand has 'tensor<?xf32>'}}
  %0 = fuse.sort ascending %k : tensor<?xf32> -> tensor<?xf64>
  return
}

// -----

// sort_c3 (the positions)
func.func @sort_positions_type(%k: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.sort' op result #1 holds the positions, of type 'tensor<?xi64>', but it has 'tensor<?xi32>'}}
  %0:2 = fuse.sort ascending positions %k : tensor<?xf32> -> tensor<?xf32>, tensor<?xi32>
  return
}

// -----

// sort_c3 (no positions result)
func.func @sort_positions_missing(%k: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.sort' op has 1 results for 1 operands (keys and optional values) and the positions}}
  %0 = fuse.sort ascending positions %k : tensor<?xf32> -> tensor<?xf32>
  return
}

// -----

// sort_c7
func.func @sort_positions_and_values(%k: tensor<?xf32>, %v: tensor<?xi64>) {
  // expected-error @+1 {{'fuse.sort' op `positions` moves the keys' positions instead of a values operand; drop one}}
  %0:3 = fuse.sort ascending positions %k, %v : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>, tensor<?xi64>, tensor<?xi64>
  return
}

// -----

// sort_c4
func.func @sort_unsigned_floats(%k: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.sort' op `unsigned` orders integer keys, but the keys are 'f32'}}
  %0 = fuse.sort ascending unsigned %k : tensor<?xf32> -> tensor<?xf32>
  return
}

// -----

// sort_c4 (with a comparator)
func.func @sort_unsigned_comparator(%k: tensor<?xi32>) {
  // expected-error @+1 {{'fuse.sort' op `unsigned` and a comparator region both give the key order; keep one}}
  %0 = fuse.sort ascending unsigned %k : tensor<?xi32> -> tensor<?xi32> {
  ^bb0(%a: i32, %b: i32):
    %lt = arith.cmpi ult, %a, %b : i32
    fuse.yield %lt : i1
  }
  return
}

// -----

// sort_c5
func.func @sort_comparator_args(%k: tensor<?xf32>, %v: tensor<?xi64>) {
  // expected-error @+1 {{'fuse.sort' op expects the comparator block to take 2 arguments, but it takes 4}}
  %0:2 = fuse.sort ascending %k, %v : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>, tensor<?xi64> {
  ^bb0(%a: f32, %i: i64, %b: f32, %j: i64):
    %lt = arith.cmpf olt, %a, %b : f32
    fuse.yield %lt : i1
  }
  return
}

// -----

// sort_c5 (the types)
func.func @sort_comparator_arg_type(%k: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.sort' op expects comparator block argument #1 to have type 'f32', but it has type 'f64'}}
  %0 = fuse.sort ascending %k : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f64):
    %t = arith.constant true
    fuse.yield %t : i1
  }
  return
}

// -----

// sort_c6
func.func @sort_comparator_yield(%k: tensor<?xf32>) {
  %0 = fuse.sort ascending %k : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    %d = arith.subf %a, %b : f32
    // expected-error @+1 {{'fuse.yield' op operand #0 has type 'f32', but the comparator of fuse.sort needs 'i1'}}
    fuse.yield %d : f32
  }
  return
}

// -----

func.func @sort_bad_order(%k: tensor<?xf32>) {
  // expected-error @+1 {{expected the sort order `ascending` or `descending`, got `upward`}}
  %0 = fuse.sort upward %k : tensor<?xf32> -> tensor<?xf32>
  return
}

// -----

// searchsorted_c1
func.func @searchsorted_rank2(%a: tensor<?x?xf32>, %v: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.searchsorted' op requires a rank-1 sorted tensor, but it has rank 2}}
  %0 = fuse.searchsorted left %a, %v : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xi64>
  return
}

// -----

// searchsorted_c2
func.func @searchsorted_types(%a: tensor<?xf32>, %v: tensor<?xf64>) {
  // expected-error @+1 {{'fuse.searchsorted' op values of element type 'f64' differ from the sorted tensor's 'f32'}}
  %0 = fuse.searchsorted left %a, %v : tensor<?xf32>, tensor<?xf64> -> tensor<?xi64>
  return
}

// -----

// searchsorted_c3
func.func @searchsorted_shape(%a: tensor<?xf32>, %v: tensor<4xf32>) {
  // expected-error @+1 {{'fuse.searchsorted' op result shape [5] differs from the values' shape [4]}}
  %0 = fuse.searchsorted right %a, %v : tensor<?xf32>, tensor<4xf32> -> tensor<5xi64>
  return
}

// -----

// searchsorted_c4
func.func @searchsorted_unsigned_floats(%a: tensor<?xf32>, %v: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.searchsorted' op `unsigned` needs integer elements, not 'f32'}}
  %0 = fuse.searchsorted left unsigned %a, %v : tensor<?xf32>, tensor<?xf32> -> tensor<?xi64>
  return
}

// -----

// The result is i64 (ODS).
func.func @searchsorted_i32_result(%a: tensor<?xf32>, %v: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.searchsorted' op result #0 must be ranked tensor of 64-bit signless integer values}}
  %0 = fuse.searchsorted left %a, %v : tensor<?xf32>, tensor<?xf32> -> tensor<?xi32>
  return
}

// -----

func.func @searchsorted_bad_side(%a: tensor<?xf32>, %v: tensor<?xf32>) {
  // expected-error @+1 {{expected the search side `left` or `right`, got `middle`}}
  %0 = fuse.searchsorted middle %a, %v : tensor<?xf32>, tensor<?xf32> -> tensor<?xi64>
  return
}

// -----

// histogram_c1
func.func @histogram_rank0(%x: tensor<i64>) {
  // expected-error @+1 {{'fuse.histogram' op requires bin indices of rank 1 or more, but they have rank 0}}
  %0 = fuse.histogram %x : tensor<i64> -> tensor<4xi64>
  return
}

// -----

// histogram_c1
func.func @histogram_float_bins(%x: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.histogram' op requires integer bin indices of 8 to 64 bits, not 'f32'}}
  %0 = fuse.histogram %x : tensor<?xf32> -> tensor<4xi64>
  return
}

// -----

// histogram_c1
func.func @histogram_i1_bins(%x: tensor<?xi1>) {
  // expected-error @+1 {{'fuse.histogram' op requires integer bin indices of 8 to 64 bits, not 'i1'}}
  %0 = fuse.histogram %x : tensor<?xi1> -> tensor<2xi64>
  return
}

// -----

// histogram_c2
func.func @histogram_rank2_counts(%x: tensor<?xi64>) {
  // expected-error @+1 {{'fuse.histogram' op requires rank-1 counts, but the result has rank 2}}
  %0 = fuse.histogram %x : tensor<?xi64> -> tensor<4x4xi64>
  return
}

// -----

// histogram_c2
func.func @histogram_float_counts(%x: tensor<?xi64>) {
  // expected-error @+1 {{'fuse.histogram' op counts must be i32 or i64, not 'f32'}}
  %0 = fuse.histogram %x : tensor<?xi64> -> tensor<4xf32>
  return
}

// -----

// histogram_c3
func.func @histogram_missing_bins(%x: tensor<?xi64>) {
  // expected-error @+1 {{'fuse.histogram' op a result of dynamic size needs a `bins` operand}}
  %0 = fuse.histogram %x : tensor<?xi64> -> tensor<?xi64>
  return
}

// -----

// histogram_c3
func.func @histogram_extra_bins(%x: tensor<?xi64>, %n: index) {
  // expected-error @+1 {{'fuse.histogram' op a `bins` operand is given, but the result has the static size 4}}
  %0 = fuse.histogram %x bins(%n) : tensor<?xi64> -> tensor<4xi64>
  return
}

// -----

// segmented_reduce_c1
func.func @segmented_rank2(%x: tensor<?x4xf32>, %s: tensor<?xi64>, %e: tensor<?xi64>) {
  // expected-error @+1 {{'fuse.segmented_reduce' op requires rank-1 inputs, but they have rank 2}}
  %0 = fuse.segmented_reduce add %x segments(%s, %e : tensor<?xi64>, tensor<?xi64>) : tensor<?x4xf32> -> tensor<?xf32>
  return
}

// -----

// segmented_reduce_c1
func.func @segmented_lengths(%x: tensor<4xf32>, %y: tensor<5xf32>, %s: tensor<?xi64>, %e: tensor<?xi64>) {
  // expected-error @+1 {{'fuse.segmented_reduce' op requires all inputs to have the same shape, but #0 is [4] and #1 is [5]}}
  %0:2 = fuse.segmented_reduce (add, add) %x, %y segments(%s, %e : tensor<?xi64>, tensor<?xi64>) : tensor<4xf32>, tensor<5xf32> -> tensor<?xf32>, tensor<?xf32>
  return
}

// -----

// segmented_reduce_c2
func.func @segmented_offset_rank(%x: tensor<?xf32>, %s: tensor<?x2xi64>, %e: tensor<?xi64>) {
  // expected-error @+1 {{'fuse.segmented_reduce' op requires rank-1 starts and ends, but they have ranks 2 and 1}}
  %0 = fuse.segmented_reduce add %x segments(%s, %e : tensor<?x2xi64>, tensor<?xi64>) : tensor<?xf32> -> tensor<?xf32>
  return
}

// -----

// segmented_reduce_c2
func.func @segmented_offset_types(%x: tensor<?xf32>, %s: tensor<?xi32>, %e: tensor<?xi64>) {
  // expected-error @+1 {{'fuse.segmented_reduce' op requires starts and ends of one element type, i32 or i64, but they have 'i32' and 'i64'}}
  %0 = fuse.segmented_reduce add %x segments(%s, %e : tensor<?xi32>, tensor<?xi64>) : tensor<?xf32> -> tensor<?xf32>
  return
}

// -----

// segmented_reduce_c2
func.func @segmented_offset_float(%x: tensor<?xf32>, %s: tensor<?xf32>, %e: tensor<?xf32>) {
  // expected-error @+1 {{'fuse.segmented_reduce' op requires starts and ends of one element type, i32 or i64, but they have 'f32' and 'f32'}}
  %0 = fuse.segmented_reduce add %x segments(%s, %e : tensor<?xf32>, tensor<?xf32>) : tensor<?xf32> -> tensor<?xf32>
  return
}

// -----

// segmented_reduce_c2
func.func @segmented_offset_lengths(%x: tensor<?xf32>, %s: tensor<3xi64>, %e: tensor<4xi64>) {
  // expected-error @+1 {{'fuse.segmented_reduce' op requires starts and ends of one length, but they have shapes [3] and [4]}}
  %0 = fuse.segmented_reduce add %x segments(%s, %e : tensor<3xi64>, tensor<4xi64>) : tensor<?xf32> -> tensor<3xf32>
  return
}

// -----

// segmented_reduce_c3
func.func @segmented_results(%x: tensor<?xf32>, %s: tensor<?xi64>, %e: tensor<?xi64>) {
  // expected-error @+1 {{'fuse.segmented_reduce' op has 2 results for 1 inputs}}
  %0:2 = fuse.segmented_reduce add %x segments(%s, %e : tensor<?xi64>, tensor<?xi64>) : tensor<?xf32> -> tensor<?xf32>, tensor<?xf32>
  return
}

// -----

// segmented_reduce_c3
func.func @segmented_result_length(%x: tensor<?xf32>, %s: tensor<3xi64>, %e: tensor<3xi64>) {
  // expected-error @+1 {{'fuse.segmented_reduce' op result #0 has shape [4], but there are [3] segments}}
  %0 = fuse.segmented_reduce add %x segments(%s, %e : tensor<3xi64>, tensor<3xi64>) : tensor<?xf32> -> tensor<4xf32>
  return
}

// -----

// segmented_reduce_c3
func.func @segmented_result_type(%x: tensor<?xf32>, %s: tensor<?xi64>, %e: tensor<?xi64>) {
  // expected-error @+1 {{'fuse.segmented_reduce' op result #0 has element type 'f64', but input #0 has 'f32'}}
  %0 = fuse.segmented_reduce add %x segments(%s, %e : tensor<?xi64>, tensor<?xi64>) : tensor<?xf32> -> tensor<?xf64>
  return
}

// -----

// segmented_reduce_c4
func.func @segmented_kind(%x: tensor<?xf32>, %s: tensor<?xi64>, %e: tensor<?xi64>) {
  // expected-error @+1 {{'fuse.segmented_reduce' op combiner kind 'xor' is not defined on element type 'f32' (input #0)}}
  %0 = fuse.segmented_reduce xor %x segments(%s, %e : tensor<?xi64>, tensor<?xi64>) : tensor<?xf32> -> tensor<?xf32>
  return
}

// -----

// segmented_reduce_c4
func.func @segmented_region_no_init(%x: tensor<?xf32>, %s: tensor<?xi64>, %e: tensor<?xi64>) {
  // expected-error @+1 {{'fuse.segmented_reduce' op with a combiner region needs one init value per input (1), but has 0}}
  %0 = fuse.segmented_reduce %x segments(%s, %e : tensor<?xi64>, tensor<?xi64>)
      : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    fuse.yield %b : f32
  }
  return
}

// -----

// segmented_reduce_c4
func.func @segmented_region_args(%x: tensor<?xf32>, %s: tensor<?xi64>, %e: tensor<?xi64>) {
  %c = arith.constant 0.0 : f32
  // expected-error @+1 {{'fuse.segmented_reduce' op expects the combiner block to take 2 arguments, but it takes 1}}
  %0 = fuse.segmented_reduce %x init(%c : f32) segments(%s, %e : tensor<?xi64>, tensor<?xi64>)
      : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    fuse.yield %a : f32
  }
  return
}

// -----

func.func @segmented_one_offset(%x: tensor<?xf32>, %s: tensor<?xi64>) {
  // expected-error @+1 {{expected `segments(%starts, %ends : type, type)`}}
  %0 = fuse.segmented_reduce add %x segments(%s : tensor<?xi64>) : tensor<?xf32> -> tensor<?xf32>
  return
}
