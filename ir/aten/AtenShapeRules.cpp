// Shape rules for aten ops, written once per *kind* of op (elementwise, matmul, view,
// ...) and registered for every op name of that kind. Ops without a rule are trusted:
// the importer takes their result types from the trace.
#include "ir/aten/AtenShapeRules.h"

#include <cmath>

#include "ir/aten/AtenDialect.h"
#include "ir/aten/AtenDtypeRules.h"
#include "ir/contract/ModelContract.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using llvm::SmallVector;

namespace pt2c::aten {
namespace {

using Shape = SmallVector<int64_t>;
constexpr int64_t kDyn = ShapedType::kDynamic;

/// What a rule sees: operand shapes and attributes of one op, plus error reporting.
class ShapeQuery {
public:
  ShapeQuery(Operation *op, bool diagnose) : op(op), diagnose(diagnose) {}

  unsigned numOperands() const { return op->getNumOperands(); }
  ArrayRef<int64_t> shape(unsigned i) const {
    return cast<RankedTensorType>(op->getOperand(i).getType()).getShape();
  }
  int64_t rank(unsigned i) const { return shape(i).size(); }

  std::optional<int64_t> intAttr(StringRef name) const {
    if (auto attr = op->getAttrOfType<IntegerAttr>(name))
      return attr.getInt();
    return std::nullopt;
  }
  std::optional<ArrayRef<int64_t>> arrayAttr(StringRef name) const {
    if (auto attr = op->getAttrOfType<DenseI64ArrayAttr>(name))
      return attr.asArrayRef();
    return std::nullopt;
  }
  /// An aten Scalar attribute (IntegerAttr, FloatAttr or BoolAttr) as a double.
  std::optional<double> scalarAttr(StringRef name) const {
    Attribute attr = op->getAttr(name);
    if (auto i = dyn_cast_or_null<IntegerAttr>(attr))
      return (double)i.getInt();
    if (auto f = dyn_cast_or_null<FloatAttr>(attr))
      return f.getValueAsDouble();
    if (auto b = dyn_cast_or_null<BoolAttr>(attr))
      return (double)b.getValue();
    return std::nullopt;
  }

  std::optional<bool> boolAttr(StringRef name) const {
    if (auto attr = op->getAttrOfType<BoolAttr>(name))
      return attr.getValue();
    return std::nullopt;
  }

  /// A dimension argument in [-rank, rank) made non-negative.
  FailureOr<int64_t> dim(int64_t d, int64_t rank) {
    if (d < -rank || d >= std::max<int64_t>(rank, 1))
      return fail("dimension " + Twine(d) + " out of range for rank " + Twine(rank));
    return d < 0 ? d + rank : d;
  }

  LogicalResult fail(const Twine &message) {
    if (diagnose)
      op->emitOpError(message);
    return failure();
  }

private:
  Operation *op;
  bool diagnose;
};

using Rule = LogicalResult (*)(ShapeQuery &, Shape &);

/// Numpy-style broadcast of two sizes; a dynamic size is assumed not to be 1 unless the
/// other is 1 (the exporter specializes size-1 dims, as torch.export does).
LogicalResult broadcastInto(ShapeQuery &q, ArrayRef<int64_t> other, Shape &out) {
  Shape result(std::max(out.size(), other.size()), 1);
  for (size_t i = 0; i < result.size(); ++i) {
    int64_t a = i < out.size() ? out[out.size() - 1 - i] : 1;
    int64_t b = i < other.size() ? other[other.size() - 1 - i] : 1;
    int64_t &r = result[result.size() - 1 - i];
    if (a == 1 || a == b)
      r = b;
    else if (b == 1)
      r = a;
    else if (a == kDyn || b == kDyn)
      r = a == kDyn ? b : a;
    else
      return q.fail("operand sizes " + Twine(a) + " and " + Twine(b) + " do not broadcast");
  }
  out = std::move(result);
  return success();
}

LogicalResult sameAsSelf(ShapeQuery &q, Shape &out) {
  out.assign(q.shape(0).begin(), q.shape(0).end());
  return success();
}

LogicalResult broadcastOperands(ShapeQuery &q, Shape &out) {
  out.clear();
  for (unsigned i = 0; i < q.numOperands(); ++i)
    if (failed(broadcastInto(q, q.shape(i), out)))
      return failure();
  return success();
}

LogicalResult transposeTwoDims(ShapeQuery &q, Shape &out) {
  int64_t rank = q.rank(0);
  // aten::t swaps the two dims of a matrix and leaves vectors and scalars alone.
  int64_t d0 = 0, d1 = rank == 2 ? 1 : 0;
  if (auto a = q.intAttr("dim0")) {
    FailureOr<int64_t> n0 = q.dim(*a, rank), n1 = q.dim(*q.intAttr("dim1"), rank);
    if (failed(n0) || failed(n1))
      return failure();
    d0 = *n0, d1 = *n1;
  } else if (rank > 2) {
    return q.fail("expects a tensor of rank <= 2");
  }
  out.assign(q.shape(0).begin(), q.shape(0).end());
  if (rank > 0)
    std::swap(out[d0], out[d1]);
  return success();
}

LogicalResult permute(ShapeQuery &q, Shape &out) {
  ArrayRef<int64_t> dims = *q.arrayAttr("dims");
  if ((int64_t)dims.size() != q.rank(0))
    return q.fail("expects one entry of `dims` per dimension");
  out.clear();
  SmallVector<bool> seen(dims.size(), false);
  for (int64_t d : dims) {
    FailureOr<int64_t> n = q.dim(d, q.rank(0));
    if (failed(n) || seen[*n])
      return q.fail("`dims` is not a permutation");
    seen[*n] = true;
    out.push_back(q.shape(0)[*n]);
  }
  return success();
}

/// [M, K] x [K, N] -> [M, N] for operands `lhs` and `lhs + 1` (mm; addmm's mat1/mat2).
LogicalResult matrixProduct(ShapeQuery &q, unsigned lhs, Shape &out) {
  if (q.rank(lhs) != 2 || q.rank(lhs + 1) != 2)
    return q.fail("expects 2-D matrices");
  out = {q.shape(lhs)[0], q.shape(lhs + 1)[1]};
  return success();
}
LogicalResult mm(ShapeQuery &q, Shape &out) { return matrixProduct(q, 0, out); }
LogicalResult addmm(ShapeQuery &q, Shape &out) { return matrixProduct(q, 1, out); }

LogicalResult bmm(ShapeQuery &q, Shape &out) {
  if (q.rank(0) != 3 || q.rank(1) != 3)
    return q.fail("expects 3-D batches of matrices");
  Shape batch = {q.shape(0)[0]};
  if (failed(broadcastInto(q, {q.shape(1)[0]}, batch)))
    return failure();
  out = {batch[0], q.shape(0)[1], q.shape(1)[2]};
  return success();
}

/// _grouped_mm as mixture-of-experts layers call it: rows of self [M, K] in groups
/// (offs: where each group ends) times their group's matrix of mat2 [G, K, N] -> [M, N];
/// or one product per group, [G, M, K] x [G, K, N] -> [G, M, N]. The other two forms
/// (groups along K or N of 2-D operands) are refused.
LogicalResult groupedMatmul(ShapeQuery &q, Shape &out) {
  ArrayRef<int64_t> a = q.shape(0), b = q.shape(1);
  if (b.size() != 3 || (a.size() != 2 && a.size() != 3))
    return q.fail("supports self [M, K] or [G, M, K] with mat2 [G, K, N], got ranks " +
                  Twine(a.size()) + " and " + Twine(b.size()));
  int64_t k = a.back(), kb = b[1];
  if (k != kDyn && kb != kDyn && k != kb)
    return q.fail("self has " + Twine(k) + " columns but mat2's matrices " + Twine(kb) + " rows");
  if (a.size() == 2)
    out = {a[0], b[2]};
  else
    out = {a[0], a[1], b[2]};
  return success();
}

/// histc: one count per bin.
LogicalResult histogram(ShapeQuery &q, Shape &out) {
  std::optional<int64_t> bins = q.intAttr("bins");
  if (bins && *bins <= 0)
    return q.fail("bins must be positive, got " + Twine(*bins));
  out = {bins.value_or(100)};
  return success();
}

/// nonzero: one row of coordinates per nonzero element; how many is known at run time.
LogicalResult coordinates(ShapeQuery &q, Shape &out) {
  out = {kDyn, q.rank(0)};
  return success();
}

/// torchvision::nms: the indices of the boxes it keeps, known at run time; dets [N, 4]
/// (x1, y1, x2, y2) with one score each.
LogicalResult keptBoxes(ShapeQuery &q, Shape &out) {
  ArrayRef<int64_t> dets = q.shape(0), scores = q.shape(1);
  if (dets.size() != 2 || (dets[1] != kDyn && dets[1] != 4) || scores.size() != 1)
    return q.fail("expects dets [N, 4] and scores [N]");
  if (dets[0] != kDyn && scores[0] != kDyn && dets[0] != scores[0])
    return q.fail("has " + Twine(dets[0]) + " boxes but " + Twine(scores[0]) + " scores");
  out = {kDyn};
  return success();
}

/// torch.matmul: vectors are promoted to matrices and the promoted dim is dropped again;
/// leading (batch) dims broadcast.
LogicalResult matmul(ShapeQuery &q, Shape &out) {
  ArrayRef<int64_t> a = q.shape(0), b = q.shape(1);
  if (a.empty() || b.empty())
    return q.fail("expects operands of rank >= 1");
  Shape batch(a.begin(), a.end() - std::min<size_t>(a.size(), 2));
  if (failed(broadcastInto(q, b.drop_back(std::min<size_t>(b.size(), 2)), batch)))
    return failure();
  out = batch;
  if (a.size() >= 2)
    out.push_back(a[a.size() - 2]);
  if (b.size() >= 2)
    out.push_back(b.back());
  return success();
}

/// linear(input[..., K], weight[N, K] or [K]) -> [..., N] or [...].
LogicalResult linear(ShapeQuery &q, Shape &out) {
  ArrayRef<int64_t> in = q.shape(0), w = q.shape(1);
  if (in.empty() || w.empty() || w.size() > 2)
    return q.fail("expects input of rank >= 1 and a 1-D or 2-D weight");
  out.assign(in.begin(), in.end() - 1);
  if (w.size() == 2)
    out.push_back(w[0]);
  return success();
}

/// view/reshape: the requested sizes, with one -1 inferred from the element count.
LogicalResult view(ShapeQuery &q, Shape &out) {
  std::optional<ArrayRef<int64_t>> size = q.arrayAttr("size");
  if (!size)
    size = q.arrayAttr("shape");
  out.assign(size->begin(), size->end());
  int64_t inferred = -1, known = 1, total = 1;
  for (int64_t s : q.shape(0))
    total = (s == kDyn || total == kDyn) ? kDyn : total * s;
  for (auto [i, s] : llvm::enumerate(out)) {
    if (s == -1) {
      if (inferred != -1)
        return q.fail("more than one size is -1");
      inferred = i;
    } else if (s == kDyn || known == kDyn) {
      known = kDyn;
    } else if (s < 0) {
      return q.fail("invalid size " + Twine(s));
    } else {
      known *= s;
    }
  }
  if (inferred >= 0)
    out[inferred] = (total == kDyn || known == kDyn || known == 0) ? kDyn : total / known;
  if (total != kDyn && known != kDyn && inferred < 0 && total != known)
    return q.fail("cannot view " + Twine(total) + " elements as " + Twine(known));
  return success();
}

/// expand: -1 keeps the input size; new sizes may only be prepended.
LogicalResult expand(ShapeQuery &q, Shape &out) {
  ArrayRef<int64_t> in = q.shape(0), size = *q.arrayAttr("size");
  if (size.size() < in.size())
    return q.fail("expects at least as many sizes as input dims");
  out.assign(size.begin(), size.end());
  size_t lead = size.size() - in.size();
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] != -1)
      continue;
    if (i < lead)
      return q.fail("-1 is not allowed for a new leading dimension");
    out[i] = in[i - lead];
  }
  for (size_t i = 0; i < in.size(); ++i) {
    int64_t from = in[i], to = out[i + lead];
    if (from != 1 && from != kDyn && to != kDyn && from != to)
      return q.fail("cannot expand size " + Twine(from) + " to " + Twine(to));
  }
  return success();
}

LogicalResult unsqueeze(ShapeQuery &q, Shape &out) {
  FailureOr<int64_t> d = q.dim(*q.intAttr("dim"), q.rank(0) + 1);
  if (failed(d))
    return failure();
  out.assign(q.shape(0).begin(), q.shape(0).end());
  out.insert(out.begin() + *d, 1);
  return success();
}

/// squeeze.dim drops the dim only if it has size 1 (a dynamic size is kept: the
/// exporter specializes size-1 dims, so a dynamic one is never 1).
LogicalResult squeezeDim(ShapeQuery &q, Shape &out) {
  out.assign(q.shape(0).begin(), q.shape(0).end());
  if (out.empty())
    return success();
  FailureOr<int64_t> d = q.dim(*q.intAttr("dim"), q.rank(0));
  if (failed(d))
    return failure();
  if (out[*d] == 1)
    out.erase(out.begin() + *d);
  return success();
}

//===--- transformer ops: softmax, attention, indexing, views, factories ---===//

/// baddbmm(self, batch1[B, M, K], batch2[B, K, N]) -> [B, M, N].
LogicalResult baddbmm(ShapeQuery &q, Shape &out) {
  if (q.rank(1) != 3 || q.rank(2) != 3)
    return q.fail("expects 3-D batches of matrices");
  out = {q.shape(1)[0], q.shape(1)[1], q.shape(2)[2]};
  return success();
}

/// Attention: query[..., L, E] and value[..., S, Ev] -> [..., L, Ev].
LogicalResult attention(ShapeQuery &q, Shape &out) {
  if (q.rank(0) < 2 || q.rank(2) < 2)
    return q.fail("expects query and value of rank >= 2");
  out.assign(q.shape(0).begin(), q.shape(0).end() - 1);
  out.push_back(q.shape(2).back());
  return success();
}

/// embedding(weight[V, D...], indices) -> indices.shape ++ [D...].
LogicalResult embedding(ShapeQuery &q, Shape &out) {
  if (q.rank(0) < 1)
    return q.fail("expects a weight of rank >= 1");
  out.assign(q.shape(1).begin(), q.shape(1).end());
  out.append(q.shape(0).begin() + 1, q.shape(0).end());
  return success();
}

/// index_select(self, dim, index[N]) -> self.shape with dim `dim` of size N.
LogicalResult indexSelect(ShapeQuery &q, Shape &out) {
  if (q.rank(1) > 1)
    return q.fail("expects a 0-D or 1-D index");
  FailureOr<int64_t> d = q.dim(*q.intAttr("dim"), q.rank(0));
  if (failed(d))
    return failure();
  out.assign(q.shape(0).begin(), q.shape(0).end());
  if (!out.empty())
    out[*d] = q.rank(1) == 0 ? 1 : q.shape(1)[0];
  return success();
}

/// gather(self, dim, index) -> index.shape.
LogicalResult gatherAlongDim(ShapeQuery &q, Shape &out) {
  if (q.rank(1) != q.rank(0))
    return q.fail("expects an index of the same rank as the input");
  out.assign(q.shape(1).begin(), q.shape(1).end());
  return success();
}

/// slice.Tensor: Python slicing of one dim; start and end are clamped into [0, size].
LogicalResult sliceTensor(ShapeQuery &q, Shape &out) {
  FailureOr<int64_t> d = q.dim(q.intAttr("dim").value_or(0), q.rank(0));
  if (failed(d))
    return failure();
  out.assign(q.shape(0).begin(), q.shape(0).end());
  int64_t size = out[*d], step = q.intAttr("step").value_or(1);
  if (step < 1)
    return q.fail("slice step must be positive");
  if (size == kDyn)
    return success();
  auto clamp = [&](int64_t i) {
    if (i < 0)
      i += size;
    return std::min(std::max<int64_t>(i, 0), size);
  };
  int64_t start = clamp(q.intAttr("start").value_or(0));
  int64_t end = clamp(q.intAttr("end").value_or(size));
  out[*d] = end > start ? (end - start + step - 1) / step : 0;
  return success();
}

LogicalResult selectInt(ShapeQuery &q, Shape &out) {
  if (q.rank(0) == 0)
    return q.fail("cannot select from a 0-D tensor");
  FailureOr<int64_t> d = q.dim(*q.intAttr("dim"), q.rank(0));
  if (failed(d))
    return failure();
  out.assign(q.shape(0).begin(), q.shape(0).end());
  out.erase(out.begin() + *d);
  return success();
}

/// squeeze (all size-1 dims) and squeeze.dims (the listed ones that have size 1).
LogicalResult squeezeDims(ShapeQuery &q, Shape &out) {
  std::optional<ArrayRef<int64_t>> dims = q.arrayAttr("dim");
  SmallVector<bool> drop(q.rank(0), !dims.has_value());
  for (int64_t d : dims.value_or(ArrayRef<int64_t>{})) {
    FailureOr<int64_t> n = q.dim(d, q.rank(0));
    if (failed(n))
      return failure();
    if (q.rank(0) > 0)
      drop[*n] = true;
  }
  out.clear();
  for (auto [i, s] : llvm::enumerate(q.shape(0)))
    if (!drop[i] || s != 1)
      out.push_back(s);
  return success();
}

/// stack: the (equal) operand shape with a new dim of size #operands.
LogicalResult stack(ShapeQuery &q, Shape &out) {
  if (q.numOperands() == 0)
    return q.fail("expects at least one tensor");
  FailureOr<int64_t> d = q.dim(q.intAttr("dim").value_or(0), q.rank(0) + 1);
  if (failed(d))
    return failure();
  out.assign(q.shape(0).begin(), q.shape(0).end());
  out.insert(out.begin() + *d, q.numOperands());
  return success();
}

/// Factories whose shape is the `size` attribute (zeros, full, new_ones, ...).
LogicalResult sizeAttr(ShapeQuery &q, Shape &out) {
  ArrayRef<int64_t> size = *q.arrayAttr("size");
  out.assign(size.begin(), size.end());
  return success();
}

LogicalResult scalarShape(ShapeQuery &, Shape &out) {
  out.clear();
  return success();
}

/// index.Tensor(self, indices...): the index tensors broadcast together, then the
/// dims of self they do not index. With pt2c.present_indices (x[:, idx]: the dims
/// indexed, the Nones left out), the index dims take the place of the indexed dims
/// where those are adjacent, else they lead.
LogicalResult indexTensor(ShapeQuery &q, Shape &out) {
  unsigned numIndices = q.numOperands() - 1;
  if (numIndices > (unsigned)q.rank(0))
    return q.fail("too many indices for a tensor of rank " + Twine(q.rank(0)));
  Shape indexShape;
  for (unsigned i = 1; i <= numIndices; ++i)
    if (failed(broadcastInto(q, q.shape(i), indexShape)))
      return failure();
  SmallVector<int64_t> dims = llvm::to_vector(llvm::seq<int64_t>(0, numIndices));
  if (std::optional<ArrayRef<int64_t>> present = q.arrayAttr(kPresentIndicesAttr))
    dims.assign(present->begin(), present->end());
  if (dims.size() != numIndices || !llvm::is_sorted(dims) ||
      (!dims.empty() && dims.back() >= q.rank(0)))
    return q.fail(Twine(kPresentIndicesAttr) + " does not match the index tensors");
  bool adjacent = dims.empty() || dims.back() - dims.front() == (int64_t)numIndices - 1;
  int64_t first = adjacent && !dims.empty() ? dims.front() : 0;
  out.clear();
  for (int64_t d = 0; d < q.rank(0); ++d) {
    if (d == first)
      out.append(indexShape.begin(), indexShape.end());
    if (!llvm::is_contained(dims, d))
      out.push_back(q.shape(0)[d]);
  }
  return success();
}

/// arange: ceil((end - start) / step) elements.
LogicalResult arange(ShapeQuery &q, Shape &out) {
  double start = q.scalarAttr("start").value_or(0.0), end = *q.scalarAttr("end"),
         step = q.scalarAttr("step").value_or(1.0);
  if (step == 0.0 || (end - start) / step < 0.0)
    return q.fail("arange has an empty or infinite range");
  out = {(int64_t)std::ceil((end - start) / step)};
  return success();
}

/// linspace: `steps` elements.
LogicalResult linspace(ShapeQuery &q, Shape &out) {
  std::optional<int64_t> steps = q.intAttr("steps");
  if (!steps || *steps < 0)
    return q.fail("linspace needs steps >= 0");
  out = {*steps};
  return success();
}

//===--- CNN ops: convolution, pooling, reductions, padding ---===//

/// List argument `name` with `n` entries: a single entry stands for all n (ATen
/// accepts `kernel_size=3` for an int[2]); a missing or empty one is `otherwise`.
FailureOr<Shape> listArg(ShapeQuery &q, StringRef name, size_t n, ArrayRef<int64_t> otherwise) {
  std::optional<ArrayRef<int64_t>> given = q.arrayAttr(name);
  ArrayRef<int64_t> values = given && !given->empty() ? *given : otherwise;
  if (values.size() == 1)
    return Shape(n, values[0]);
  if (values.size() != n) {
    (void)q.fail("expects " + Twine(n) + " entries in `" + name + "`");
    return failure();
  }
  return Shape(values.begin(), values.end());
}

/// convolution(input[N, C, in...], weight[O, C/g, k...]) -> [N, O, out...] with
/// out = (in + 2 pad - dil (k - 1) - 1) / stride + 1; transposed (weight[C, O/g, k...]):
/// out = (in - 1) stride - 2 pad + dil (k - 1) + output_padding + 1.
LogicalResult convolution(ShapeQuery &q, Shape &out) {
  ArrayRef<int64_t> in = q.shape(0), w = q.shape(1);
  if (in.size() < 3 || in.size() != w.size())
    return q.fail("expects input [N, C, spatial...] and a weight of the same rank >= 3");
  size_t spatial = in.size() - 2;
  FailureOr<Shape> stride = listArg(q, "stride", spatial, {1}),
                   padding = listArg(q, "padding", spatial, {0}),
                   dilation = listArg(q, "dilation", spatial, {1}),
                   outputPadding = listArg(q, "output_padding", spatial, {0});
  if (failed(stride) || failed(padding) || failed(dilation) || failed(outputPadding))
    return failure();
  bool transposed = q.boolAttr("transposed").value_or(false);
  int64_t groups = q.intAttr("groups").value_or(1);
  out = {in[0], !transposed ? w[0] : w[1] == kDyn ? kDyn : w[1] * groups};
  for (size_t i = 0; i < spatial; ++i) {
    int64_t x = in[2 + i], k = w[2 + i], s = (*stride)[i], p = (*padding)[i];
    if (x == kDyn || k == kDyn) {
      out.push_back(kDyn);
      continue;
    }
    int64_t span = (*dilation)[i] * (k - 1);
    if (transposed) {
      out.push_back((x - 1) * s - 2 * p + span + (*outputPadding)[i] + 1);
      continue;
    }
    if (s < 1 || x + 2 * p - span - 1 < 0)
      return q.fail("kernel larger than the padded input, or a stride < 1");
    out.push_back((x + 2 * p - span - 1) / s + 1);
  }
  return success();
}

/// max_pool{2,3}d_with_indices and avg_pool{2,3}d over the last `spatial` dims, as
/// ATen's pooling_output_shape: out = floor or ceil((in + 2 pad - dil (k - 1) - 1) /
/// stride) + 1, and under ceil_mode the last window must start inside the input or its
/// left padding. stride=[] means the kernel size.
template <int spatial> LogicalResult pool(ShapeQuery &q, Shape &out) {
  ArrayRef<int64_t> in = q.shape(0);
  if (in.size() != spatial + 1 && in.size() != spatial + 2)
    return q.fail("expects a " + Twine(spatial + 1) + "-D or " + Twine(spatial + 2) + "-D input");
  FailureOr<Shape> kernel = listArg(q, "kernel_size", spatial, {});
  if (failed(kernel))
    return failure();
  FailureOr<Shape> stride = listArg(q, "stride", spatial, *kernel),
                   padding = listArg(q, "padding", spatial, {0}),
                   dilation = listArg(q, "dilation", spatial, {1});
  if (failed(stride) || failed(padding) || failed(dilation))
    return failure();
  bool ceil = q.boolAttr("ceil_mode").value_or(false);
  out.assign(in.begin(), in.end() - spatial);
  for (int i = 0; i < spatial; ++i) {
    int64_t x = in[in.size() - spatial + i], k = (*kernel)[i], s = (*stride)[i], p = (*padding)[i],
            d = (*dilation)[i];
    if (k < 1 || s < 1 || d < 1 || p < 0 || 2 * p > k)
      return q.fail("expects positive kernel, stride and dilation, and padding of at "
                    "most half the kernel");
    if (x == kDyn) {
      out.push_back(kDyn);
      continue;
    }
    int64_t span = x + 2 * p - d * (k - 1) - 1;
    if (span < 0)
      return q.fail("pooling window larger than the padded input");
    int64_t o = (ceil ? (span + s - 1) / s : span / s) + 1;
    if (ceil && (o - 1) * s >= x + p)
      --o;
    out.push_back(o);
  }
  return success();
}

/// _adaptive_avg_pool{2,3}d: the leading dims, then output_size.
template <int spatial> LogicalResult adaptivePool(ShapeQuery &q, Shape &out) {
  ArrayRef<int64_t> in = q.shape(0), size = *q.arrayAttr("output_size");
  if ((in.size() != spatial + 1 && in.size() != spatial + 2) || size.size() != spatial)
    return q.fail("expects a " + Twine(spatial + 1) + "-D or " + Twine(spatial + 2) +
                  "-D input and " + Twine(spatial) + " output sizes");
  out.assign(in.begin(), in.end() - spatial);
  out.append(size.begin(), size.end());
  return success();
}

/// mean.dim, sum.dim_IntList, amax, amin: the dims in `dim` (None or [] = all) are
/// removed, or kept with size 1 under keepdim.
LogicalResult reduceDims(ShapeQuery &q, Shape &out) {
  int64_t rank = q.rank(0);
  std::optional<ArrayRef<int64_t>> dims = q.arrayAttr("dim");
  bool all = !dims || dims->empty();
  SmallVector<bool> reduced(rank, all);
  for (int64_t d : all ? ArrayRef<int64_t>{} : *dims) {
    FailureOr<int64_t> n = q.dim(d, rank);
    if (failed(n))
      return failure();
    if (rank == 0)
      continue;
    if (reduced[*n])
      return q.fail("dimension " + Twine(d) + " appears twice in `dim`");
    reduced[*n] = true;
  }
  bool keep = q.boolAttr("keepdim").value_or(false);
  out.clear();
  for (int64_t i = 0; i < rank; ++i)
    if (!reduced[i])
      out.push_back(q.shape(0)[i]);
    else if (keep)
      out.push_back(1);
  return success();
}

/// constant_pad_nd: `pad` holds (before, after) pairs from the last dim backwards;
/// negative entries crop.
LogicalResult constantPadNd(ShapeQuery &q, Shape &out) {
  ArrayRef<int64_t> pad = *q.arrayAttr("pad");
  if (pad.size() % 2 != 0 || (int64_t)pad.size() / 2 > q.rank(0))
    return q.fail("expects (before, after) pairs for at most every dimension");
  out.assign(q.shape(0).begin(), q.shape(0).end());
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    int64_t &s = out[out.size() - 1 - i];
    if (s == kDyn)
      continue;
    s += pad[2 * i] + pad[2 * i + 1];
    if (s < 0)
      return q.fail("padding crops more than the whole dimension");
  }
  return success();
}

/// reflection_pad{1,2,3}d, replication_pad{2,3}d: `padding` holds (before, after)
/// pairs from the last dim backwards, one pair per padded dim.
LogicalResult gatherPad(ShapeQuery &q, Shape &out) {
  ArrayRef<int64_t> pad = *q.arrayAttr("padding");
  if (pad.size() % 2 != 0 || (int64_t)pad.size() / 2 > q.rank(0))
    return q.fail("expects (before, after) pairs for at most every dimension");
  out.assign(q.shape(0).begin(), q.shape(0).end());
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    int64_t &s = out[out.size() - 1 - i];
    if (s != kDyn)
      s += pad[2 * i] + pad[2 * i + 1];
  }
  return success();
}

/// _cdist_forward(x1 [..., P, M], x2 [..., R, M]): the broadcast batch dims, P, R.
LogicalResult cdist(ShapeQuery &q, Shape &out) {
  if (q.rank(0) < 2 || q.rank(1) < 2)
    return q.fail("expects two operands of rank >= 2");
  out.assign(q.shape(0).begin(), q.shape(0).end() - 2);
  if (failed(broadcastInto(q, q.shape(1).drop_back(2), out)))
    return failure();
  out.push_back(q.shape(0)[q.rank(0) - 2]);
  out.push_back(q.shape(1)[q.rank(1) - 2]);
  return success();
}

/// _pdist_forward(x [N, M]): one distance per pair of rows, N (N - 1) / 2.
LogicalResult pdist(ShapeQuery &q, Shape &out) {
  if (q.rank(0) != 2)
    return q.fail("expects a 2-D input");
  int64_t n = q.shape(0)[0];
  out.assign({n == kDyn ? kDyn : n * (n - 1) / 2});
  return success();
}

/// grid_sampler_2d(input [N, C, H, W], grid [N, Ho, Wo, 2]): [N, C, Ho, Wo].
LogicalResult gridSampler2d(ShapeQuery &q, Shape &out) {
  if (q.rank(0) != 4 || q.rank(1) != 4)
    return q.fail("expects a 4-D input and a 4-D grid");
  out.assign({q.shape(0)[0], q.shape(0)[1], q.shape(1)[1], q.shape(1)[2]});
  return success();
}

/// col2im(self [N, C * kh * kw, L] or unbatched): [N, C, H, W] for output_size [H, W].
LogicalResult col2im(ShapeQuery &q, Shape &out) {
  ArrayRef<int64_t> size = *q.arrayAttr("output_size"), kernel = *q.arrayAttr("kernel_size");
  if ((q.rank(0) != 2 && q.rank(0) != 3) || size.size() != 2 || kernel.size() != 2)
    return q.fail("expects a 2-D or 3-D input, two output sizes and two kernel sizes");
  int64_t rows = q.shape(0)[q.rank(0) - 2];
  out.assign(q.shape(0).begin(), q.shape(0).end() - 2);
  out.push_back(rows == kDyn ? kDyn : rows / (kernel[0] * kernel[1]));
  out.append(size.begin(), size.end());
  return success();
}

//===--- ops added with the index/reduce, resize and split families ---===//

/// Operand 0's shape with dim `d` (normalized) set to `size`, or removed if size < 0.
LogicalResult withDim(ShapeQuery &q, Shape &out, int64_t d, int64_t size) {
  FailureOr<int64_t> n = q.dim(d, q.rank(0));
  if (failed(n))
    return failure();
  out.assign(q.shape(0).begin(), q.shape(0).end());
  if (out.empty())
    return success(); // a 0-d tensor's dim 0 and -1 are the tensor itself
  if (size < 0)
    out.erase(out.begin() + *n);
  else
    out[*n] = size;
  return success();
}

/// cat: the operands' shape with the sizes along `dim` added; legacy empty 1-D operands
/// (shape [0]) are skipped, as ATen skips them.
LogicalResult cat(ShapeQuery &q, Shape &out) {
  std::optional<unsigned> first;
  int64_t total = 0;
  for (unsigned i = 0; i < q.numOperands(); ++i) {
    if (q.rank(i) == 1 && q.shape(i)[0] == 0)
      continue;
    if (!first) {
      first = i;
      out.assign(q.shape(i).begin(), q.shape(i).end());
    }
    // As in PyTorch; a rank-0 operand (a number where the list was) has no dim to join.
    if (q.rank(i) == 0)
      return q.fail("zero-dimensional tensor (operand " + Twine(i) + ") cannot be concatenated");
    if (q.rank(i) != (int64_t)out.size())
      return q.fail("cat of tensors of ranks " + Twine(out.size()) + " and " + Twine(q.rank(i)));
  }
  if (!first) {
    out.assign({0});
    return success();
  }
  FailureOr<int64_t> d = q.dim(q.intAttr("dim").value_or(0), out.size());
  if (failed(d))
    return failure();
  for (unsigned i = *first; i < q.numOperands(); ++i) {
    if (q.rank(i) == 1 && q.shape(i)[0] == 0)
      continue;
    int64_t s = q.shape(i)[*d];
    total = (s == kDyn || total == kDyn) ? kDyn : total + s;
  }
  out[*d] = total;
  return success();
}

/// argmax/argmin (dim optional), max.dim/min.dim: one dim reduced away (kept as 1 under
/// keepdim); without a dim, everything (a 0-d result, or all ones under keepdim).
LogicalResult reduceOneDim(ShapeQuery &q, Shape &out) {
  bool keep = q.boolAttr("keepdim").value_or(false);
  std::optional<int64_t> dim = q.intAttr("dim");
  if (!dim) {
    out.assign(keep ? q.rank(0) : 0, 1);
    return success();
  }
  return withDim(q, out, *dim, keep ? 1 : -1);
}

/// topk: k along `dim` (default -1).
LogicalResult topk(ShapeQuery &q, Shape &out) {
  return withDim(q, out, q.intAttr("dim").value_or(-1), *q.intAttr("k"));
}

/// repeat: the operand (with leading 1-dims up to the repeats' length) times repeats.
LogicalResult repeat(ShapeQuery &q, Shape &out) {
  ArrayRef<int64_t> repeats = *q.arrayAttr("repeats");
  if ((int64_t)repeats.size() < q.rank(0))
    return q.fail("fewer repeats than the tensor has dims");
  out.assign(repeats.size() - q.rank(0), 1);
  out.append(q.shape(0).begin(), q.shape(0).end());
  for (auto [s, r] : llvm::zip(out, repeats))
    s = s == kDyn ? kDyn : s * r;
  return success();
}

/// The first piece of split (split_size), split_with_sizes, unsafe_chunk (chunks) and
/// unbind along `dim`: the verifier checks result 0.
LogicalResult firstPiece(ShapeQuery &q, Shape &out) {
  int64_t dim = q.intAttr("dim").value_or(0);
  FailureOr<int64_t> d = q.dim(dim, q.rank(0));
  if (failed(d))
    return failure();
  int64_t size = q.rank(0) ? q.shape(0)[*d] : 1;
  int64_t piece;
  if (auto sizes = q.arrayAttr("split_sizes"))
    piece = sizes->empty() ? 0 : sizes->front();
  else if (auto splitSize = q.intAttr("split_size"))
    piece = size == kDyn ? kDyn : std::min(*splitSize, size);
  else if (auto chunks = q.intAttr("chunks"))
    piece = size == kDyn || *chunks <= 0 ? kDyn : std::min((size + *chunks - 1) / *chunks, size);
  else
    piece = -1; // unbind: the dim goes away
  return withDim(q, out, dim, piece);
}

/// upsample_{nearest,bilinear}2d(.vec): N, C, then output_size; with scale factors
/// instead (the .vec form), the spatial sizes are left to the trace.
LogicalResult upsample2d(ShapeQuery &q, Shape &out) {
  if (q.rank(0) != 4)
    return q.fail("expects a 4-D input");
  out.assign(q.shape(0).begin(), q.shape(0).begin() + 2);
  std::optional<ArrayRef<int64_t>> size = q.arrayAttr("output_size");
  if (size && size->size() == 2)
    out.append(size->begin(), size->end());
  else
    out.append(2, kDyn);
  return success();
}

const llvm::StringMap<Rule> &rules() {
  static const llvm::StringMap<Rule> table = [] {
    llvm::StringMap<Rule> t;
    for (StringRef name : {"aten.relu",       "aten.gelu",       "aten.silu",
                           "aten.sigmoid",    "aten.tanh",       "aten.neg",
                           "aten.exp",        "aten.log",        "aten.erf",
                           "aten.sqrt",       "aten.rsqrt",      "aten.abs",
                           "aten.add.Scalar", "aten.sub.Scalar", "aten.rsub.Scalar",
                           "aten.mul.Scalar", "aten.div.Scalar", "aten.pow.Tensor_Scalar",
                           "aten.clone",      "aten.contiguous", "aten.detach",
                           "aten.alias",      "aten._to_copy",   "aten.cos",
                           "aten.sin",        "aten.cumsum"})
      t[name] = sameAsSelf;
    for (StringRef name : {"aten.add.Tensor", "aten.sub.Tensor", "aten.mul.Tensor",
                           "aten.div.Tensor", "aten.maximum", "aten.minimum"})
      t[name] = broadcastOperands;
    for (StringRef name : {"aten.view", "aten.reshape", "aten._unsafe_view"})
      t[name] = view;
    t["aten.t"] = transposeTwoDims;
    t["aten.transpose.int"] = transposeTwoDims;
    t["aten.permute"] = permute;
    t["aten.mm"] = mm;
    t["aten.addmm"] = addmm;
    t["aten.bmm"] = bmm;
    t["aten.matmul"] = matmul;
    t["aten.linear"] = linear;
    t["aten.expand"] = expand;
    t["aten.unsqueeze"] = unsqueeze;
    t["aten.squeeze.dim"] = squeezeDim;
    for (StringRef name : {"aten._softmax",
                           "aten._safe_softmax",
                           "aten._log_softmax",
                           "aten.softmax.int",
                           "aten.log_softmax.int",
                           "aten.tril",
                           "aten.triu",
                           "aten.logical_not",
                           "aten.bitwise_not",
                           "aten.lift_fresh",
                           "aten.masked_fill.Scalar",
                           "aten.masked_fill.Tensor",
                           "aten.masked_fill_.Scalar",
                           "aten.zeros_like",
                           "aten.ones_like",
                           "aten.full_like",
                           "aten.empty_like",
                           "aten.pow.Scalar",
                           "aten.eq.Scalar",
                           "aten.ne.Scalar",
                           "aten.lt.Scalar",
                           "aten.le.Scalar",
                           "aten.gt.Scalar",
                           "aten.ge.Scalar"})
      t[name] = sameAsSelf;
    for (StringRef name : {"aten.where.self", "aten.bitwise_and.Tensor", "aten.bitwise_or.Tensor",
                           "aten.logical_and", "aten.logical_or", "aten.eq.Tensor",
                           "aten.ne.Tensor", "aten.lt.Tensor", "aten.le.Tensor", "aten.gt.Tensor",
                           "aten.ge.Tensor", "aten.pow.Tensor_Tensor"})
      t[name] = broadcastOperands;
    for (StringRef name :
         {"aten.full", "aten.zeros", "aten.ones", "aten.new_zeros", "aten.new_ones",
          "aten.new_full", "aten.empty.memory_format", "aten.empty_strided"})
      t[name] = sizeAttr;
    for (StringRef name : {"aten.arange", "aten.arange.start", "aten.arange.start_step"})
      t[name] = arange;
    t["aten.linspace"] = linspace;
    t["aten.scalar_tensor"] = scalarShape;
    t["aten.all"] = scalarShape;
    t["aten.any"] = scalarShape;
    t["aten.index.Tensor"] = indexTensor;
    t["aten.baddbmm"] = baddbmm;
    t["aten.scaled_dot_product_attention"] = attention;
    t["aten._scaled_dot_product_flash_attention_for_cpu"] = attention;
    t["aten.embedding"] = embedding;
    t["aten.index_select"] = indexSelect;
    t["aten.gather"] = gatherAlongDim;
    t["aten.slice.Tensor"] = sliceTensor;
    t["aten.select.int"] = selectInt;
    t["aten.squeeze"] = squeezeDims;
    t["aten.squeeze.dims"] = squeezeDims;
    t["aten.stack"] = stack;
    for (StringRef name :
         {"aten.hardtanh", "aten.hardswish", "aten.hardsigmoid", "aten.relu_", "aten.hardtanh_",
          "aten.hardswish_", "aten.hardsigmoid_", "aten.silu_", "aten.sigmoid_", "aten.mul_.Tensor",
          "aten.native_batch_norm", "aten._native_batch_norm_legit_no_training"})
      t[name] = sameAsSelf;
    for (StringRef name : {"aten.mean.dim", "aten.sum.dim_IntList", "aten.amax", "aten.amin"})
      t[name] = reduceDims;
    t["aten.convolution"] = convolution;
    t["aten.max_pool2d_with_indices"] = pool<2>;
    t["aten.avg_pool2d"] = pool<2>;
    t["aten._adaptive_avg_pool2d"] = adaptivePool<2>;
    t["aten._cdist_forward"] = cdist;
    t["aten._pdist_forward"] = pdist;
    t["aten.grid_sampler_2d"] = gridSampler2d;
    t["aten.col2im"] = col2im;
    t["aten.max_pool3d_with_indices"] = pool<3>;
    t["aten.avg_pool3d"] = pool<3>;
    t["aten._adaptive_avg_pool3d"] = adaptivePool<3>;
    t["aten.constant_pad_nd"] = constantPadNd;
    // In-place forms and ops whose (first) result has the input's shape.
    for (StringRef name : {"aten.add_.Tensor",
                           "aten.sub_.Tensor",
                           "aten.div_.Tensor",
                           "aten.add_.Scalar",
                           "aten.sub_.Scalar",
                           "aten.mul_.Scalar",
                           "aten.div_.Scalar",
                           "aten.tanh_",
                           "aten.masked_fill_.Tensor",
                           "aten.fill_.Scalar",
                           "aten.fill.Scalar",
                           "aten.zero_",
                           "aten.zero",
                           "aten.copy_",
                           "aten.index_copy_",
                           "aten.index_copy",
                           "aten.roll",
                           "aten.native_layer_norm",
                           "aten.native_group_norm",
                           "aten.sort",
                           "aten.sort.stable"})
      t[name] = sameAsSelf;
    t["aten.transpose_"] = transposeTwoDims;
    t["aten.t_"] = transposeTwoDims;
    t["aten.unsqueeze_"] = unsqueeze;
    t["aten.squeeze_.dim"] = squeezeDim;
    t["aten.squeeze_"] = squeezeDims;
    t["aten.squeeze_.dims"] = squeezeDims;
    t["aten._reshape_alias"] = view;
    for (StringRef name : {"aten.sum", "aten.max", "aten.min"})
      t[name] = scalarShape;
    t["aten.adaptive_max_pool2d"] = adaptivePool<2>;
    t["aten.cat"] = cat;
    for (StringRef name : {"aten.argmax", "aten.argmin", "aten.max.dim", "aten.min.dim"})
      t[name] = reduceOneDim;
    t["aten.topk"] = topk;
    // The Core ATen opset's elementwise ops, reductions, flip, copy and gather pads.
    for (StringRef name : {"aten.acos",
                           "aten.acosh",
                           "aten.asin",
                           "aten.asinh",
                           "aten.atan",
                           "aten.atanh",
                           "aten.cosh",
                           "aten.sinh",
                           "aten.tan",
                           "aten.expm1",
                           "aten.log1p",
                           "aten.log2",
                           "aten.log10",
                           "aten.ceil",
                           "aten.floor",
                           "aten.round",
                           "aten.trunc",
                           "aten.sign",
                           "aten.reciprocal",
                           "aten.isinf",
                           "aten.isnan",
                           "aten.clamp",
                           "aten.elu",
                           "aten.leaky_relu",
                           "aten.fmod.Scalar",
                           "aten.remainder.Scalar",
                           "aten.div.Scalar_mode",
                           "aten.bitwise_and.Scalar",
                           "aten.bitwise_or.Scalar",
                           "aten.bitwise_xor.Scalar",
                           "aten.flip",
                           "aten.copy",
                           "aten.slice_scatter",
                           "aten.select_scatter"})
      t[name] = sameAsSelf;
    for (StringRef name :
         {"aten.atan2", "aten.logical_xor", "aten.clamp.Tensor", "aten.fmod.Tensor",
          "aten.remainder.Tensor", "aten.div.Tensor_mode", "aten.bitwise_xor.Tensor"})
      t[name] = broadcastOperands;
    for (StringRef name : {"aten.any.dims", "aten.var.correction", "aten.var.dim"})
      t[name] = reduceDims;
    for (StringRef name : {"aten.any.dim", "aten.prod.dim_int"})
      t[name] = reduceOneDim;
    for (StringRef name : {"aten.prod", "aten.mean"})
      t[name] = scalarShape;
    for (StringRef name :
         {"aten.reflection_pad1d", "aten.reflection_pad2d", "aten.reflection_pad3d",
          "aten.replication_pad2d", "aten.replication_pad3d"})
      t[name] = gatherPad;
    t["aten.repeat"] = repeat;
    t["aten._grouped_mm"] = groupedMatmul;
    t["aten.histc"] = histogram;
    t["aten.nonzero"] = coordinates;
    t["aten.torchvision_nms"] = keptBoxes;
    t["aten.linalg_vector_norm"] = reduceDims;
    for (StringRef name :
         {"aten.clamp_min", "aten.clamp_max", "aten.clamp_min_", "aten.clamp_min_.Tensor"})
      t[name] = sameAsSelf;
    for (StringRef name :
         {"aten.clamp_min.Tensor", "aten.clamp_max.Tensor", "aten.addcmul", "aten.addcdiv"})
      t[name] = broadcastOperands;
    t["aten.leaky_relu_"] = sameAsSelf;
    t["aten.floor_divide.Scalar"] = sameAsSelf;
    t["aten.floor_divide"] = broadcastOperands;
    t["aten.floor_divide_.Tensor"] = sameAsSelf;
    for (StringRef name : {"aten.upsample_bicubic2d", "aten.upsample_bicubic2d.vec"})
      t[name] = upsample2d;
    for (StringRef name : {"aten.split.Tensor", "aten.split_with_sizes", "aten.unbind.int",
                           "aten.unsafe_split.Tensor", "aten.unsafe_chunk"})
      t[name] = firstPiece;
    for (StringRef name : {"aten.upsample_nearest2d", "aten.upsample_nearest2d.vec",
                           "aten.upsample_bilinear2d", "aten.upsample_bilinear2d.vec"})
      t[name] = upsample2d;
    return t;
  }();
  return table;
}

} // namespace

std::optional<FailureOr<SmallVector<int64_t>>> inferResultShape(Operation *op, bool diagnose) {
  auto it = rules().find(op->getName().getStringRef());
  if (it == rules().end())
    return std::nullopt;
  ShapeQuery query(op, diagnose);
  Shape shape;
  if (failed(it->second(query, shape)))
    return FailureOr<Shape>(failure());
  return FailureOr<Shape>(std::move(shape));
}

namespace {
LogicalResult verifyResultShape(Operation *op) {
  std::optional<FailureOr<Shape>> expected = inferResultShape(op, /*diagnose=*/true);
  if (!expected)
    return success();
  if (failed(*expected))
    return failure();
  auto actual = cast<RankedTensorType>(op->getResult(0).getType()).getShape();
  if (actual.size() != (*expected)->size())
    return op->emitOpError("result rank ")
           << actual.size() << " differs from the expected rank " << (*expected)->size();
  for (auto [i, a, e] : llvm::enumerate(actual, **expected))
    if (a != kDyn && e != kDyn && a != e)
      return op->emitOpError("result dim ") << i << " has size " << a << ", expected " << e;
  return success();
}
} // namespace

/// Result shapes, then result element types (AtenDtypeRules.cpp).
LogicalResult verifyAtenOp(Operation *op) {
  if (failed(verifyResultShape(op)))
    return failure();
  return verifyResultDtypes(op);
}

} // namespace pt2c::aten
