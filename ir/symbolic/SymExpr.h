// Symbolic sizes: integer expressions over a graph's dynamic dimensions (model.py's
// dynamic_shapes), as the compiler carries them from the artifact to the execution
// plan. An expression is a small tree of constants, symbols (a dynamic dimension, by
// its position in the graph's symbol list), + - * floor/ceil division and min (a clamped
// size: keep[:100] of a data-dependent count); its text form uses the symbols' names
// ("batch*seq", "(seq + 1) floordiv 2", "min(u0, 100)"), which is how it travels
// in MLIR attributes between passes. The plan stores it as postfix code
// (plan_format.h, PT2C_SYM_*), which the runtime evaluates on every run.
#ifndef PT2C_IR_SYMBOLIC_SYMEXPR_H_
#define PT2C_IR_SYMBOLIC_SYMEXPR_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace pt2c::sym {

enum class Kind { Constant, Symbol, Add, Sub, Mul, FloorDiv, CeilDiv, Min };

struct Node;
using Expr = std::shared_ptr<const Node>;

struct Node {
  Kind kind;
  int64_t value = 0; // the constant, or the symbol's position
  Expr lhs, rhs;
};

// Builders fold constants and the identities x + 0, x * 1, x * 0, x floordiv 1, min(x, x).
Expr constant(int64_t value);
Expr symbol(unsigned position);
Expr add(const Expr &a, const Expr &b);
Expr sub(const Expr &a, const Expr &b);
Expr mul(const Expr &a, const Expr &b);
Expr floorDiv(const Expr &a, const Expr &b);
Expr ceilDiv(const Expr &a, const Expr &b);
Expr min(const Expr &a, const Expr &b);

std::optional<int64_t> constantValue(const Expr &e);
bool equal(const Expr &a, const Expr &b);

// The value for the given symbol values (division by zero gives 0: sizes never divide by
// a zero size, and the caller validated the plan).
int64_t evaluate(const Expr &e, llvm::ArrayRef<int64_t> symbolValues);

// Whether the expression never decreases when a symbol grows (with every symbol >= 0):
// then its value at the symbols' maxima bounds it over the whole declared range, which
// is what planning memory at the maxima needs.
bool isMonotone(const Expr &e);

std::string print(const Expr &e, llvm::ArrayRef<std::string> names);
// Parses print()'s output; std::nullopt (and `error` set) on anything else.
std::optional<Expr> parse(llvm::StringRef text, llvm::ArrayRef<std::string> names,
                          std::string *error = nullptr);

// Postfix code (plan_format.h): (opcode, operand) pairs.
void encode(const Expr &e, std::vector<int64_t> &words);
// encode()'s inverse, for tools that print a plan; std::nullopt for code that is not
// one well-formed expression.
std::optional<Expr> decode(llvm::ArrayRef<int64_t> words);

} // namespace pt2c::sym

#endif // PT2C_IR_SYMBOLIC_SYMEXPR_H_
