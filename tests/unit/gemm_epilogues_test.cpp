// Which kernel functions GemmKernels.h takes as GEMM epilogues (compiler/codegen/dense):
// the bias forms, the residual add x + z (either argument may be the product) and
// bias + residual in either order; near misses stay ordinary kernels.
#include <catch2/catch.hpp>

#include <string>

#include "compiler/codegen/dense/GemmKernels.h"
#include "ir/Dialects.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

namespace {

struct Kernels {
  mlir::MLIRContext ctx;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  pt2c::GemmKernelTable table;

  explicit Kernels(const std::string &source) {
    mlir::DialectRegistry registry;
    pt2c::registerAllDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
    module = mlir::parseSourceString<mlir::ModuleOp>(source, &ctx);
    REQUIRE(module);
    table = pt2c::findGemmKernels(*module);
  }

  const pt2c::GemmEpilogueKernel *epilogue(const std::string &name) const {
    auto it = table.epilogues.find(name);
    return it == table.epilogues.end() ? nullptr : &it->second;
  }
};

TEST_CASE("a residual add of two arguments is an ADD epilogue") {
  Kernels k(R"(
    func.func @add(%x: tensor<2x3x16xf32>, %z: tensor<2x3x16xf32>) -> tensor<2x3x16xf32> {
      %0 = prim.add %x, %z : tensor<2x3x16xf32>
      return %0 : tensor<2x3x16xf32>
    }
    func.func @twice(%x: tensor<6x16xf32>) -> tensor<6x16xf32> {
      %0 = prim.add %x, %x : tensor<6x16xf32>
      return %0 : tensor<6x16xf32>
    }
    func.func @product(%x: tensor<6x16xf32>, %z: tensor<6x16xf32>) -> tensor<6x16xf32> {
      %0 = prim.mul %x, %z : tensor<6x16xf32>
      return %0 : tensor<6x16xf32>
    }
    func.func @ints(%x: tensor<6x16xi32>, %z: tensor<6x16xi32>) -> tensor<6x16xi32> {
      %0 = prim.add %x, %z : tensor<6x16xi32>
      return %0 : tensor<6x16xi32>
    })");
  const pt2c::GemmEpilogueKernel *add = k.epilogue("add");
  REQUIRE(add != nullptr);
  CHECK(add->epilogue == PT2C_GEMM_EPILOGUE_ADD);
  CHECK(add->input == 0);
  CHECK(add->residual == 1);
  CHECK(add->bias == -1);
  CHECK(add->commutes);
  CHECK(add->n == 16);
  CHECK(add->elements == 96);
  // x + x has no residual apart from the product; x * z and integers are no GEMM's.
  CHECK(k.epilogue("twice") == nullptr);
  CHECK(k.epilogue("product") == nullptr);
  CHECK(k.epilogue("ints") == nullptr);
}

TEST_CASE("a bias add then a residual add is a BIAS_ADD epilogue in either order, BIAS_ADD_RELU "
          "under a ReLU") {
  Kernels k(R"(
    func.func @residual_last(%z: tensor<4x16xf16>, %b: tensor<16xf16>, %x: tensor<4x16xf16>)
        -> tensor<4x16xf16> {
      %0 = prim.broadcast_in_dim %b, dims = [1] : tensor<16xf16> -> tensor<4x16xf16>
      %1 = prim.add %0, %x : tensor<4x16xf16>
      %2 = prim.add %z, %1 : tensor<4x16xf16>
      return %2 : tensor<4x16xf16>
    }
    func.func @residual_first(%x: tensor<4x16xf32>, %b: tensor<16xf32>, %z: tensor<4x16xf32>)
        -> tensor<4x16xf32> {
      %0 = prim.broadcast_in_dim %b, dims = [1] : tensor<16xf32> -> tensor<4x16xf32>
      %1 = prim.add %x, %0 : tensor<4x16xf32>
      %2 = prim.add %1, %z : tensor<4x16xf32>
      return %2 : tensor<4x16xf32>
    }
    func.func @relu_after(%x: tensor<4x16xf32>, %b: tensor<16xf32>, %z: tensor<4x16xf32>)
        -> tensor<4x16xf32> {
      %zero = prim.constant dense<0.0> : tensor<4x16xf32>
      %0 = prim.broadcast_in_dim %b, dims = [1] : tensor<16xf32> -> tensor<4x16xf32>
      %1 = prim.add %x, %0 : tensor<4x16xf32>
      %2 = prim.add %1, %z : tensor<4x16xf32>
      %3 = prim.max %2, %zero : tensor<4x16xf32>
      return %3 : tensor<4x16xf32>
    }
    func.func @bias_relu(%x: tensor<4x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
      %zero = prim.constant dense<0.0> : tensor<4x16xf32>
      %0 = prim.broadcast_in_dim %b, dims = [1] : tensor<16xf32> -> tensor<4x16xf32>
      %1 = prim.add %x, %0 : tensor<4x16xf32>
      %2 = prim.max %1, %zero : tensor<4x16xf32>
      return %2 : tensor<4x16xf32>
    })");
  for (const char *name : {"residual_last", "residual_first"}) {
    INFO(name);
    const pt2c::GemmEpilogueKernel *e = k.epilogue(name);
    REQUIRE(e != nullptr);
    CHECK(e->epilogue == PT2C_GEMM_EPILOGUE_BIAS_ADD);
    CHECK(e->bias == 1);
    CHECK(static_cast<int>(e->input) == (std::string(name) == "residual_last" ? 2 : 0));
    CHECK(e->residual == (std::string(name) == "residual_last" ? 0 : 2));
    CHECK_FALSE(e->commutes);
    CHECK(e->n == 16);
  }
  // A ReLU after the residual: BIAS_ADD_RELU (the libraries' ReLU takes the sum with C).
  const pt2c::GemmEpilogueKernel *after = k.epilogue("relu_after");
  REQUIRE(after != nullptr);
  CHECK(after->epilogue == PT2C_GEMM_EPILOGUE_BIAS_ADD_RELU);
  CHECK(after->bias == 1);
  CHECK(after->residual == 2);
  CHECK(after->input == 0);
  const pt2c::GemmEpilogueKernel *relu = k.epilogue("bias_relu");
  REQUIRE(relu != nullptr);
  CHECK(relu->epilogue == PT2C_GEMM_EPILOGUE_BIAS_RELU);
  CHECK(relu->residual == -1);
}

} // namespace
