#include "compiler/transforms/fold/HostEvaluator.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "compiler/transforms/fold/HostElements.h"
#include "compiler/transforms/fold/HostStructuredOps.h"
#include "ir/contract/StorageBytes.h"
#include "ir/prim/PrimDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/TypeSwitch.h"

namespace pt2c::fold {
namespace {

using mlir::RankedTensorType;
using mlir::Type;

// f16 and bf16 go through APFloat: round to nearest, ties to even, as a conversion does.
const llvm::fltSemantics &halfSemantics(Type t) {
  return t.isF16() ? llvm::APFloat::IEEEhalf() : llvm::APFloat::BFloat();
}

// `x` as an f16 or bf16 (`t`) value.
llvm::APFloat toHalf(double x, Type t) {
  llvm::APFloat v(x);
  bool lost = false;
  v.convert(halfSemantics(t), llvm::APFloat::rmNearestTiesToEven, &lost);
  return v;
}

std::optional<HostTensor> convert(RankedTensorType type, const HostTensor &in) {
  HostTensor out = emptyTensor(type);
  Type to = type.getElementType();
  for (int64_t i = 0, n = in.numElements(); i < n; ++i) {
    if (out.isFloat()) {
      out.floats[i] = roundFloat(in.isFloat() ? in.floats[i] : (double)in.ints[i], to);
    } else if (to.isInteger(1)) {
      out.ints[i] = in.isFloat() ? in.floats[i] != 0.0 : in.ints[i] != 0;
    } else if (in.isFloat()) {
      // float -> int truncates; out of range is undefined behaviour in the kernels too.
      double x = std::trunc(in.floats[i]);
      if (!(x >= -9.2e18 && x <= 9.2e18))
        return std::nullopt;
      int64_t v = (int64_t)x;
      if (wrapInt(v, to) != v)
        return std::nullopt;
      out.ints[i] = v;
    } else {
      out.ints[i] = wrapInt(in.ints[i], to);
    }
  }
  return out;
}

template <typename F>
std::optional<HostTensor> unaryFloat(RankedTensorType type, const HostTensor &in, F f) {
  if (!in.isFloat())
    return std::nullopt;
  HostTensor out = emptyTensor(type);
  for (int64_t i = 0, n = in.numElements(); i < n; ++i)
    out.floats[i] = roundFloat(f(in.floats[i]), type.getElementType());
  return out;
}

template <typename FF, typename FI>
std::optional<HostTensor> unary(RankedTensorType type, const HostTensor &in, FF ff, FI fi) {
  if (in.isFloat())
    return unaryFloat(type, in, ff);
  HostTensor out = emptyTensor(type);
  for (int64_t i = 0, n = in.numElements(); i < n; ++i)
    out.ints[i] = wrapInt(fi(in.ints[i]), type.getElementType());
  return out;
}

// `fi` returns nullopt where the integer result is undefined.
template <typename FF, typename FI>
std::optional<HostTensor> binary(RankedTensorType type, const HostTensor &a, const HostTensor &b,
                                 FF ff, FI fi) {
  HostTensor out = emptyTensor(type);
  Type e = type.getElementType();
  for (int64_t i = 0, n = a.numElements(); i < n; ++i) {
    if (out.isFloat()) {
      out.floats[i] = roundFloat(ff(a.floats[i], b.floats[i]), e);
    } else {
      std::optional<int64_t> v = fi(a.ints[i], b.ints[i]);
      if (!v)
        return std::nullopt;
      out.ints[i] = wrapInt(*v, e);
    }
  }
  return out;
}

std::optional<int64_t> some(int64_t v) { return v; }

// Floats: NE is unordered (true with a NaN), the rest ordered, as PrimOps.td says; C's
// operators on doubles are exactly that. Integers hold their values (i1 as 0/1, ui8 as
// 0..255), so a signed comparison is the right one for every type.
std::optional<HostTensor> compare(pt2c::prim::CompareDirection direction, RankedTensorType type,
                                  const HostTensor &a, const HostTensor &b) {
  using D = pt2c::prim::CompareDirection;
  HostTensor out = emptyTensor(type);
  auto test = [&](auto x, auto y) {
    switch (direction) {
    case D::EQ:
      return x == y;
    case D::NE:
      return !(x == y);
    case D::LT:
      return x < y;
    case D::LE:
      return x <= y;
    case D::GT:
      return x > y;
    case D::GE:
      return x >= y;
    }
    return false;
  };
  for (int64_t i = 0, n = a.numElements(); i < n; ++i)
    out.ints[i] = a.isFloat() ? test(a.floats[i], b.floats[i]) : test(a.ints[i], b.ints[i]);
  return out;
}

std::optional<HostTensor> select(RankedTensorType type, const HostTensor &pred,
                                 const HostTensor &onTrue, const HostTensor &onFalse) {
  HostTensor out = emptyTensor(type);
  for (int64_t i = 0, n = out.numElements(); i < n; ++i)
    copyElement(out, i, pred.ints[i] ? onTrue : onFalse, i);
  return out;
}

double nanMax(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); }
double nanMin(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b); }

} // namespace

double roundFloat(double x, Type t) {
  if (t.isF32())
    return (double)(float)x;
  if (!t.isF16() && !t.isBF16())
    return x;
  return toHalf(x, t).convertToDouble();
}

int64_t wrapInt(int64_t x, Type t) {
  auto it = llvm::cast<mlir::IntegerType>(t);
  unsigned w = it.getWidth();
  if (w == 1)
    return x & 1;
  if (w >= 64)
    return x;
  uint64_t mask = (uint64_t(1) << w) - 1, u = uint64_t(x) & mask;
  if (it.isUnsigned())
    return int64_t(u);
  uint64_t sign = uint64_t(1) << (w - 1);
  return int64_t((u ^ sign) - sign);
}

HostTensor emptyTensor(RankedTensorType type) {
  HostTensor t;
  t.type = type;
  if (t.isFloat())
    t.floats.resize(type.getNumElements());
  else
    t.ints.resize(type.getNumElements());
  return t;
}

llvm::SmallVector<int64_t> stridesOf(llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t> s(shape.size(), 1);
  for (int i = (int)shape.size() - 2; i >= 0; --i)
    s[i] = s[i + 1] * shape[i + 1];
  return s;
}

bool isEvaluableType(Type type) {
  auto t = llvm::dyn_cast<RankedTensorType>(type);
  if (!t || !t.hasStaticShape())
    return false;
  Type e = t.getElementType();
  if (e.isF32() || e.isF64() || e.isF16() || e.isBF16())
    return true;
  auto it = llvm::dyn_cast<mlir::IntegerType>(e);
  return it && (it.isSignless() || (it.isUnsigned() && it.getWidth() == 8)) &&
         llvm::is_contained({1u, 8u, 16u, 32u, 64u}, it.getWidth());
}

std::optional<HostTensor> tensorFromBytes(RankedTensorType type, llvm::ArrayRef<char> bytes) {
  if (!isEvaluableType(type))
    return std::nullopt;
  Type e = type.getElementType();
  int64_t width = elementBytes(e), n = type.getNumElements();
  if ((int64_t)bytes.size() != n * width)
    return std::nullopt;
  HostTensor t = emptyTensor(type);
  const char *p = bytes.data();
  for (int64_t i = 0; i < n; ++i, p += width) {
    if (e.isF32()) {
      float f;
      std::memcpy(&f, p, 4);
      t.floats[i] = f;
    } else if (e.isF64()) {
      std::memcpy(&t.floats[i], p, 8);
    } else if (e.isF16() || e.isBF16()) {
      uint16_t bits;
      std::memcpy(&bits, p, 2);
      t.floats[i] = llvm::APFloat(halfSemantics(e), llvm::APInt(16, bits)).convertToDouble();
    } else {
      uint64_t raw = 0;
      std::memcpy(&raw, p, width); // little endian: the low bytes
      t.ints[i] = wrapInt((int64_t)raw, e);
    }
  }
  return t;
}

std::optional<HostTensor> tensorFromAttr(mlir::ElementsAttr attr) {
  auto type = llvm::dyn_cast<RankedTensorType>(attr.getType());
  if (!type || !isEvaluableType(type))
    return std::nullopt;
  if (auto resource = llvm::dyn_cast<mlir::DenseResourceElementsAttr>(attr)) {
    mlir::AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return std::nullopt;
    return tensorFromBytes(type, blob->getData());
  }
  auto dense = llvm::dyn_cast<mlir::DenseElementsAttr>(attr);
  if (!dense)
    return std::nullopt;
  HostTensor t = emptyTensor(type);
  int64_t n = type.getNumElements();
  if (t.isFloat()) {
    if (dense.isSplat())
      std::fill(t.floats.begin(), t.floats.end(),
                dense.getSplatValue<llvm::APFloat>().convertToDouble());
    else {
      int64_t i = 0;
      for (const llvm::APFloat &v : dense.getValues<llvm::APFloat>())
        t.floats[i++] = v.convertToDouble();
    }
  } else {
    auto value = [&](const llvm::APInt &v) {
      return wrapInt(v.getBitWidth() == 1 ? (int64_t)v.getZExtValue() : v.getSExtValue(),
                     type.getElementType());
    };
    if (dense.isSplat())
      std::fill(t.ints.begin(), t.ints.end(), value(dense.getSplatValue<llvm::APInt>()));
    else {
      int64_t i = 0;
      for (const llvm::APInt &v : dense.getValues<llvm::APInt>())
        t.ints[i++] = value(v);
    }
  }
  (void)n;
  return t;
}

std::string tensorToBytes(const HostTensor &t) {
  Type e = t.type.getElementType();
  int64_t width = elementBytes(e), n = t.numElements();
  std::string bytes(n * width, '\0');
  char *p = bytes.data();
  for (int64_t i = 0; i < n; ++i, p += width) {
    if (e.isF32()) {
      float f = (float)t.floats[i];
      std::memcpy(p, &f, 4);
    } else if (e.isF64()) {
      std::memcpy(p, &t.floats[i], 8);
    } else if (e.isF16() || e.isBF16()) {
      uint16_t bits = (uint16_t)toHalf(t.floats[i], e).bitcastToAPInt().getZExtValue();
      std::memcpy(p, &bits, 2);
    } else {
      uint64_t raw = (uint64_t)t.ints[i];
      std::memcpy(p, &raw, width);
    }
  }
  return bytes;
}

bool canEvaluate(mlir::Operation *op) {
  using namespace pt2c::prim;
  return llvm::isa<ConstantOp, NegOp, AbsOp, ExpOp, LogOp, TanhOp, ErfOp, SigmoidOp, SqrtOp,
                   RsqrtOp, SinOp, CosOp, FloorOp, CeilOp, TruncOp, RoundOp, AddOp, SubOp, MulOp,
                   DivOp, RemOp, MaxOp, MinOp, PowOp, CompareOp, SelectOp, ConvertOp>(op) ||
         isStructuredOp(op);
}

std::optional<HostTensor> evaluate(mlir::Operation *op, llvm::ArrayRef<const HostTensor *> in) {
  using namespace pt2c::prim;
  if (op->getNumResults() != 1 || !isEvaluableType(op->getResult(0).getType()))
    return std::nullopt;
  auto type = llvm::cast<RankedTensorType>(op->getResult(0).getType());
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  return llvm::TypeSwitch<mlir::Operation *, std::optional<HostTensor>>(op)
      .Case([&](ConstantOp c) { return tensorFromAttr(c.getValue()); })
      .Case([&](NegOp) {
        return unary(
            type, *in[0], [](double x) { return -x; }, [](int64_t x) { return 0 - (uint64_t)x; });
      })
      .Case([&](AbsOp) {
        return unary(
            type, *in[0], [](double x) { return std::fabs(x); },
            [](int64_t x) { return x < 0 ? 0 - (uint64_t)x : x; });
      })
      .Case([&](ExpOp) { return unaryFloat(type, *in[0], [](double x) { return std::exp(x); }); })
      .Case([&](LogOp) { return unaryFloat(type, *in[0], [](double x) { return std::log(x); }); })
      .Case([&](TanhOp) { return unaryFloat(type, *in[0], [](double x) { return std::tanh(x); }); })
      .Case([&](ErfOp) { return unaryFloat(type, *in[0], [](double x) { return std::erf(x); }); })
      .Case([&](SigmoidOp) {
        return unaryFloat(type, *in[0], [](double x) { return 1.0 / (1.0 + std::exp(-x)); });
      })
      .Case([&](SinOp) { return unaryFloat(type, *in[0], [](double x) { return std::sin(x); }); })
      .Case([&](CosOp) { return unaryFloat(type, *in[0], [](double x) { return std::cos(x); }); })
      .Case(
          [&](FloorOp) { return unaryFloat(type, *in[0], [](double x) { return std::floor(x); }); })
      .Case([&](CeilOp) { return unaryFloat(type, *in[0], [](double x) { return std::ceil(x); }); })
      .Case(
          [&](TruncOp) { return unaryFloat(type, *in[0], [](double x) { return std::trunc(x); }); })
      // Half to even, as torch.round (the default rounding mode).
      .Case([&](RoundOp) {
        return unaryFloat(type, *in[0], [](double x) { return std::nearbyint(x); });
      })
      .Case([&](SqrtOp) { return unaryFloat(type, *in[0], [](double x) { return std::sqrt(x); }); })
      .Case([&](RsqrtOp) {
        return unaryFloat(type, *in[0], [](double x) { return 1.0 / std::sqrt(x); });
      })
      .Case([&](AddOp) {
        return binary(
            type, *in[0], *in[1], [](double a, double b) { return a + b; },
            [](int64_t a, int64_t b) { return some((uint64_t)a + (uint64_t)b); });
      })
      .Case([&](SubOp) {
        return binary(
            type, *in[0], *in[1], [](double a, double b) { return a - b; },
            [](int64_t a, int64_t b) { return some((uint64_t)a - (uint64_t)b); });
      })
      .Case([&](MulOp) {
        return binary(
            type, *in[0], *in[1], [](double a, double b) { return a * b; },
            [](int64_t a, int64_t b) { return some((uint64_t)a * (uint64_t)b); });
      })
      .Case([&](DivOp) {
        return binary(
            type, *in[0], *in[1], [](double a, double b) { return a / b; },
            [&](int64_t a, int64_t b) -> std::optional<int64_t> {
              if (b == 0 || (a == kMin && b == -1))
                return std::nullopt;
              return a / b;
            });
      })
      .Case([&](MaxOp) {
        return binary(type, *in[0], *in[1], nanMax,
                      [](int64_t a, int64_t b) { return some(std::max(a, b)); });
      })
      .Case([&](MinOp) {
        return binary(type, *in[0], *in[1], nanMin,
                      [](int64_t a, int64_t b) { return some(std::min(a, b)); });
      })
      .Case([&](PowOp) {
        return binary(
            type, *in[0], *in[1], [](double a, double b) { return std::pow(a, b); },
            [](int64_t, int64_t) { return std::optional<int64_t>(); });
      })
      .Case([&](RemOp) {
        return binary(
            type, *in[0], *in[1], [](double a, double b) { return std::fmod(a, b); },
            [&](int64_t a, int64_t b) -> std::optional<int64_t> {
              if (b == 0 || (a == kMin && b == -1))
                return std::nullopt;
              return a % b;
            });
      })
      .Case([&](CompareOp c) { return compare(c.getDirection(), type, *in[0], *in[1]); })
      .Case([&](SelectOp) { return select(type, *in[0], *in[1], *in[2]); })
      .Case([&](ConvertOp) { return convert(type, *in[0]); })
      .Default([&](mlir::Operation *) { return evaluateStructured(op, in, type); });
}

} // namespace pt2c::fold
