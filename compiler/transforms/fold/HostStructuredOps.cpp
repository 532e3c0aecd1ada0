#include "compiler/transforms/fold/HostStructuredOps.h"

#include <algorithm>
#include <cmath>

#include "compiler/transforms/fold/HostElements.h"
#include "ir/prim/PrimDialect.h"
#include "llvm/ADT/TypeSwitch.h"

namespace pt2c::fold {
namespace {

using llvm::ArrayRef;
using mlir::RankedTensorType;
using prim::ReduceKind;

// Matrix products and windowed reductions up to this many terms are evaluated on the
// host (a rotary table's outer product or a mask's running sum over 1024 positions is
// about a million); bigger ones stay on the device, where they are fast anyway.
constexpr int64_t kMaxTerms = int64_t(1) << 24;

int64_t product(ArrayRef<int64_t> sizes) {
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  return n;
}

// Calls f(index, linear) for every index of `shape`, in row-major order.
template <typename F> void forEachIndex(ArrayRef<int64_t> shape, F f) {
  llvm::SmallVector<int64_t> index(shape.size(), 0);
  for (int64_t i = 0, n = product(shape); i < n; ++i) {
    f(ArrayRef<int64_t>(index), i);
    for (int d = (int)shape.size() - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}

// result[index] = in[offset + sum_d index[d] * sourceStride[d]]: broadcast, transpose
// and slice (sourceStride 0 along a broadcast dim).
HostTensor gatherElements(const HostTensor &in, RankedTensorType type, int64_t offset,
                          ArrayRef<int64_t> sourceStride) {
  HostTensor out = emptyTensor(type);
  forEachIndex(type.getShape(), [&](ArrayRef<int64_t> index, int64_t i) {
    int64_t source = offset;
    for (size_t d = 0; d < index.size(); ++d)
      source += index[d] * sourceStride[d];
    copyElement(out, i, in, source);
  });
  return out;
}

HostTensor broadcast(prim::BroadcastInDimOp op, const HostTensor &in, RankedTensorType type) {
  llvm::SmallVector<int64_t> stride(type.getRank(), 0);
  auto inStrides = stridesOf(in.type.getShape());
  for (auto [i, d] : llvm::enumerate(op.getBroadcastDimensions()))
    if (in.type.getDimSize(i) != 1)
      stride[d] = inStrides[i];
  return gatherElements(in, type, 0, stride);
}

HostTensor transpose(prim::TransposeOp op, const HostTensor &in, RankedTensorType type) {
  auto inStrides = stridesOf(in.type.getShape());
  llvm::SmallVector<int64_t> stride;
  for (int64_t p : op.getPermutation())
    stride.push_back(inStrides[p]);
  return gatherElements(in, type, 0, stride);
}

HostTensor slice(prim::SliceOp op, const HostTensor &in, RankedTensorType type) {
  auto inStrides = stridesOf(in.type.getShape());
  llvm::SmallVector<int64_t> stride;
  int64_t offset = 0;
  for (auto [d, start, step] : llvm::enumerate(op.getStartIndices(), op.getStrides())) {
    offset += start * inStrides[d];
    stride.push_back(step * inStrides[d]);
  }
  return gatherElements(in, type, offset, stride);
}

HostTensor iota(prim::IotaOp op, RankedTensorType type) {
  HostTensor out = emptyTensor(type);
  int64_t dim = op.getIotaDimension(), size = type.getDimSize(dim);
  int64_t stride = stridesOf(type.getShape())[dim];
  mlir::Type e = type.getElementType();
  for (int64_t i = 0, n = type.getNumElements(); i < n; ++i) {
    int64_t v = (i / stride) % size;
    if (out.isFloat())
      out.floats[i] = roundFloat((double)v, e);
    else
      out.ints[i] = wrapInt(v, e);
  }
  return out;
}

HostTensor concatenate(prim::ConcatenateOp op, ArrayRef<const HostTensor *> in,
                       RankedTensorType type) {
  HostTensor out = emptyTensor(type);
  ArrayRef<int64_t> shape = type.getShape();
  int64_t dim = op.getDimension();
  int64_t outer = product(shape.take_front(dim)), inner = product(shape.drop_front(dim + 1));
  int64_t at = 0; // where the current operand starts along `dim`
  for (const HostTensor *t : in) {
    int64_t size = t->type.getDimSize(dim), block = size * inner;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t k = 0; k < block; ++k)
        copyElement(out, (o * shape[dim] + at) * inner + k, *t, o * block + k);
    at += size;
  }
  return out;
}

HostTensor pad(prim::PadOp op, const HostTensor &in, const HostTensor &value,
               RankedTensorType type) {
  HostTensor out = emptyTensor(type);
  for (int64_t i = 0, n = out.numElements(); i < n; ++i)
    copyElement(out, i, value, 0);
  auto outStrides = stridesOf(type.getShape());
  ArrayRef<int64_t> low = op.getEdgePaddingLow();
  forEachIndex(in.type.getShape(), [&](ArrayRef<int64_t> index, int64_t i) {
    int64_t o = 0;
    for (size_t d = 0; d < index.size(); ++d)
      o += (index[d] + low[d]) * outStrides[d];
    copyElement(out, o, in, i);
  });
  return out;
}

// result[p, j, s] = operand[p, clamp(indices[p[:batch_dims], j]), s] (PrimOps.td).
HostTensor gather(prim::GatherOp op, const HostTensor &operand, const HostTensor &indices,
                  RankedTensorType type) {
  HostTensor out = emptyTensor(type);
  int64_t axis = op.getAxis(), batch = op.getBatchDims();
  int64_t rank = operand.type.getRank(), jRank = indices.type.getRank() - batch;
  int64_t axisSize = operand.type.getDimSize(axis);
  auto opStrides = stridesOf(operand.type.getShape());
  auto idxStrides = stridesOf(indices.type.getShape());
  forEachIndex(type.getShape(), [&](ArrayRef<int64_t> r, int64_t i) {
    int64_t at = 0;
    for (int64_t d = 0; d < batch; ++d)
      at += r[d] * idxStrides[d];
    for (int64_t k = 0; k < jRank; ++k)
      at += r[axis + k] * idxStrides[batch + k];
    int64_t source = std::clamp<int64_t>(indices.ints[at], 0, axisSize - 1) * opStrides[axis];
    for (int64_t d = 0; d < axis; ++d)
      source += r[d] * opStrides[d];
    for (int64_t d = axis + 1; d < rank; ++d)
      source += r[d - 1 + jRank] * opStrides[d];
    copyElement(out, i, operand, source);
  });
  return out;
}

// Combines elements into an accumulator tensor (double or int64 per element) and rounds
// once at the end: the device's order of combination is unspecified anyway.
class Accumulator {
public:
  Accumulator(ReduceKind kind, RankedTensorType type, const HostTensor &init)
      : kind(kind), out(emptyTensor(type)) {
    for (int64_t i = 0, n = out.numElements(); i < n; ++i)
      copyElement(out, i, init, 0);
  }

  // AND and OR are for i1 only (PrimOps.td).
  bool valid() const {
    return !out.isFloat() || (kind != ReduceKind::AND && kind != ReduceKind::OR);
  }

  void add(int64_t i, const HostTensor &in, int64_t j) {
    if (out.isFloat()) {
      double &a = out.floats[i], b = in.floats[j];
      bool nan = std::isnan(a) || std::isnan(b);
      switch (kind) {
      case ReduceKind::SUM:
        a += b;
        break;
      case ReduceKind::PROD:
        a *= b;
        break;
      case ReduceKind::MAX:
        a = nan ? NAN : std::max(a, b);
        break;
      case ReduceKind::MIN:
        a = nan ? NAN : std::min(a, b);
        break;
      default:
        break;
      }
      return;
    }
    int64_t &a = out.ints[i], b = in.ints[j];
    switch (kind) {
    case ReduceKind::SUM:
      a = int64_t(uint64_t(a) + uint64_t(b));
      break;
    case ReduceKind::PROD:
      a = int64_t(uint64_t(a) * uint64_t(b));
      break;
    case ReduceKind::MAX:
      a = std::max(a, b);
      break;
    case ReduceKind::MIN:
      a = std::min(a, b);
      break;
    case ReduceKind::AND:
      a &= b;
      break;
    case ReduceKind::OR:
      a |= b;
      break;
    }
  }

  HostTensor result() {
    mlir::Type e = out.type.getElementType();
    for (double &x : out.floats)
      x = roundFloat(x, e);
    for (int64_t &x : out.ints)
      x = wrapInt(x, e);
    return std::move(out);
  }

private:
  ReduceKind kind;
  HostTensor out;
};

std::optional<HostTensor> reduce(prim::ReduceOp op, const HostTensor &in, const HostTensor &init,
                                 RankedTensorType type) {
  Accumulator acc(op.getKind(), type, init);
  if (!acc.valid())
    return std::nullopt;
  // The result's stride for each operand dim (0 for a reduced one).
  auto outStrides = stridesOf(type.getShape());
  llvm::SmallVector<int64_t> stride;
  for (int64_t d = 0, kept = 0; d < in.type.getRank(); ++d)
    stride.push_back(llvm::is_contained(op.getDimensions(), d) ? 0 : outStrides[kept++]);
  forEachIndex(in.type.getShape(), [&](ArrayRef<int64_t> index, int64_t i) {
    int64_t o = 0;
    for (size_t d = 0; d < index.size(); ++d)
      o += index[d] * stride[d];
    acc.add(o, in, i);
  });
  return acc.result();
}

std::optional<HostTensor> reduceWindow(prim::ReduceWindowOp op, const HostTensor &in,
                                       const HostTensor &init, RankedTensorType type) {
  ArrayRef<int64_t> window = op.getWindowDimensions(), strides = op.getWindowStrides(),
                    dilations = op.getWindowDilations(), low = op.getPaddingLow();
  if (type.getNumElements() > kMaxTerms / std::max<int64_t>(1, product(window)))
    return std::nullopt;
  Accumulator acc(op.getKind(), type, init);
  if (!acc.valid())
    return std::nullopt;
  ArrayRef<int64_t> inShape = in.type.getShape();
  auto inStrides = stridesOf(inShape);
  forEachIndex(type.getShape(), [&](ArrayRef<int64_t> o, int64_t i) {
    forEachIndex(window, [&](ArrayRef<int64_t> w, int64_t) {
      int64_t source = 0;
      for (size_t d = 0; d < o.size(); ++d) {
        int64_t p = o[d] * strides[d] + w[d] * dilations[d] - low[d];
        if (p < 0 || p >= inShape[d])
          return acc.add(i, init, 0); // the padding holds `init`
        source += p * inStrides[d];
      }
      acc.add(i, in, source);
    });
  });
  return acc.result();
}

// The dims of a `rank`-d operand that are neither batch nor contracting, in order.
llvm::SmallVector<int64_t> freeDims(int64_t rank, ArrayRef<int64_t> batch,
                                    ArrayRef<int64_t> contracting) {
  llvm::SmallVector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(batch, d) && !llvm::is_contained(contracting, d))
      dims.push_back(d);
  return dims;
}

// Result dims: batch, lhs free, rhs free (PrimOps.td); products summed in double (or
// int64) and rounded once, as a product with a wide accumulator rounds.
std::optional<HostTensor> dotGeneral(prim::DotGeneralOp op, const HostTensor &lhs,
                                     const HostTensor &rhs, RankedTensorType type) {
  ArrayRef<int64_t> lb = op.getLhsBatchingDimensions(), rb = op.getRhsBatchingDimensions(),
                    lc = op.getLhsContractingDimensions(), rc = op.getRhsContractingDimensions();
  llvm::SmallVector<int64_t> contracted;
  for (int64_t d : lc)
    contracted.push_back(lhs.type.getDimSize(d));
  if (type.getNumElements() > kMaxTerms / std::max<int64_t>(1, product(contracted)))
    return std::nullopt;
  auto lf = freeDims(lhs.type.getRank(), lb, lc), rf = freeDims(rhs.type.getRank(), rb, rc);
  auto ls = stridesOf(lhs.type.getShape()), rs = stridesOf(rhs.type.getShape());
  HostTensor out = emptyTensor(type);
  mlir::Type e = type.getElementType();
  forEachIndex(type.getShape(), [&](ArrayRef<int64_t> r, int64_t i) {
    int64_t l0 = 0, r0 = 0;
    size_t at = 0;
    for (size_t k = 0; k < lb.size(); ++k, ++at)
      l0 += r[at] * ls[lb[k]], r0 += r[at] * rs[rb[k]];
    for (int64_t d : lf)
      l0 += r[at++] * ls[d];
    for (int64_t d : rf)
      r0 += r[at++] * rs[d];
    double sum = 0;
    uint64_t isum = 0;
    forEachIndex(contracted, [&](ArrayRef<int64_t> c, int64_t) {
      int64_t li = l0, ri = r0;
      for (size_t k = 0; k < c.size(); ++k)
        li += c[k] * ls[lc[k]], ri += c[k] * rs[rc[k]];
      if (out.isFloat())
        sum += lhs.floats[li] * rhs.floats[ri];
      else
        isum += uint64_t(lhs.ints[li]) * uint64_t(rhs.ints[ri]);
    });
    if (out.isFloat())
      out.floats[i] = roundFloat(sum, e);
    else
      out.ints[i] = wrapInt(int64_t(isum), e);
  });
  return out;
}

} // namespace

bool isStructuredOp(mlir::Operation *op) {
  return llvm::isa<prim::BroadcastInDimOp, prim::ReshapeOp, prim::TransposeOp, prim::SliceOp,
                   prim::ConcatenateOp, prim::PadOp, prim::GatherOp, prim::IotaOp, prim::ReduceOp,
                   prim::ReduceWindowOp, prim::DotGeneralOp>(op);
}

std::optional<HostTensor> evaluateStructured(mlir::Operation *op, ArrayRef<const HostTensor *> in,
                                             RankedTensorType type) {
  using Result = std::optional<HostTensor>;
  return llvm::TypeSwitch<mlir::Operation *, Result>(op)
      .Case([&](prim::BroadcastInDimOp b) { return broadcast(b, *in[0], type); })
      .Case([&](prim::ReshapeOp) {
        HostTensor out = *in[0];
        out.type = type;
        return out;
      })
      .Case([&](prim::TransposeOp t) { return transpose(t, *in[0], type); })
      .Case([&](prim::SliceOp s) { return slice(s, *in[0], type); })
      .Case([&](prim::ConcatenateOp c) { return concatenate(c, in, type); })
      .Case([&](prim::PadOp p) { return pad(p, *in[0], *in[1], type); })
      .Case([&](prim::GatherOp g) { return gather(g, *in[0], *in[1], type); })
      .Case([&](prim::IotaOp i) { return iota(i, type); })
      .Case([&](prim::ReduceOp r) { return reduce(r, *in[0], *in[1], type); })
      .Case([&](prim::ReduceWindowOp r) { return reduceWindow(r, *in[0], *in[1], type); })
      .Case([&](prim::DotGeneralOp d) { return dotGeneral(d, *in[0], *in[1], type); })
      .Default([](mlir::Operation *) { return std::nullopt; });
}

} // namespace pt2c::fold
