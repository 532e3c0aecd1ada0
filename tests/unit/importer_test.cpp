// The importer: artifact graphs -> aten ops, schema parsing, and its diagnostics.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "compiler/import/Importer.h"
#include "compiler/import/SchemaArgs.h"
#include "ir/Dialects.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"

namespace {

using pt2c::artifact::Argument;
using pt2c::artifact::DType;

void addValue(pt2c::artifact::Graph &g, const std::string &name, std::vector<int64_t> sizes) {
  auto *v = g.add_values();
  v->set_name(name);
  v->mutable_meta()->set_dtype(DType::F32);
  for (int64_t s : sizes)
    v->mutable_meta()->add_sizes()->set_value(s);
}

Argument *addTensorArg(pt2c::artifact::Node *n, const std::string &name, const std::string &v) {
  Argument *a = n->add_args();
  a->set_name(name);
  a->set_tensor(v);
  return a;
}

// x:[2,3] -> relu -> add(alpha=2) with a weight -> output
pt2c::ArtifactFile reluAddArtifact(const std::string &secondOp = "aten::add") {
  pt2c::ArtifactFile file;
  auto *g = file.message.add_graphs();
  g->set_name("forward");
  addValue(*g, "x", {2, 3});
  addValue(*g, "w", {2, 3});
  addValue(*g, "r", {2, 3});
  addValue(*g, "y", {2, 3});
  auto *in = g->add_inputs();
  in->set_kind(pt2c::artifact::InputSpec::USER_INPUT);
  in->set_value("x");
  in->set_name("x");
  auto *w = g->add_inputs();
  w->set_kind(pt2c::artifact::InputSpec::PARAMETER);
  w->set_value("w");
  w->set_name("layer.weight");

  auto *relu = g->add_nodes();
  relu->set_target("aten::relu");
  relu->set_overload("default");
  relu->set_schema("aten::relu(Tensor self) -> Tensor");
  addTensorArg(relu, "self", "x");
  relu->add_outputs("r");

  auto *add = g->add_nodes();
  add->set_target(secondOp);
  add->set_overload("Tensor");
  add->set_schema(secondOp + ".Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  addTensorArg(add, "self", "r");
  addTensorArg(add, "other", "w");
  Argument *alpha = add->add_args();
  alpha->set_name("alpha");
  alpha->mutable_int_value()->set_value(2);
  add->add_outputs("y");
  add->mutable_loc()->set_file("model.py");
  add->mutable_loc()->set_line(42);
  add->mutable_loc()->set_code("return x + 2 * w");

  auto *out = g->add_outputs();
  out->set_value("y");
  out->set_name("0");
  return file;
}

struct Context {
  mlir::MLIRContext ctx;
  std::vector<std::string> errors;
  mlir::ScopedDiagnosticHandler handler;
  static mlir::DialectRegistry registry() {
    mlir::DialectRegistry r;
    pt2c::registerAllDialects(r);
    return r;
  }
  Context()
      : ctx(registry()), handler(&ctx, [this](mlir::Diagnostic &d) {
          std::string text;
          llvm::raw_string_ostream os(text);
          os << d.getLocation() << ": " << d.str();
          errors.push_back(os.str());
          return mlir::success();
        }) {
    ctx.loadAllAvailableDialects();
  }
};

} // namespace

TEST_CASE("a graph becomes a function of aten ops with inputs, weights and outputs marked") {
  Context c;
  auto module = pt2c::importArtifact(c.ctx, reluAddArtifact());
  REQUIRE(module);
  auto func = module->lookupSymbol<mlir::func::FuncOp>("forward");
  REQUIRE(func);
  CHECK(func.getNumArguments() == 2);
  CHECK(func.getArgAttrOfType<mlir::StringAttr>(0, "pt2c.input").str() == "x");
  CHECK(func.getArgAttrOfType<mlir::StringAttr>(1, "pt2c.weight").str() == "layer.weight");
  CHECK(func.getResultAttrOfType<mlir::StringAttr>(0, "pt2c.output").str() == "0");
  std::vector<std::string> names;
  func.walk([&](mlir::Operation *op) { names.push_back(op->getName().getStringRef().str()); });
  CHECK(names ==
        std::vector<std::string>{"aten.relu", "aten.add.Tensor", "func.return", "func.func"});
  mlir::Operation *add = nullptr;
  func.walk([&](mlir::Operation *op) {
    if (op->getName().getStringRef() == "aten.add.Tensor")
      add = op;
  });
  REQUIRE(add);
  auto alpha = add->getAttrOfType<mlir::IntegerAttr>("alpha");
  REQUIRE(alpha);
  CHECK(alpha.getInt() == 2);
  CHECK(c.errors.empty());
}

TEST_CASE("an operator without an aten op is named with its model.py line") {
  Context c;
  auto module = pt2c::importArtifact(c.ctx, reluAddArtifact("aten::frobnicate"));
  CHECK(!module);
  REQUIRE(c.errors.size() == 1);
  CHECK(c.errors[0].find("model.py\":42") != std::string::npos);
  CHECK(c.errors[0].find("unsupported operator aten::frobnicate.Tensor") != std::string::npos);
}

TEST_CASE("a value used before it is defined is reported, not dereferenced") {
  Context c;
  pt2c::ArtifactFile file = reluAddArtifact();
  file.message.mutable_graphs(0)->mutable_nodes(0)->mutable_args(0)->set_tensor("ghost");
  CHECK(!pt2c::importArtifact(c.ctx, file));
  REQUIRE(!c.errors.empty());
  CHECK(c.errors[0].find("'ghost' before it is defined") != std::string::npos);
}

// Marks dim 0 of value `name` as the dynamic dimension "batch" (range [1, 8]).
void makeBatchDynamic(pt2c::ArtifactFile &file, const std::string &name) {
  auto *g = file.message.mutable_graphs(0);
  for (auto &v : *g->mutable_values()) {
    if (v.name() != name)
      continue;
    auto *size = v.mutable_meta()->mutable_sizes(0);
    size->set_expr("batch");
    auto *term = size->mutable_symbolic()->add_terms();
    term->set_coefficient(1);
    term->add_symbols("batch");
    size->set_hint(2);
  }
}

// reluAddArtifact with dim 0 of x, r and y the dynamic dimension "batch" of x.
pt2c::ArtifactFile batchArtifact() {
  pt2c::ArtifactFile file = reluAddArtifact();
  auto *dim = file.message.mutable_graphs(0)->add_dynamic_dims();
  dim->set_name("batch");
  dim->set_min(1);
  dim->set_max(8);
  auto *where = dim->add_inputs();
  where->set_input("x");
  where->set_dim(0);
  for (const char *v : {"x", "r", "y"})
    makeBatchDynamic(file, v);
  return file;
}

// Declares the clamp `name` = min(coefficient*`of` + constant, at_most), as the exporter
// writes keep[:at_most] of a size.
void addClamp(pt2c::ArtifactFile &file, const std::string &name, const std::string &of,
              int64_t coefficient, int64_t constant, int64_t atMost, int64_t max) {
  auto *dim = file.message.mutable_graphs(0)->add_dynamic_dims();
  dim->set_name(name);
  dim->set_min(0);
  dim->set_max(max);
  auto *clamp = dim->mutable_clamp();
  clamp->set_at_most(atMost);
  clamp->mutable_of()->set_constant(constant);
  auto *term = clamp->mutable_of()->add_terms();
  term->set_coefficient(coefficient);
  term->add_symbols(of);
}

TEST_CASE("symbolic sizes become dynamic dims, with the symbols on the function") {
  Context c;
  pt2c::ArtifactFile file = batchArtifact();
  auto module = pt2c::importArtifact(c.ctx, file);
  REQUIRE(module);
  auto func = module->lookupSymbol<mlir::func::FuncOp>("forward");
  auto x = llvm::cast<mlir::RankedTensorType>(func.getArgumentTypes()[0]);
  CHECK(x.isDynamicDim(0));
  CHECK(x.getDimSize(1) == 3);
  auto dims = func.getArgAttrOfType<mlir::ArrayAttr>(0, "pt2c.dims");
  REQUIRE(dims);
  CHECK(llvm::cast<mlir::StringAttr>(dims[0]).str() == "batch");
  auto symbols = func->getAttrOfType<mlir::ArrayAttr>("pt2c.symbols");
  REQUIRE(symbols);
  auto batch = llvm::cast<mlir::DictionaryAttr>(symbols[0]);
  CHECK(batch.getAs<mlir::IntegerAttr>("max").getInt() == 8);
  CHECK(batch.getAs<mlir::StringAttr>("input").str() == "x");
  // Every aten op with a dynamic result records its sizes for the decompositions.
  int annotated = 0;
  func.walk([&](mlir::Operation *op) { annotated += op->hasAttr("pt2c.result_dims"); });
  CHECK(annotated == 2);
}

TEST_CASE("a symbolic size over an undeclared dimension is refused") {
  Context c;
  pt2c::ArtifactFile file = reluAddArtifact();
  makeBatchDynamic(file, "x"); // no dynamic_dims entry declares "batch"
  CHECK(!pt2c::importArtifact(c.ctx, file));
  REQUIRE(!c.errors.empty());
  CHECK(c.errors[0].find("uses 'batch', which is no dynamic dimension") != std::string::npos);
}

TEST_CASE("schema arguments: tensors, optionals, lists and annotated aliases") {
  auto args = pt2c::parseSchemaArgs(
      "aten::index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False)"
      " -> Tensor(a!)");
  REQUIRE(args.size() == 4);
  CHECK(args[0].name == "self");
  CHECK(args[0].isTensor());
  CHECK(args[1].isTensorList());
  CHECK(!args[1].isTensor());
  CHECK(args[2].isTensor());
  CHECK(args[3].name == "accumulate");
  CHECK(!args[3].isTensor());

  auto addmm = pt2c::parseSchemaArgs("aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar "
                                     "beta=1, Scalar alpha=1) -> Tensor");
  REQUIRE(addmm.size() == 5);
  CHECK(addmm[4].name == "alpha");
  CHECK(addmm[4].type == "Scalar");
  CHECK(pt2c::parseSchemaArgs("no parentheses").empty());
}

TEST_CASE("a negative size is refused, not made a tensor type") {
  // Found by tests/unit:artifact_fuzz_test: MLIR reads a negative size as "dynamic" or
  // builds a type no pass expects.
  Context c;
  pt2c::ArtifactFile file = reluAddArtifact();
  file.message.mutable_graphs(0)->mutable_values(2)->mutable_meta()->mutable_sizes(0)->set_value(
      -3);
  CHECK(!pt2c::importArtifact(c.ctx, file));
  REQUIRE(!c.errors.empty());
  CHECK(c.errors[0].find("'r' has a negative size (-3)") != std::string::npos);
}

TEST_CASE("a clamp becomes a derived symbol: min(of, at_most) over the symbols before it") {
  Context c;
  pt2c::ArtifactFile file = batchArtifact();
  addClamp(file, "c0", "batch", 2, 1, 5, 5);
  auto module = pt2c::importArtifact(c.ctx, file);
  REQUIRE(module);
  auto func = module->lookupSymbol<mlir::func::FuncOp>("forward");
  auto symbols = func->getAttrOfType<mlir::ArrayAttr>("pt2c.symbols");
  REQUIRE(symbols.size() == 2);
  auto c0 = llvm::cast<mlir::DictionaryAttr>(symbols[1]);
  CHECK(c0.getAs<mlir::StringAttr>("name").str() == "c0");
  CHECK(c0.getAs<mlir::StringAttr>("derived").str() == "min(1 + 2*batch, 5)");
  CHECK(c0.getAs<mlir::IntegerAttr>("min").getInt() == 0);
  CHECK(c0.getAs<mlir::IntegerAttr>("max").getInt() == 5);
  CHECK(!c0.get("input"));
  CHECK(!c0.get("produced"));
  CHECK(c.errors.empty());
}

TEST_CASE("a clamp of a dimension listed after it, or of nothing, is refused") {
  Context c;
  pt2c::ArtifactFile file = reluAddArtifact();
  addClamp(file, "c0", "batch", 1, 0, 4, 4); // "batch" comes next
  pt2c::ArtifactFile batched = batchArtifact();
  *file.message.mutable_graphs(0)->add_dynamic_dims() = batched.message.graphs(0).dynamic_dims(0);
  for (const char *v : {"x", "r", "y"})
    makeBatchDynamic(file, v);
  CHECK(!pt2c::importArtifact(c.ctx, file));
  REQUIRE(!c.errors.empty());
  CHECK(c.errors[0].find("clamp 'c0' uses 'batch', which is not listed before it") !=
        std::string::npos);

  Context empty;
  file = batchArtifact();
  addClamp(file, "c0", "batch", 1, 0, 4, 4);
  file.message.mutable_graphs(0)
      ->mutable_dynamic_dims(1)
      ->mutable_clamp()
      ->mutable_of()
      ->clear_terms();
  CHECK(!pt2c::importArtifact(empty.ctx, file));
  REQUIRE(!empty.errors.empty());
  CHECK(empty.errors[0].find("clamp 'c0' has no structured expression") != std::string::npos);
}
