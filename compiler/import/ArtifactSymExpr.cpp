#include "compiler/import/ArtifactSymExpr.h"

#include <algorithm>

namespace pt2c {

llvm::Expected<sym::Expr> symExprOf(const artifact::SymExpr &e, llvm::ArrayRef<std::string> names,
                                    size_t visible) {
  auto fail = [](const std::string &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), why);
  };
  if (e.terms().empty())
    return fail("has no structured expression");
  sym::Expr sum = sym::constant(e.constant());
  for (const auto &term : e.terms()) {
    sym::Expr product = sym::constant(term.coefficient());
    for (const std::string &name : term.symbols()) {
      auto it = std::find(names.begin(), names.end(), name);
      if (it == names.end())
        return fail("uses '" + name + "', which is no dynamic dimension");
      if (static_cast<size_t>(it - names.begin()) >= visible)
        return fail("uses '" + name + "', which is not listed before it");
      product = sym::mul(product, sym::symbol(it - names.begin()));
    }
    sum = sym::add(sum, product);
  }
  if (e.divisor() > 1)
    sum = sym::floorDiv(sum, sym::constant(e.divisor()));
  return sum;
}

llvm::Expected<sym::Expr> clampExprOf(const artifact::Clamp &clamp,
                                      llvm::ArrayRef<std::string> names, size_t visible) {
  auto of = symExprOf(clamp.of(), names, visible);
  if (!of)
    return of.takeError();
  return sym::min(*of, sym::constant(clamp.at_most()));
}

std::vector<std::string> dynamicDimNames(const artifact::Graph &graph) {
  std::vector<std::string> names;
  for (const auto &d : graph.dynamic_dims())
    names.push_back(d.name());
  return names;
}

} // namespace pt2c
