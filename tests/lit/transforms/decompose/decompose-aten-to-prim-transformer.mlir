// Decompositions of the ops transformers need: softmax, layer norm, attention,
// indexing and views, masks, comparisons and factories.
// RUN: pt2c-opt %s --split-input-file --pt2c-decompose-aten-to-prim --canonicalize | FileCheck %s

// softmax subtracts the row max before exp and divides by the row sum.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x5xf32>)
// CHECK-DAG: %[[ZERO:.*]] = prim.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[NEGINF:.*]] = prim.constant dense<0xFF800000> : tensor<f32>
// CHECK: %[[MAX:.*]] = prim.reduce MAX, %[[X]], %[[NEGINF]], dims = [1] : tensor<2x5xf32>, tensor<f32> -> tensor<2xf32>
// CHECK: %[[MAXB:.*]] = prim.broadcast_in_dim %[[MAX]], dims = [0] : tensor<2xf32> -> tensor<2x5xf32>
// CHECK: %[[SHIFTED:.*]] = prim.sub %[[X]], %[[MAXB]]
// CHECK: %[[E:.*]] = prim.exp %[[SHIFTED]]
// CHECK: %[[SUM:.*]] = prim.reduce SUM, %[[E]], %[[ZERO]], dims = [1]
// CHECK: %[[SUMB:.*]] = prim.broadcast_in_dim %[[SUM]], dims = [0]
// CHECK: %[[Y:.*]] = prim.div %[[E]], %[[SUMB]]
// CHECK: return %[[Y]]
func.func @softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = "aten._softmax"(%x) {dim = -1 : i64, half_to_float = false} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// log_softmax = (x - max) - log(sum(exp(x - max))); here over dim 0.
// CHECK-LABEL: func.func @log_softmax
// CHECK: %[[MAX:.*]] = prim.reduce MAX, %{{.*}}, %{{.*}}, dims = [0] : tensor<2x5xf32>, tensor<f32> -> tensor<5xf32>
// CHECK: %[[MAXB:.*]] = prim.broadcast_in_dim %[[MAX]], dims = [1]
// CHECK: %[[SHIFTED:.*]] = prim.sub %{{.*}}, %[[MAXB]]
// CHECK: %[[E:.*]] = prim.exp %[[SHIFTED]]
// CHECK: %[[SUM:.*]] = prim.reduce SUM, %[[E]], %{{.*}}, dims = [0]
// CHECK: %[[SUMB:.*]] = prim.broadcast_in_dim %[[SUM]], dims = [1]
// CHECK: %[[LOG:.*]] = prim.log %[[SUMB]]
// CHECK: prim.sub %[[SHIFTED]], %[[LOG]]
func.func @log_softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = "aten._log_softmax"(%x) {dim = 0 : i64, half_to_float = false} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// softmax of f16 accumulates in f32 and rounds once at the end.
// CHECK-LABEL: func.func @softmax_half
// CHECK: prim.convert %{{.*}} : tensor<4xf16> -> tensor<4xf32>
// CHECK: prim.reduce SUM, %{{.*}}, %{{.*}}, dims = [0] : tensor<4xf32>, tensor<f32> -> tensor<f32>
// CHECK: prim.convert %{{.*}} : tensor<4xf32> -> tensor<4xf16>
func.func @softmax_half(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = "aten.softmax.int"(%x) {dim = 0 : i64} : (tensor<4xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// Layer norm: mean, variance of the centred values (two passes), rstd; mean and
// rstd come back with the normalized dims kept as size 1.
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3x4xf32>, %[[W:[a-z0-9]+]]: tensor<4xf32>, %[[B:[a-z0-9]+]]: tensor<4xf32>)
// CHECK-DAG: %[[EPS:.*]] = prim.constant dense<9.99999974E-6> : tensor<2x3xf32>
// CHECK-DAG: %[[N:.*]] = prim.constant dense<4.000000e+00> : tensor<2x3xf32>
// CHECK: %[[SUM:.*]] = prim.reduce SUM, %[[X]], %{{.*}}, dims = [2]
// CHECK: %[[MEAN:.*]] = prim.div %[[SUM]], %[[N]]
// CHECK: %[[MEANB:.*]] = prim.broadcast_in_dim %[[MEAN]], dims = [0, 1]
// CHECK: %[[C:.*]] = prim.sub %[[X]], %[[MEANB]]
// CHECK: %[[SQ:.*]] = prim.mul %[[C]], %[[C]]
// CHECK: %[[SQSUM:.*]] = prim.reduce SUM, %[[SQ]], %{{.*}}, dims = [2]
// CHECK: %[[VAR:.*]] = prim.div %[[SQSUM]], %[[N]]
// CHECK: %[[VE:.*]] = prim.add %[[VAR]], %[[EPS]]
// CHECK: %[[RSTD:.*]] = prim.rsqrt %[[VE]]
// CHECK: %[[RSTDB:.*]] = prim.broadcast_in_dim %[[RSTD]], dims = [0, 1]
// CHECK: %[[NORM:.*]] = prim.mul %[[C]], %[[RSTDB]]
// CHECK: %[[WB:.*]] = prim.broadcast_in_dim %[[W]], dims = [2]
// CHECK: %[[SCALED:.*]] = prim.mul %[[NORM]], %[[WB]]
// CHECK: %[[BB:.*]] = prim.broadcast_in_dim %[[B]], dims = [2]
// CHECK: %[[OUT:.*]] = prim.add %[[SCALED]], %[[BB]]
// CHECK: %[[MEAN1:.*]] = prim.reshape %[[MEAN]] : tensor<2x3xf32> -> tensor<2x3x1xf32>
// CHECK: %[[RSTD1:.*]] = prim.reshape %[[RSTD]] : tensor<2x3xf32> -> tensor<2x3x1xf32>
// CHECK: return %[[OUT]], %[[MEAN1]], %[[RSTD1]]
func.func @layer_norm(%x: tensor<2x3x4xf32>, %w: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x1xf32>, tensor<2x3x1xf32>) {
  %0:3 = "aten.native_layer_norm"(%x, %w, %b) {normalized_shape = array<i64: 4>, eps = 1.0e-5 : f64, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x1xf32>, tensor<2x3x1xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x3x4xf32>, tensor<2x3x1xf32>, tensor<2x3x1xf32>
}

// -----

// Causal attention: scores scaled by 1/sqrt(4), keys after the query masked with
// -inf by comparing two iotas (top-left aligned: key j <= query i), softmax with
// the row max of fully masked rows taken as 0, and the division by the row sum
// after the second product (0 for rows with nothing to attend to).
// CHECK-LABEL: func.func @sdpa_causal
// CHECK-SAME: (%[[Q:[a-z0-9]+]]: tensor<1x2x3x4xf32>, %[[K:[a-z0-9]+]]: tensor<1x2x5x4xf32>, %[[V:[a-z0-9]+]]: tensor<1x2x5x6xf32>)
// CHECK-DAG: %[[NEGINF:.*]] = prim.constant dense<0xFF800000> : tensor<1x2x3x5xf32>
// CHECK-DAG: %[[SCALE:.*]] = prim.constant dense<5.000000e-01> : tensor<1x2x3x5xf32>
// CHECK: %[[QK:.*]] = prim.dot_general %[[Q]], %[[K]], batch = [0, 1] x [0, 1], contract = [3] x [3]
// CHECK: %[[S:.*]] = prim.mul %[[QK]], %[[SCALE]]
// CHECK: %[[ROW:.*]] = prim.iota 0 : tensor<3x5xi64>
// CHECK: %[[COL:.*]] = prim.iota 1 : tensor<3x5xi64>
// CHECK: %[[KEEP:.*]] = prim.compare LE, %[[COL]], %[[ROW]]
// CHECK: %[[KEEPB:.*]] = prim.broadcast_in_dim %[[KEEP]], dims = [2, 3] : tensor<3x5xi1> -> tensor<1x2x3x5xi1>
// CHECK: %[[MASKED:.*]] = prim.select %[[KEEPB]], %[[S]], %[[NEGINF]]
// CHECK: %[[MAX:.*]] = prim.reduce MAX, %[[MASKED]]
// CHECK: %[[ALLMASKED:.*]] = prim.compare EQ, %[[MAX]]
// CHECK: %[[SAFE:.*]] = prim.select %[[ALLMASKED]], %{{.*}}, %[[MAX]]
// CHECK: %[[E:.*]] = prim.exp
// CHECK: %[[SUM:.*]] = prim.reduce SUM, %[[E]]
// CHECK: %[[PV:.*]] = prim.dot_general %[[E]], %[[V]], batch = [0, 1] x [0, 1], contract = [3] x [2]
// CHECK: %[[EMPTY:.*]] = prim.compare EQ, %[[SUM]]
// CHECK: %[[INV:.*]] = prim.div %{{.*}}, %[[SUM]]
// CHECK: %[[SAFEINV:.*]] = prim.select %[[EMPTY]], %{{.*}}, %[[INV]]
// CHECK: %[[INVB:.*]] = prim.broadcast_in_dim %[[SAFEINV]], dims = [0, 1, 2] : tensor<1x2x3xf32> -> tensor<1x2x3x6xf32>
// CHECK: %[[OUT:.*]] = prim.mul %[[PV]], %[[INVB]]
// CHECK: return %[[OUT]]
func.func @sdpa_causal(%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x5x4xf32>, %v: tensor<1x2x5x6xf32>) -> tensor<1x2x3x6xf32> {
  %0 = "aten.scaled_dot_product_attention"(%q, %k, %v) {is_causal = true, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<1x2x3x4xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5x6xf32>) -> tensor<1x2x3x6xf32>
  return %0 : tensor<1x2x3x6xf32>
}

// -----

// The CPU flash kernel's form: a bool mask (true = attend) selects -inf, an explicit
// scale replaces 1/sqrt(E), and logsumexp = max + log(sum).
// CHECK-LABEL: func.func @flash_bool_mask
// CHECK-SAME: (%[[Q:[a-z0-9]+]]: tensor<2x3x4xf32>, %[[M:[a-z0-9]+]]: tensor<3x3xi1>)
// CHECK-DAG: %[[SCALE:.*]] = prim.constant dense<2.500000e-01> : tensor<2x3x3xf32>
// CHECK: %[[QK:.*]] = prim.dot_general %[[Q]], %[[Q]], batch = [0] x [0], contract = [2] x [2]
// CHECK: %[[S:.*]] = prim.mul %[[QK]], %[[SCALE]]
// CHECK: %[[MB:.*]] = prim.broadcast_in_dim %[[M]], dims = [1, 2] : tensor<3x3xi1> -> tensor<2x3x3xi1>
// CHECK: prim.select %[[MB]], %[[S]], %{{.*}}
// CHECK: %[[LOG:.*]] = prim.log %[[SUM:.*]] : tensor<2x3xf32>
// CHECK: %[[LSE:.*]] = prim.add %[[SAFEMAX:.*]], %[[LOG]]
// CHECK: %[[LSE0:.*]] = prim.select %{{.*}}, %{{.*}}, %[[LSE]]
// CHECK: return %{{.*}}, %[[LSE0]]
func.func @flash_bool_mask(%q: tensor<2x3x4xf32>, %m: tensor<3x3xi1>) -> (tensor<2x3x4xf32>, tensor<2x3xf32>) {
  %0:2 = "aten._scaled_dot_product_flash_attention_for_cpu"(%q, %q, %q, %m) {scale = 0.25 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1>} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<3x3xi1>) -> (tensor<2x3x4xf32>, tensor<2x3xf32>)
  return %0#0, %0#1 : tensor<2x3x4xf32>, tensor<2x3xf32>
}

// -----

// A float mask is added to the scores.
// CHECK-LABEL: func.func @sdpa_float_mask
// CHECK: %[[S:.*]] = prim.mul
// CHECK: %[[MB:.*]] = prim.broadcast_in_dim %{{.*}}, dims = [2, 3] : tensor<3x3xf32> -> tensor<1x2x3x3xf32>
// CHECK: %[[B:.*]] = prim.add %[[S]], %[[MB]]
// CHECK: prim.reduce MAX, %[[B]]
func.func @sdpa_float_mask(%q: tensor<1x2x3x4xf32>, %m: tensor<3x3xf32>) -> tensor<1x2x3x4xf32> {
  %0 = "aten.scaled_dot_product_attention"(%q, %q, %q, %m) {operandSegmentSizes = array<i32: 1, 1, 1, 1>} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<3x3xf32>) -> tensor<1x2x3x4xf32>
  return %0 : tensor<1x2x3x4xf32>
}

// -----

// Grouped-query attention repeats each key/value head (repeat_interleave on dim -3).
// CHECK-LABEL: func.func @sdpa_gqa
// CHECK-SAME: (%[[Q:[a-z0-9]+]]: tensor<1x4x3x8xf32>, %[[K:[a-z0-9]+]]: tensor<1x2x3x8xf32>
// CHECK: %[[KB:.*]] = prim.broadcast_in_dim %[[K]], dims = [0, 1, 3, 4] : tensor<1x2x3x8xf32> -> tensor<1x2x2x3x8xf32>
// CHECK: %[[KR:.*]] = prim.reshape %[[KB]] : tensor<1x2x2x3x8xf32> -> tensor<1x4x3x8xf32>
// CHECK: prim.dot_general %[[Q]], %[[KR]]
func.func @sdpa_gqa(%q: tensor<1x4x3x8xf32>, %k: tensor<1x2x3x8xf32>, %v: tensor<1x2x3x8xf32>) -> tensor<1x4x3x8xf32> {
  %0 = "aten.scaled_dot_product_attention"(%q, %k, %v) {enable_gqa = true, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<1x4x3x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>) -> tensor<1x4x3x8xf32>
  return %0 : tensor<1x4x3x8xf32>
}

// -----

// baddbmm = beta * self + alpha * (batch1 @ batch2).
// CHECK-LABEL: func.func @baddbmm
// CHECK-DAG: %[[HALF:.*]] = prim.constant dense<5.000000e-01> : tensor<3x2x2xf32>
// CHECK: %[[P:.*]] = prim.dot_general %{{.*}}, %{{.*}}, batch = [0] x [0], contract = [2] x [1]
// CHECK: %[[AP:.*]] = prim.mul %[[P]], %[[HALF]]
// CHECK: %[[SB:.*]] = prim.broadcast_in_dim %{{.*}}, dims = [1, 2] : tensor<2x2xf32> -> tensor<3x2x2xf32>
// CHECK: prim.add %[[SB]], %[[AP]]
func.func @baddbmm(%s: tensor<2x2xf32>, %a: tensor<3x2x4xf32>, %b: tensor<3x4x2xf32>) -> tensor<3x2x2xf32> {
  %0 = "aten.baddbmm"(%s, %a, %b) {alpha = 5.000000e-01 : f64} : (tensor<2x2xf32>, tensor<3x2x4xf32>, tensor<3x4x2xf32>) -> tensor<3x2x2xf32>
  return %0 : tensor<3x2x2xf32>
}

// -----

// CHECK-LABEL: func.func @embedding
// CHECK: prim.gather %{{.*}}, %{{.*}}, axis = 0 : tensor<10x4xf32>, tensor<2x3xi64> -> tensor<2x3x4xf32>
func.func @embedding(%w: tensor<10x4xf32>, %ids: tensor<2x3xi64>) -> tensor<2x3x4xf32> {
  %0 = "aten.embedding"(%w, %ids) {padding_idx = 0 : i64} : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// A 0-d index keeps the selected dim with size 1.
// CHECK-LABEL: func.func @index_select
// CHECK: %[[G:.*]] = prim.gather %{{.*}}, %{{.*}}, axis = 1 : tensor<2x5xf32>, tensor<i64> -> tensor<2xf32>
// CHECK: prim.reshape %[[G]] : tensor<2xf32> -> tensor<2x1xf32>
func.func @index_select(%x: tensor<2x5xf32>, %i: tensor<i64>) -> tensor<2x1xf32> {
  %0 = "aten.index_select"(%x, %i) {dim = -1 : i64} : (tensor<2x5xf32>, tensor<i64>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

// torch.gather along dim 0 with a shorter index: self is sliced to the index's other
// sizes, the gathered dim moved last, and gathered with every other dim a batch dim.
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<3x5xf32>, %[[I:[a-z0-9]+]]: tensor<2x4xi64>)
// CHECK: %[[S:.*]] = prim.slice %[[X]], start = [0, 0], limit = [3, 4], strides = [1, 1]
// CHECK: %[[ST:.*]] = prim.transpose %[[S]], permutation = [1, 0] : tensor<3x4xf32> -> tensor<4x3xf32>
// CHECK: %[[IT:.*]] = prim.transpose %[[I]], permutation = [1, 0] : tensor<2x4xi64> -> tensor<4x2xi64>
// CHECK: %[[G:.*]] = prim.gather %[[ST]], %[[IT]], axis = 1 {batch_dims = 1 : i64} : tensor<4x3xf32>, tensor<4x2xi64> -> tensor<4x2xf32>
// CHECK: prim.transpose %[[G]], permutation = [1, 0] : tensor<4x2xf32> -> tensor<2x4xf32>
func.func @gather(%x: tensor<3x5xf32>, %i: tensor<2x4xi64>) -> tensor<2x4xf32> {
  %0 = "aten.gather"(%x, %i) {dim = 0 : i64} : (tensor<3x5xf32>, tensor<2x4xi64>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Python slicing: x[:, -9::3] (end = INT64_MAX) and x[-1].
// CHECK-LABEL: func.func @slice_select
// CHECK: prim.slice %{{.*}}, start = [0, 1], limit = [4, 10], strides = [1, 3] : tensor<4x10xf32> -> tensor<4x3xf32>
// CHECK: %[[ROW:.*]] = prim.slice %{{.*}}, start = [3, 0], limit = [4, 10], strides = [1, 1] : tensor<4x10xf32> -> tensor<1x10xf32>
// CHECK: prim.reshape %[[ROW]] : tensor<1x10xf32> -> tensor<10xf32>
func.func @slice_select(%x: tensor<4x10xf32>) -> (tensor<4x3xf32>, tensor<10xf32>) {
  %0 = "aten.slice.Tensor"(%x) {dim = 1 : i64, start = -9 : i64, end = 9223372036854775807 : i64, step = 3 : i64} : (tensor<4x10xf32>) -> tensor<4x3xf32>
  %1 = "aten.select.int"(%x) {dim = 0 : i64, index = -1 : i64} : (tensor<4x10xf32>) -> tensor<10xf32>
  return %0, %1 : tensor<4x3xf32>, tensor<10xf32>
}

// -----

// split gives consecutive slices (the last one shorter); cat joins them again.
// CHECK-LABEL: func.func @split_cat
// CHECK: %[[A:.*]] = prim.slice %{{.*}}, start = [0, 0], limit = [4, 4]
// CHECK: %[[B:.*]] = prim.slice %{{.*}}, start = [0, 4], limit = [4, 8]
// CHECK: %[[C:.*]] = prim.slice %{{.*}}, start = [0, 8], limit = [4, 10]
// CHECK: prim.concatenate %[[C]], %[[A]], %[[B]] dim = 1
func.func @split_cat(%x: tensor<4x10xf32>) -> tensor<4x10xf32> {
  %0:3 = "aten.split.Tensor"(%x) {split_size = 4 : i64, dim = 1 : i64} : (tensor<4x10xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x2xf32>)
  %1 = "aten.cat"(%0#2, %0#0, %0#1) {dim = -1 : i64} : (tensor<4x2xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x10xf32>
  return %1 : tensor<4x10xf32>
}

// -----

// Phi-3's rotary embedding over the whole head: cat's empty pass-through part adds
// nothing and is dropped (no zero-sized operand reaches a kernel); one part left is
// the result itself.
// CHECK-LABEL: func.func @cat_with_empty_part
// CHECK-SAME: (%[[Q:.*]]: tensor<2x8xf32>, %[[P:.*]]: tensor<2x0xf32>, %[[R:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[J:.*]] = prim.concatenate %[[Q]], %[[R]] dim = 1
// CHECK-NEXT: return %[[Q]], %[[J]]
func.func @cat_with_empty_part(%q: tensor<2x8xf32>, %pass: tensor<2x0xf32>, %r: tensor<2x3xf32>) -> (tensor<2x8xf32>, tensor<2x11xf32>) {
  %0 = "aten.cat"(%q, %pass) {dim = -1 : i64} : (tensor<2x8xf32>, tensor<2x0xf32>) -> tensor<2x8xf32>
  %1 = "aten.cat"(%q, %pass, %r) {dim = 1 : i64} : (tensor<2x8xf32>, tensor<2x0xf32>, tensor<2x3xf32>) -> tensor<2x11xf32>
  return %0, %1 : tensor<2x8xf32>, tensor<2x11xf32>
}

// -----

// stack promotes its operands and joins them along a new dim.
// CHECK-LABEL: func.func @stack
// CHECK: %[[X1:.*]] = prim.reshape %{{.*}} : tensor<2x3xf32> -> tensor<2x1x3xf32>
// CHECK: %[[YF:.*]] = prim.convert %{{.*}} : tensor<2x3xf16> -> tensor<2x3xf32>
// CHECK: %[[Y1:.*]] = prim.reshape %[[YF]] : tensor<2x3xf32> -> tensor<2x1x3xf32>
// CHECK: prim.concatenate %[[X1]], %[[Y1]] dim = 1
func.func @stack(%x: tensor<2x3xf32>, %y: tensor<2x3xf16>) -> tensor<2x2x3xf32> {
  %0 = "aten.stack"(%x, %y) {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<2x2x3xf32>
  return %0 : tensor<2x2x3xf32>
}

// -----

// An int tensor compared with a float one, or with a float Scalar, compares in float.
// CHECK-LABEL: func.func @compare_promotes
// CHECK: %[[XF:.*]] = prim.convert %{{.*}} : tensor<2x3xi64> -> tensor<2x3xf32>
// CHECK: %[[YB:.*]] = prim.broadcast_in_dim %{{.*}}, dims = [1] : tensor<3xf32> -> tensor<2x3xf32>
// CHECK: prim.compare LT, %[[XF]], %[[YB]] : tensor<2x3xf32>
// CHECK: prim.compare GE, %{{.*}}, %{{.*}} : tensor<2x3xf32>
func.func @compare_promotes(%x: tensor<2x3xi64>, %y: tensor<3xf32>) -> (tensor<2x3xi1>, tensor<2x3xi1>) {
  %0 = "aten.lt.Tensor"(%x, %y) : (tensor<2x3xi64>, tensor<3xf32>) -> tensor<2x3xi1>
  %1 = "aten.ge.Scalar"(%x) {other = 5.000000e-01 : f64} : (tensor<2x3xi64>) -> tensor<2x3xi1>
  return %0, %1 : tensor<2x3xi1>, tensor<2x3xi1>
}

// -----

// Boolean logic as selects: p & q = p ? q : false, p | q = p ? true : q, !p = p == false.
// CHECK-LABEL: func.func @logic
// CHECK-SAME: (%[[P:[a-z0-9]+]]: tensor<4xi1>, %[[Q:[a-z0-9]+]]: tensor<4xi1>)
// CHECK-DAG: %[[TRUE:.*]] = prim.constant dense<true> : tensor<4xi1>
// CHECK-DAG: %[[FALSE:.*]] = prim.constant dense<false> : tensor<4xi1>
// CHECK: %[[AND:.*]] = prim.select %[[P]], %[[Q]], %[[FALSE]]
// CHECK: %[[OR:.*]] = prim.select %[[P]], %[[TRUE]], %[[Q]]
// CHECK: %[[NOT:.*]] = prim.compare EQ, %[[P]], %[[FALSE]]
// CHECK: return %[[AND]], %[[OR]], %[[NOT]]
func.func @logic(%p: tensor<4xi1>, %q: tensor<4xi1>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = "aten.bitwise_and.Tensor"(%p, %q) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %1 = "aten.logical_or"(%p, %q) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %2 = "aten.logical_not"(%p) : (tensor<4xi1>) -> tensor<4xi1>
  return %0, %1, %2 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @where_masked_fill
// CHECK-SAME: (%[[C:[a-z0-9]+]]: tensor<2x3xi1>, %[[X:[a-z0-9]+]]: tensor<2x3xf32>, %[[M:[a-z0-9]+]]: tensor<3xi1>)
// CHECK-DAG: %[[NEGINF:.*]] = prim.constant dense<0xFF800000> : tensor<2x3xf32>
// CHECK-DAG: %[[ZERO:.*]] = prim.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK: %[[W:.*]] = prim.select %[[C]], %[[X]], %[[ZERO]]
// CHECK: %[[MB:.*]] = prim.broadcast_in_dim %[[M]], dims = [1]
// CHECK: %[[F:.*]] = prim.select %[[MB]], %[[NEGINF]], %[[X]]
// CHECK: return %[[W]], %[[F]]
func.func @where_masked_fill(%c: tensor<2x3xi1>, %x: tensor<2x3xf32>, %m: tensor<3xi1>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %zero = prim.constant dense<0.0> : tensor<f32>
  %0 = "aten.where.self"(%c, %x, %zero) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %1 = "aten.masked_fill.Scalar"(%x, %m) {value = 0xFFF0000000000000 : f64} : (tensor<2x3xf32>, tensor<3xi1>) -> tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// triu(diagonal=1) keeps (i, j) where j - i >= 1, over the last two dims.
// CHECK-LABEL: func.func @triu
// CHECK-DAG: %[[ONE:.*]] = prim.constant dense<1> : tensor<3x4xi64>
// CHECK: %[[ROW:.*]] = prim.iota 0 : tensor<3x4xi64>
// CHECK: %[[COL:.*]] = prim.iota 1 : tensor<3x4xi64>
// CHECK: %[[D:.*]] = prim.sub %[[COL]], %[[ROW]]
// CHECK: %[[KEEP:.*]] = prim.compare GE, %[[D]], %[[ONE]]
// CHECK: %[[KB:.*]] = prim.broadcast_in_dim %[[KEEP]], dims = [1, 2] : tensor<3x4xi1> -> tensor<2x3x4xi1>
// CHECK: prim.select %[[KB]], %{{.*}}, %{{.*}}
func.func @triu(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = "aten.triu"(%x) {diagonal = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// arange(1, 3.5, 0.5) as float32: computed in f64 and rounded; full is a splat.
// CHECK-LABEL: func.func @factories
// CHECK-DAG: %[[SEVENS:.*]] = prim.constant dense<7> : tensor<2x3xi64>
// CHECK-DAG: %[[START:.*]] = prim.constant dense<1.000000e+00> : tensor<5xf64>
// CHECK-DAG: %[[STEP:.*]] = prim.constant dense<5.000000e-01> : tensor<5xf64>
// CHECK: %[[I:.*]] = prim.iota 0 : tensor<5xf64>
// CHECK: %[[IS:.*]] = prim.mul %[[I]], %[[STEP]]
// CHECK: %[[R:.*]] = prim.add %[[IS]], %[[START]]
// CHECK: %[[F:.*]] = prim.convert %[[R]] : tensor<5xf64> -> tensor<5xf32>
// CHECK: %[[N:.*]] = prim.iota 0 : tensor<3xi64>
// CHECK: return %[[F]], %[[SEVENS]], %[[N]]
func.func @factories() -> (tensor<5xf32>, tensor<2x3xi64>, tensor<3xi64>) {
  %0 = "aten.arange.start_step"() {start = 1 : i64, end = 3.5 : f64, step = 5.000000e-01 : f64, dtype = 1 : i64} : () -> tensor<5xf32>
  %1 = "aten.full"() {size = array<i64: 2, 3>, fill_value = 7 : i64} : () -> tensor<2x3xi64>
  %2 = "aten.arange"() {end = 3 : i64} : () -> tensor<3xi64>
  return %0, %1, %2 : tensor<5xf32>, tensor<2x3xi64>, tensor<3xi64>
}

// -----

// Advanced indexing x[b, k] (BERT's padding_mask[batch_idx, kv_idx]): the indices
// broadcast together, negative ones wrap, and b * 12 + k gathers from x flattened.
// CHECK-LABEL: func.func @index_tensor
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x12xi1>, %[[B:[a-z0-9]+]]: tensor<2x1x1x1xi64>, %[[K:[a-z0-9]+]]: tensor<1x1x1x12xi64>)
// CHECK-DAG: %[[TWO:.*]] = prim.constant dense<2> : tensor<2x1x1x12xi64>
// CHECK-DAG: %[[ZERO:.*]] = prim.constant dense<0> : tensor<2x1x1x12xi64>
// CHECK-DAG: %[[TWELVE:.*]] = prim.constant dense<12> : tensor<2x1x1x12xi64>
// CHECK: %[[KB:.*]] = prim.broadcast_in_dim %[[K]]
// CHECK: %[[KNEG:.*]] = prim.compare LT, %[[KB]], %[[ZERO]]
// CHECK: %[[KW:.*]] = prim.add %[[KB]], %[[TWELVE]]
// CHECK: %[[KI:.*]] = prim.select %[[KNEG]], %[[KW]], %[[KB]]
// CHECK: %[[BB:.*]] = prim.broadcast_in_dim %[[B]]
// CHECK: %[[BNEG:.*]] = prim.compare LT, %[[BB]], %[[ZERO]]
// CHECK: %[[BW:.*]] = prim.add %[[BB]], %[[TWO]]
// CHECK: %[[BI:.*]] = prim.select %[[BNEG]], %[[BW]], %[[BB]]
// CHECK: %[[ROWS:.*]] = prim.mul %[[BI]], %[[TWELVE]]
// CHECK: %[[POS:.*]] = prim.add %[[KI]], %[[ROWS]]
// CHECK: %[[FLAT:.*]] = prim.reshape %[[X]] : tensor<2x12xi1> -> tensor<24xi1>
// CHECK: prim.gather %[[FLAT]], %[[POS]], axis = 0 : tensor<24xi1>, tensor<2x1x1x12xi64> -> tensor<2x1x1x12xi1>
func.func @index_tensor(%x: tensor<2x12xi1>, %b: tensor<2x1x1x1xi64>, %k: tensor<1x1x1x12xi64>) -> tensor<2x1x1x12xi1> {
  %0 = "aten.index.Tensor"(%x, %b, %k) : (tensor<2x12xi1>, tensor<2x1x1x1xi64>, tensor<1x1x1x12xi64>) -> tensor<2x1x1x12xi1>
  return %0 : tensor<2x1x1x12xi1>
}

// -----

// all/any reduce the tensor read as bools with AND/OR.
// CHECK-LABEL: func.func @all_any
// CHECK-DAG: %[[FALSE:.*]] = prim.constant dense<false> : tensor<i1>
// CHECK-DAG: %[[TRUE:.*]] = prim.constant dense<true> : tensor<i1>
// CHECK: %[[P:.*]] = prim.convert %{{.*}} : tensor<2x3xf32> -> tensor<2x3xi1>
// CHECK: %[[ALL:.*]] = prim.reduce AND, %[[P]], %[[TRUE]], dims = [0, 1] : tensor<2x3xi1>, tensor<i1> -> tensor<i1>
// CHECK: %[[Q:.*]] = prim.convert %{{.*}} : tensor<2x3xf32> -> tensor<2x3xi1>
// CHECK: %[[ANY:.*]] = prim.reduce OR, %[[Q]], %[[FALSE]], dims = [0, 1]
// CHECK: return %[[ALL]], %[[ANY]]
func.func @all_any(%x: tensor<2x3xf32>) -> (tensor<i1>, tensor<i1>) {
  %0 = "aten.all"(%x) : (tensor<2x3xf32>) -> tensor<i1>
  %1 = "aten.any"(%x) : (tensor<2x3xf32>) -> tensor<i1>
  return %0, %1 : tensor<i1>, tensor<i1>
}

// -----

// _safe_softmax (SDPA's math path): rows that are -inf throughout give 0, not NaN;
// their max is taken as 0 so that exp stays finite.
// CHECK-LABEL: func.func @safe_softmax
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x5xf32>)
// CHECK: %[[MAX:.*]] = prim.reduce MAX, %[[X]], %{{.*}}, dims = [1]
// CHECK: %[[ALLNEG:.*]] = prim.compare EQ, %[[MAX]], %{{.*}} : tensor<2xf32>
// CHECK: %[[SAFE:.*]] = prim.select %[[ALLNEG]], %{{.*}}, %[[MAX]]
// CHECK: %[[SAFEB:.*]] = prim.broadcast_in_dim %[[SAFE]], dims = [0]
// CHECK: %[[E:.*]] = prim.exp
// CHECK: %[[SUM:.*]] = prim.reduce SUM, %[[E]]
// CHECK: %[[Y:.*]] = prim.div %[[E]], %{{.*}}
// CHECK: %[[ROWS:.*]] = prim.broadcast_in_dim %[[ALLNEG]], dims = [0] : tensor<2xi1> -> tensor<2x5xi1>
// CHECK: prim.select %[[ROWS]], %{{.*}}, %[[Y]]
func.func @safe_softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = "aten._safe_softmax"(%x) {dim = -1 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// split_with_sizes into one piece of a data-dependent size (Faster R-CNN splits its
// boxes per image, one image here): the piece is the tensor itself.
// CHECK-LABEL: func.func @split_one_piece_of_a_dynamic_dim
// CHECK-SAME: (%[[X:.*]]: tensor<?x5x4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @split_one_piece_of_a_dynamic_dim(%x: tensor<?x5x4xf32>) -> tensor<?x5x4xf32> {
  %0 = "aten.split_with_sizes"(%x) {dim = 0 : i64, split_sizes = array<i64: 150>, pt2c.sym.split_sizes = ["c0"], pt2c.result_dims = [["c0", "5", "4"]]} : (tensor<?x5x4xf32>) -> tensor<?x5x4xf32>
  return %0 : tensor<?x5x4xf32>
}
