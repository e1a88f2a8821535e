// RUN: fuse-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// #fuse.size_check and a function's fuse.size_checks: the size checks a
// rewrite (fuse-collapse-rows) records so that the entry still checks
// what the program as written implied. They round-trip, and the verifiers
// reject checks of the wrong form and sizes that name no argument of the
// right kind.

// CHECK: func.func @f(%{{.+}}: tensor<?x?x?xf32>, %{{.+}}: tensor<?x?x?xf32>, %{{.+}}: index) attributes {fuse.size_checks = [#fuse.size_check<kind = equal, lhs = <source = arg_dim, value = 1>, rhs = <source = arg_dim>>, #fuse.size_check<kind = equal, lhs = <source = arg_dim, value = 1, dim = 2>, rhs = <source = static, value = 8>>, #fuse.size_check<kind = non_negative, lhs = <source = arg, value = 2>>]}
func.func @f(%x: tensor<?x?x?xf32>, %y: tensor<?x?x?xf32>, %n: index) attributes {fuse.size_checks = [
    #fuse.size_check<kind = equal, lhs = #fuse.size<source = arg_dim, value = 1, dim = 0>, rhs = #fuse.size<source = arg_dim, value = 0, dim = 0>>,
    #fuse.size_check<kind = equal, lhs = #fuse.size<source = arg_dim, value = 1, dim = 2>, rhs = #fuse.size<source = static, value = 8>>,
    #fuse.size_check<kind = non_negative, lhs = #fuse.size<source = arg, value = 2>>]} {
  return
}

// -----

// expected-error @+1 {{an equal check takes an rhs}}
func.func @no_rhs(%x: tensor<?xf32>) attributes {fuse.size_checks = [#fuse.size_check<kind = equal, lhs = #fuse.size<source = arg_dim>>]} {
  return
}

// -----

// expected-error @+1 {{a non_negative check takes no rhs}}
func.func @rhs(%n: index) attributes {fuse.size_checks = [#fuse.size_check<kind = non_negative, lhs = #fuse.size<source = arg>, rhs = #fuse.size<source = static, value = 1>>]} {
  return
}

// -----

// expected-error @+1 {{a size check's lhs names an argument (arg_dim or arg), not a static size}}
func.func @static_lhs(%x: tensor<?xf32>) attributes {fuse.size_checks = [#fuse.size_check<kind = equal, lhs = #fuse.size<source = static, value = 3>, rhs = #fuse.size<source = arg_dim>>]} {
  return
}

// -----

// expected-error @+1 {{an equal check's rhs is an arg_dim, arg or static size, not a kept size}}
func.func @kept_rhs(%x: tensor<?xf32>) attributes {fuse.size_checks = [#fuse.size_check<kind = equal, lhs = #fuse.size<source = arg_dim>, rhs = #fuse.size<source = kept>>]} {
  return
}

// -----

// expected-error @+1 {{'fuse.size_checks': a check names argument 2 of a function with 2}}
func.func @past_the_end(%x: tensor<?xf32>, %y: tensor<?xf32>) attributes {fuse.size_checks = [#fuse.size_check<kind = equal, lhs = #fuse.size<source = arg_dim, value = 2>, rhs = #fuse.size<source = arg_dim>>]} {
  return
}

// -----

// expected-error @+1 {{'fuse.size_checks': a check names dimension 1 of argument 1, which is not a ranked tensor of that rank}}
func.func @past_the_rank(%x: tensor<?xf32>, %y: tensor<?xf32>) attributes {fuse.size_checks = [#fuse.size_check<kind = equal, lhs = #fuse.size<source = arg_dim, value = 1, dim = 1>, rhs = #fuse.size<source = arg_dim>>]} {
  return
}

// -----

// expected-error @+1 {{'fuse.size_checks': a check names argument 0 as an index scalar, which it is not}}
func.func @not_a_scalar(%x: tensor<?xf32>) attributes {fuse.size_checks = [#fuse.size_check<kind = non_negative, lhs = #fuse.size<source = arg>>]} {
  return
}

// -----

// expected-error @+1 {{'fuse.size_checks' must be a list of #fuse.size_check on a function}}
module attributes {fuse.size_checks = []} {
}

// -----

// expected-error @+1 {{'fuse.size_checks' must be a list of #fuse.size_check on a function}}
func.func @not_a_list(%x: tensor<?xf32>) attributes {fuse.size_checks = 3} {
  return
}
