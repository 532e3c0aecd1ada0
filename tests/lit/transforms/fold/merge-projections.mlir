// RUN: pt2c-opt %s -split-input-file -pt2c-fold-weights | FileCheck %s

// On the GPU (pt2c.fused_ops) attention's q, k and v Linears of one activation become
// one product with the joined weight [Wq; Wk; Wv] and bias [bq; bk; bv], both folded
// into derived weights; each projection is a part of the product reshaped to
// [len, 3, N] (what prim.attention `parts` later reads in place). The six weights are
// left unread and removed.
// CHECK-LABEL: func.func @qkv(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x4xf32> {pt2c.input = "x"}, %[[W:[^:]*]]: tensor<6x4xf32> {pt2c.value = dense_resource<[[RW:.*]]> : tensor<6x4xf32>, pt2c.weight = "#fold0"}, %[[B:[^:]*]]: tensor<6xf32> {pt2c.value = dense_resource<[[RB:.*]]> : tensor<6xf32>, pt2c.weight = "#fold1"})
// CHECK-NEXT: %[[P:.*]] = prim.dot_general %[[X]], %[[W]], batch = [] x [], contract = [1] x [1] : (tensor<2x4xf32>, tensor<6x4xf32>) -> tensor<2x6xf32>
// CHECK-NEXT: %[[BB:.*]] = prim.broadcast_in_dim %[[B]], dims = [1] : tensor<6xf32> -> tensor<2x6xf32>
// CHECK-NEXT: %[[Y:.*]] = prim.add %[[BB]], %[[P]] : tensor<2x6xf32>
// CHECK-NEXT: %[[PK:.*]] = prim.reshape %[[Y]] : tensor<2x6xf32> -> tensor<2x3x2xf32>
// CHECK-NEXT: prim.slice %[[PK]], start = [0, 0, 0], limit = [2, 1, 2]
// CHECK: prim.slice %[[PK]], start = [0, 1, 0], limit = [2, 2, 2]
// CHECK: prim.slice %[[PK]], start = [0, 2, 0], limit = [2, 3, 2]
// CHECK-NOT: prim.dot_general
// CHECK: prim.attention
// Rows of Wq (1, 2), then Wk (3, 4), then Wv (5, 6), each a row of 4 equal values; the
// biases 7, 8 | 9, 10 | 11, 12.
// CHECK: [[RW]]: "0x400000000000803F0000803F0000803F0000803F0000004000000040000000400000004000004040000040400000404000004040000080400000804000008040000080400000A0400000A0400000A0400000A0400000C0400000C0400000C0400000C040"
// CHECK: [[RB]]: "0x400000000000E0400000004100001041000020410000304100004041"
module attributes {pt2c.fused_ops} {
func.func @qkv(%x: tensor<2x4xf32> {pt2c.input = "x"},
               %wq: tensor<2x4xf32> {pt2c.weight = "q.weight", pt2c.value = dense<[[1.0, 1.0, 1.0, 1.0], [2.0, 2.0, 2.0, 2.0]]> : tensor<2x4xf32>},
               %bq: tensor<2xf32> {pt2c.weight = "q.bias", pt2c.value = dense<[7.0, 8.0]> : tensor<2xf32>},
               %wk: tensor<2x4xf32> {pt2c.weight = "k.weight", pt2c.value = dense<[[3.0, 3.0, 3.0, 3.0], [4.0, 4.0, 4.0, 4.0]]> : tensor<2x4xf32>},
               %bk: tensor<2xf32> {pt2c.weight = "k.bias", pt2c.value = dense<[9.0, 10.0]> : tensor<2xf32>},
               %wv: tensor<2x4xf32> {pt2c.weight = "v.weight", pt2c.value = dense<[[5.0, 5.0, 5.0, 5.0], [6.0, 6.0, 6.0, 6.0]]> : tensor<2x4xf32>},
               %bv: tensor<2xf32> {pt2c.weight = "v.bias", pt2c.value = dense<[11.0, 12.0]> : tensor<2xf32>}) -> tensor<1x2x1x2xf32> {
  %q0 = prim.dot_general %x, %wq, batch = [] x [], contract = [1] x [1] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x2xf32>
  %bq1 = prim.broadcast_in_dim %bq, dims = [1] : tensor<2xf32> -> tensor<2x2xf32>
  %q1 = prim.add %bq1, %q0 : tensor<2x2xf32>
  %q = prim.reshape %q1 : tensor<2x2xf32> -> tensor<1x2x1x2xf32>
  %k0 = prim.dot_general %x, %wk, batch = [] x [], contract = [1] x [1] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x2xf32>
  %bk1 = prim.broadcast_in_dim %bk, dims = [1] : tensor<2xf32> -> tensor<2x2xf32>
  %k1 = prim.add %bk1, %k0 : tensor<2x2xf32>
  %k = prim.reshape %k1 : tensor<2x2xf32> -> tensor<1x2x1x2xf32>
  %v0 = prim.dot_general %x, %wv, batch = [] x [], contract = [1] x [1] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x2xf32>
  %bv1 = prim.broadcast_in_dim %bv, dims = [1] : tensor<2xf32> -> tensor<2x2xf32>
  %v1 = prim.add %bv1, %v0 : tensor<2x2xf32>
  %v = prim.reshape %v1 : tensor<2x2xf32> -> tensor<1x2x1x2xf32>
  %o = prim.attention %q, %k, %v, scale = 1.0, causal = false, heads_inner = [true, true, true, true] : tensor<1x2x1x2xf32>, tensor<1x2x1x2xf32>, tensor<1x2x1x2xf32> -> tensor<1x2x1x2xf32>
  return %o : tensor<1x2x1x2xf32>
}
}

// -----

// Left apart: a projection that something other than attention or an elementwise
// kernel reads (here the model returns k's product itself), projections of different
// sizes that attention reads (q and k of grouped-query attention without rotary
// embeddings), and any module outside the GPU pipeline.
// CHECK-LABEL: func.func @read_elsewhere(
// CHECK-COUNT-2: prim.dot_general
// CHECK-NOT: prim.slice
// CHECK: return
module attributes {pt2c.fused_ops} {
func.func @read_elsewhere(%x: tensor<2x4xf32> {pt2c.input = "x"},
                          %wk: tensor<2x4xf32> {pt2c.weight = "k", pt2c.value = dense<1.0> : tensor<2x4xf32>},
                          %wv: tensor<2x4xf32> {pt2c.weight = "v", pt2c.value = dense<2.0> : tensor<2x4xf32>}) -> (tensor<1x2x1x2xf32>, tensor<2x2xf32>) {
  %k0 = prim.dot_general %x, %wk, batch = [] x [], contract = [1] x [1] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x2xf32>
  %kr = prim.neg %k0 : tensor<2x2xf32>
  %k = prim.reshape %kr : tensor<2x2xf32> -> tensor<1x2x1x2xf32>
  %v0 = prim.dot_general %x, %wv, batch = [] x [], contract = [1] x [1] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x2xf32>
  %v = prim.reshape %v0 : tensor<2x2xf32> -> tensor<1x2x1x2xf32>
  %o = prim.attention %k, %k, %v, scale = 1.0, causal = false, heads_inner = [true, true, true, true] : tensor<1x2x1x2xf32>, tensor<1x2x1x2xf32>, tensor<1x2x1x2xf32> -> tensor<1x2x1x2xf32>
  return %o, %k0 : tensor<1x2x1x2xf32>, tensor<2x2xf32>
}
}

// -----

// CHECK-LABEL: func.func @different_sizes(
// CHECK-COUNT-2: prim.dot_general
// CHECK-NOT: prim.slice
// CHECK: return
module attributes {pt2c.fused_ops} {
func.func @different_sizes(%x: tensor<2x4xf32> {pt2c.input = "x"},
                           %wq: tensor<4x4xf32> {pt2c.weight = "q", pt2c.value = dense<1.0> : tensor<4x4xf32>},
                           %wk: tensor<2x4xf32> {pt2c.weight = "k", pt2c.value = dense<2.0> : tensor<2x4xf32>}) -> tensor<1x2x2x2xf32> {
  %q0 = prim.dot_general %x, %wq, batch = [] x [], contract = [1] x [1] : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %q = prim.reshape %q0 : tensor<2x4xf32> -> tensor<1x2x2x2xf32>
  %k0 = prim.dot_general %x, %wk, batch = [] x [], contract = [1] x [1] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x2xf32>
  %k = prim.reshape %k0 : tensor<2x2xf32> -> tensor<1x2x1x2xf32>
  %o = prim.attention %q, %k, %k, scale = 1.0, causal = false, heads_inner = [true, true, true, true] : tensor<1x2x2x2xf32>, tensor<1x2x1x2xf32>, tensor<1x2x1x2xf32> -> tensor<1x2x2x2xf32>
  return %o : tensor<1x2x2x2xf32>
}
}

// -----

// CHECK-LABEL: func.func @cpu(
// CHECK-COUNT-2: prim.dot_general
// CHECK-NOT: prim.slice
func.func @cpu(%x: tensor<2x4xf32> {pt2c.input = "x"},
               %wk: tensor<2x4xf32> {pt2c.weight = "k", pt2c.value = dense<1.0> : tensor<2x4xf32>},
               %wv: tensor<2x4xf32> {pt2c.weight = "v", pt2c.value = dense<2.0> : tensor<2x4xf32>}) -> tensor<1x2x1x2xf32> {
  %k0 = prim.dot_general %x, %wk, batch = [] x [], contract = [1] x [1] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x2xf32>
  %k = prim.reshape %k0 : tensor<2x2xf32> -> tensor<1x2x1x2xf32>
  %v0 = prim.dot_general %x, %wv, batch = [] x [], contract = [1] x [1] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x2xf32>
  %v = prim.reshape %v0 : tensor<2x2xf32> -> tensor<1x2x1x2xf32>
  %o = prim.attention %k, %k, %v, scale = 1.0, causal = false, heads_inner = [true, true, true, true] : tensor<1x2x1x2xf32>, tensor<1x2x1x2xf32>, tensor<1x2x1x2xf32> -> tensor<1x2x1x2xf32>
  return %o : tensor<1x2x1x2xf32>
}

// -----

// Projections that elementwise kernels read in place merge too, whatever their sizes: a
// gated MLP's gate and up (SiLU(gate) * up), and grouped-query attention's q and k
// before rotary embeddings (4 and 2 columns here). Each result's reshape becomes a
// slice of the joined product viewed as [lead..., heads, inner...]; a slice of it
// (rotate_half) reads the product directly.
// CHECK-LABEL: func.func @gate_up(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x4xf32> {pt2c.input = "x"}, %[[W:[^:]*]]: tensor<6x4xf32> {pt2c.value
// CHECK-NEXT: %[[P:.*]] = prim.dot_general %[[X]], %[[W]], {{.*}} -> tensor<2x6xf32>
// CHECK-NEXT: %[[V:.*]] = prim.reshape %[[P]] : tensor<2x6xf32> -> tensor<1x2x6xf32>
// CHECK-NEXT: %[[G:.*]] = prim.slice %[[V]], start = [0, 0, 0], limit = [1, 2, 4]
// CHECK-NEXT: %[[U:.*]] = prim.slice %[[V]], start = [0, 0, 4], limit = [1, 2, 6]
// CHECK-NOT: prim.dot_general
// CHECK: return
module attributes {pt2c.fused_ops} {
func.func @gate_up(%x: tensor<2x4xf32> {pt2c.input = "x"},
                   %wg: tensor<4x4xf32> {pt2c.weight = "gate", pt2c.value = dense<1.0> : tensor<4x4xf32>},
                   %wu: tensor<2x4xf32> {pt2c.weight = "up", pt2c.value = dense<2.0> : tensor<2x4xf32>}) -> (tensor<1x2x4xf32>, tensor<1x2x2xf32>) {
  %g0 = prim.dot_general %x, %wg, batch = [] x [], contract = [1] x [1] : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %g = prim.reshape %g0 : tensor<2x4xf32> -> tensor<1x2x4xf32>
  %s = prim.sigmoid %g : tensor<1x2x4xf32>
  %u0 = prim.dot_general %x, %wu, batch = [] x [], contract = [1] x [1] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x2xf32>
  %u = prim.reshape %u0 : tensor<2x2xf32> -> tensor<1x2x2xf32>
  %n = prim.neg %u : tensor<1x2x2xf32>
  return %s, %n : tensor<1x2x4xf32>, tensor<1x2x2xf32>
}
}

// -----

// CHECK-LABEL: func.func @rotary_q_k(
// CHECK: %[[P:.*]] = prim.dot_general {{.*}} -> tensor<2x6xf32>
// CHECK-NEXT: %[[V:.*]] = prim.reshape %[[P]] : tensor<2x6xf32> -> tensor<1x2x3x2xf32>
// CHECK-NEXT: %[[Q:.*]] = prim.slice %[[V]], start = [0, 0, 0, 0], limit = [1, 2, 2, 2]
// CHECK-NEXT: %[[K:.*]] = prim.slice %[[V]], start = [0, 0, 2, 0], limit = [1, 2, 3, 2]
// CHECK-NOT: prim.dot_general
// CHECK: prim.attention
module attributes {pt2c.fused_ops} {
func.func @rotary_q_k(%x: tensor<2x4xf32> {pt2c.input = "x"},
                      %wq: tensor<4x4xf32> {pt2c.weight = "q", pt2c.value = dense<1.0> : tensor<4x4xf32>},
                      %wk: tensor<2x4xf32> {pt2c.weight = "k", pt2c.value = dense<2.0> : tensor<2x4xf32>},
                      %cq: tensor<1x2x2x2xf32> {pt2c.input = "cq"}, %ck: tensor<1x2x1x2xf32> {pt2c.input = "ck"}) -> tensor<1x2x2x2xf32> {
  %q0 = prim.dot_general %x, %wq, batch = [] x [], contract = [1] x [1] : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %q = prim.reshape %q0 : tensor<2x4xf32> -> tensor<1x2x2x2xf32>
  %qr = prim.mul %q, %cq : tensor<1x2x2x2xf32>
  %k0 = prim.dot_general %x, %wk, batch = [] x [], contract = [1] x [1] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x2xf32>
  %k = prim.reshape %k0 : tensor<2x2xf32> -> tensor<1x2x1x2xf32>
  %kh = prim.slice %k, start = [0, 0, 0, 1], limit = [1, 2, 1, 2], strides = [1, 1, 1, 1] : tensor<1x2x1x2xf32> -> tensor<1x2x1x1xf32>
  %kn = prim.neg %kh : tensor<1x2x1x1xf32>
  %kc = prim.concatenate %kn, %kn dim = 3 : (tensor<1x2x1x1xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x1x2xf32>
  %kr = prim.mul %k, %kc : tensor<1x2x1x2xf32>
  %o = prim.attention %qr, %kr, %kr, scale = 1.0, causal = false, heads_inner = [true, true, true, true] : tensor<1x2x2x2xf32>, tensor<1x2x1x2xf32>, tensor<1x2x1x2xf32> -> tensor<1x2x2x2xf32>
  return %o : tensor<1x2x2x2xf32>
}
}

// -----

// With biases (of different sizes): one joined bias, added before the slices.
// CHECK-LABEL: func.func @gate_up_bias(
// CHECK: %[[P:.*]] = prim.dot_general {{.*}} -> tensor<2x6xf32>
// CHECK-NEXT: %[[B:.*]] = prim.broadcast_in_dim %{{.*}}, dims = [1] : tensor<6xf32> -> tensor<2x6xf32>
// CHECK-NEXT: %[[Y:.*]] = prim.add %[[B]], %[[P]] : tensor<2x6xf32>
// CHECK-NEXT: prim.slice %[[Y]], start = [0, 0], limit = [2, 4]
// CHECK-NEXT: prim.slice %[[Y]], start = [0, 4], limit = [2, 6]
// CHECK-NOT: prim.dot_general
module attributes {pt2c.fused_ops} {
func.func @gate_up_bias(%x: tensor<2x4xf32> {pt2c.input = "x"},
                        %wg: tensor<4x4xf32> {pt2c.weight = "gate.weight", pt2c.value = dense<1.0> : tensor<4x4xf32>},
                        %bg: tensor<4xf32> {pt2c.weight = "gate.bias", pt2c.value = dense<3.0> : tensor<4xf32>},
                        %wu: tensor<2x4xf32> {pt2c.weight = "up.weight", pt2c.value = dense<2.0> : tensor<2x4xf32>},
                        %bu: tensor<2xf32> {pt2c.weight = "up.bias", pt2c.value = dense<4.0> : tensor<2xf32>}) -> (tensor<2x4xf32>, tensor<2x2xf32>) {
  %g0 = prim.dot_general %x, %wg, batch = [] x [], contract = [1] x [1] : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %gb = prim.broadcast_in_dim %bg, dims = [1] : tensor<4xf32> -> tensor<2x4xf32>
  %g = prim.add %gb, %g0 : tensor<2x4xf32>
  %s = prim.sigmoid %g : tensor<2x4xf32>
  %u0 = prim.dot_general %x, %wu, batch = [] x [], contract = [1] x [1] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x2xf32>
  %ub = prim.broadcast_in_dim %bu, dims = [1] : tensor<2xf32> -> tensor<2x2xf32>
  %u = prim.add %ub, %u0 : tensor<2x2xf32>
  %n = prim.neg %u : tensor<2x2xf32>
  return %s, %n : tensor<2x4xf32>, tensor<2x2xf32>
}
}
