// The aten dtype rules (ir/aten/AtenDtypeRules.h): PyTorch's promotion table, the
// ScalarType numbering, rules applied to parsed ops, and that every op of the dialect
// has a rule or a stated reason to be trusted.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "ir/Dialects.h"
#include "ir/artifact/pt2c.pb.h"
#include "ir/aten/AtenDialect.h"
#include "ir/aten/AtenDtypeRules.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"

namespace {

using pt2c::aten::promoteTypes;

struct Context {
  mlir::MLIRContext ctx;
  Context() {
    mlir::DialectRegistry registry;
    pt2c::registerAllDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }
  mlir::Type type(const char *name) { return mlir::parseType(name, &ctx); }
};

TEST_CASE("promoteTypes follows torch.promote_types") {
  Context c;
  // (a, b, torch.promote_types(a, b)) for every pair of the ten dtypes, printed by
  // torch 2.15.
  const char *table[][3] = {
      {"i1", "i1", "i1"},      {"i1", "ui8", "ui8"},     {"i1", "i8", "i8"},
      {"i1", "i16", "i16"},    {"i1", "i32", "i32"},     {"i1", "i64", "i64"},
      {"i1", "f16", "f16"},    {"i1", "bf16", "bf16"},   {"i1", "f32", "f32"},
      {"i1", "f64", "f64"},    {"ui8", "ui8", "ui8"},    {"ui8", "i8", "i16"},
      {"ui8", "i16", "i16"},   {"ui8", "i32", "i32"},    {"ui8", "i64", "i64"},
      {"ui8", "f16", "f16"},   {"ui8", "bf16", "bf16"},  {"ui8", "f32", "f32"},
      {"ui8", "f64", "f64"},   {"i8", "i8", "i8"},       {"i8", "i16", "i16"},
      {"i8", "i32", "i32"},    {"i8", "i64", "i64"},     {"i8", "f16", "f16"},
      {"i8", "bf16", "bf16"},  {"i8", "f32", "f32"},     {"i8", "f64", "f64"},
      {"i16", "i16", "i16"},   {"i16", "i32", "i32"},    {"i16", "i64", "i64"},
      {"i16", "f16", "f16"},   {"i16", "bf16", "bf16"},  {"i16", "f32", "f32"},
      {"i16", "f64", "f64"},   {"i32", "i32", "i32"},    {"i32", "i64", "i64"},
      {"i32", "f16", "f16"},   {"i32", "bf16", "bf16"},  {"i32", "f32", "f32"},
      {"i32", "f64", "f64"},   {"i64", "i64", "i64"},    {"i64", "f16", "f16"},
      {"i64", "bf16", "bf16"}, {"i64", "f32", "f32"},    {"i64", "f64", "f64"},
      {"f16", "f16", "f16"},   {"f16", "bf16", "f32"},   {"f16", "f32", "f32"},
      {"f16", "f64", "f64"},   {"bf16", "bf16", "bf16"}, {"bf16", "f32", "f32"},
      {"bf16", "f64", "f64"},  {"f32", "f32", "f32"},    {"f32", "f64", "f64"},
      {"f64", "f64", "f64"},
  };
  for (auto &row : table) {
    INFO(row[0] << " with " << row[1]);
    CHECK(promoteTypes(c.type(row[0]), c.type(row[1])) == c.type(row[2]));
    CHECK(promoteTypes(c.type(row[1]), c.type(row[0])) == c.type(row[2]));
  }
  // An undefined (null) type gives way to the other.
  CHECK(promoteTypes(mlir::Type(), c.type("f16")) == c.type("f16"));
}

TEST_CASE("ScalarType attributes hold pt2c DType numbers") {
  Context c;
  using pt2c::artifact::DType;
  auto of = [&](int d) { return pt2c::aten::elementTypeOfScalarType(&c.ctx, d); };
  CHECK(of(DType::F32) == c.type("f32"));
  CHECK(of(DType::BF16) == c.type("bf16"));
  CHECK(of(DType::I64) == c.type("i64"));
  CHECK(of(DType::U8) == c.type("ui8"));
  CHECK(of(DType::BOOL) == c.type("i1"));
  CHECK(!of(DType::DTYPE_UNSPECIFIED));
  CHECK(!of(99));
}

TEST_CASE("inferResultDtypes applies the rules to an op") {
  Context c;
  const char *source = R"mlir(
    func.func @f(%i: tensor<3xi64>, %h: tensor<3xf16>, %z: tensor<f64>) {
      %0 = "aten.add.Tensor"(%i, %z) : (tensor<3xi64>, tensor<f64>) -> tensor<3xf64>
      %1 = "aten.add.Tensor"(%h, %z) : (tensor<3xf16>, tensor<f64>) -> tensor<3xf16>
      %2 = "aten.div.Tensor"(%i, %i) : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xf32>
      %3:2 = "aten.sort"(%h) : (tensor<3xf16>) -> (tensor<3xf16>, tensor<3xi64>)
      return
    })mlir";
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &c.ctx);
  REQUIRE(module);
  std::vector<std::vector<std::string>> got;
  module->walk([&](mlir::Operation *op) {
    if (!llvm::isa<pt2c::aten::AtenDialect>(op->getDialect()))
      return;
    auto types = pt2c::aten::inferResultDtypes(op, /*diagnose=*/false);
    REQUIRE(types);
    REQUIRE(mlir::succeeded(*types));
    std::vector<std::string> names;
    for (mlir::Type t : **types) {
      std::string s;
      llvm::raw_string_ostream os(s);
      os << t;
      names.push_back(s);
    }
    got.push_back(names);
  });
  using V = std::vector<std::string>;
  CHECK(got == std::vector<V>{V{"f64"}, V{"f16"}, V{"f32"}, V{"f16", "i64"}});
}

TEST_CASE("inferResultDtypes fails, quietly if asked, where PyTorch refuses") {
  Context c;
  const char *source = R"mlir(
    func.func @f(%a: tensor<2x3xf16>, %b: tensor<3x2xf32>) {
      %0 = "aten.mm"(%a, %b) : (tensor<2x3xf16>, tensor<3x2xf32>) -> tensor<2x2xf16>
      return
    })mlir";
  // The parser verifies the module: the mismatch is reported as a diagnostic.
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&c.ctx, [&](mlir::Diagnostic &d) {
    diagnostics += d.str();
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &c.ctx);
  CHECK(!module);
  CHECK(diagnostics.find("expects operands of one dtype") != std::string::npos);
}

TEST_CASE("every aten op has a dtype rule or a reason to be trusted") {
  Context c;
  std::vector<std::string> withRule = pt2c::aten::atenOpsWithDtypeRules();
  std::vector<std::string> missing;
  size_t atenOps = 0;
  for (mlir::RegisteredOperationName name : c.ctx.getRegisteredOperations()) {
    if (name.getDialectNamespace() != "aten")
      continue;
    ++atenOps;
    std::string op = name.getStringRef().str();
    bool ruled = std::binary_search(withRule.begin(), withRule.end(), op);
    if (!ruled && !pt2c::aten::dtypeTrustReason(op))
      missing.push_back(op);
  }
  std::string list;
  for (const std::string &op : missing)
    list += " " + op;
  INFO("aten ops without a dtype rule or a trust reason (ir/aten/AtenDtypeRules.cpp):" << list);
  CHECK(atenOps >= 176);
  CHECK(missing.empty());
}

} // namespace
