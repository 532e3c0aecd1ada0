#include "ir/symbolic/SymExpr.h"

#include <algorithm>
#include <cctype>

#include "pt2c/plan_format.h"

namespace pt2c::sym {
namespace {

Expr make(Kind kind, int64_t value, Expr lhs = nullptr, Expr rhs = nullptr) {
  return std::make_shared<Node>(Node{kind, value, std::move(lhs), std::move(rhs)});
}

int64_t floorDivide(int64_t a, int64_t b) {
  if (b == 0)
    return 0;
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t ceilDivide(int64_t a, int64_t b) { return b == 0 ? 0 : -floorDivide(-a, b); }

int64_t apply(Kind kind, int64_t a, int64_t b) {
  switch (kind) {
  case Kind::Add:
    return a + b;
  case Kind::Sub:
    return a - b;
  case Kind::Mul:
    return a * b;
  case Kind::FloorDiv:
    return floorDivide(a, b);
  case Kind::CeilDiv:
    return ceilDivide(a, b);
  case Kind::Min:
    return std::min(a, b);
  default:
    return 0;
  }
}

Expr binary(Kind kind, const Expr &a, const Expr &b) {
  auto ca = constantValue(a), cb = constantValue(b);
  if (ca && cb)
    return constant(apply(kind, *ca, *cb));
  return make(kind, 0, a, b);
}

// Precedence for printing: + - bind looser than * and the divisions; atoms (and min,
// which prints as a call) need no parentheses.
int precedence(Kind kind) {
  return kind == Kind::Add || kind == Kind::Sub                                ? 1
         : kind == Kind::Constant || kind == Kind::Symbol || kind == Kind::Min ? 3
                                                                               : 2;
}

const char *spelling(Kind kind) {
  switch (kind) {
  case Kind::Add:
    return " + ";
  case Kind::Sub:
    return " - ";
  case Kind::Mul:
    return "*";
  case Kind::FloorDiv:
    return " floordiv ";
  case Kind::CeilDiv:
    return " ceildiv ";
  default:
    return "";
  }
}

// The binary kinds and their PT2C_SYM_* opcodes.
constexpr std::pair<Kind, int64_t> kOpcodes[] = {
    {Kind::Add, PT2C_SYM_ADD},         {Kind::Sub, PT2C_SYM_SUB},
    {Kind::Mul, PT2C_SYM_MUL},         {Kind::FloorDiv, PT2C_SYM_FLOORDIV},
    {Kind::CeilDiv, PT2C_SYM_CEILDIV}, {Kind::Min, PT2C_SYM_MIN},
};

int64_t opcode(Kind kind) {
  for (auto [k, op] : kOpcodes)
    if (k == kind)
      return op;
  return -1;
}

std::optional<Kind> kindOf(int64_t op) {
  for (auto [k, code] : kOpcodes)
    if (code == op)
      return k;
  return std::nullopt;
}

class Parser {
public:
  Parser(llvm::StringRef text, llvm::ArrayRef<std::string> names) : text(text), names(names) {}

  std::optional<Expr> parseAll(std::string *error) {
    Expr e = sum();
    skipSpace();
    if (e && pos == text.size())
      return e;
    if (error)
      *error = problem.empty() ? "unexpected '" + text.substr(pos).str() + "'" : problem;
    return std::nullopt;
  }

private:
  void skipSpace() {
    while (pos < text.size() && text[pos] == ' ')
      ++pos;
  }
  bool take(llvm::StringRef token) {
    skipSpace();
    if (!text.substr(pos).starts_with(token))
      return false;
    pos += token.size();
    return true;
  }
  Expr sum() {
    Expr e = product();
    while (e) {
      if (take("+"))
        e = add(e, product());
      else if (take("-"))
        e = sub(e, product());
      else
        break;
    }
    return e;
  }
  Expr product() {
    Expr e = atom();
    while (e) {
      Kind kind;
      if (take("*"))
        kind = Kind::Mul;
      else if (take("floordiv"))
        kind = Kind::FloorDiv;
      else if (take("ceildiv"))
        kind = Kind::CeilDiv;
      else
        break;
      Expr rhs = atom();
      if (!rhs)
        return nullptr;
      e = binary(kind, e, rhs);
    }
    return e;
  }
  Expr atom() {
    skipSpace();
    if (take("(")) {
      Expr e = sum();
      if (!e || !take(")"))
        return fail("expected ')'");
      return e;
    }
    if (take("min(")) {
      Expr a = sum();
      if (!a || !take(","))
        return fail("expected ',' in min(a, b)");
      Expr b = sum();
      if (!b || !take(")"))
        return fail("expected ')' after min's operands");
      return min(a, b);
    }
    size_t start = pos;
    if (pos < text.size() && text[pos] == '-')
      ++pos;
    if (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
      while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos])))
        ++pos;
      int64_t value = 0;
      if (text.slice(start, pos).getAsInteger(10, value))
        return fail("bad number");
      return constant(value);
    }
    pos = start;
    while (pos < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[pos])) || text[pos] == '_'))
      ++pos;
    llvm::StringRef name = text.slice(start, pos);
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i] == name)
        return symbol(i);
    return fail(name.empty() ? "expected a number, a symbol or '('"
                             : "unknown symbol '" + name.str() + "'");
  }
  Expr fail(const std::string &why) {
    if (problem.empty())
      problem = why;
    return nullptr;
  }

  llvm::StringRef text;
  llvm::ArrayRef<std::string> names;
  size_t pos = 0;
  std::string problem;
};

} // namespace

Expr constant(int64_t value) { return make(Kind::Constant, value); }
Expr symbol(unsigned position) { return make(Kind::Symbol, position); }

std::optional<int64_t> constantValue(const Expr &e) {
  if (e && e->kind == Kind::Constant)
    return e->value;
  return std::nullopt;
}

Expr add(const Expr &a, const Expr &b) {
  if (!a || !b)
    return nullptr;
  if (constantValue(a) == 0)
    return b;
  if (constantValue(b) == 0)
    return a;
  return binary(Kind::Add, a, b);
}

Expr sub(const Expr &a, const Expr &b) {
  if (!a || !b)
    return nullptr;
  if (constantValue(b) == 0)
    return a;
  return binary(Kind::Sub, a, b);
}

Expr mul(const Expr &a, const Expr &b) {
  if (!a || !b)
    return nullptr;
  if (constantValue(a) == 1)
    return b;
  if (constantValue(b) == 1)
    return a;
  if (constantValue(a) == 0 || constantValue(b) == 0)
    return constant(0);
  return binary(Kind::Mul, a, b);
}

Expr floorDiv(const Expr &a, const Expr &b) {
  if (!a || !b)
    return nullptr;
  if (constantValue(b) == 1)
    return a;
  return binary(Kind::FloorDiv, a, b);
}

Expr ceilDiv(const Expr &a, const Expr &b) {
  if (!a || !b)
    return nullptr;
  if (constantValue(b) == 1)
    return a;
  return binary(Kind::CeilDiv, a, b);
}

Expr min(const Expr &a, const Expr &b) {
  if (!a || !b)
    return nullptr;
  if (equal(a, b))
    return a;
  return binary(Kind::Min, a, b);
}

bool equal(const Expr &a, const Expr &b) {
  if (a == b)
    return true;
  if (!a || !b || a->kind != b->kind || a->value != b->value)
    return false;
  if (a->kind == Kind::Constant || a->kind == Kind::Symbol)
    return true;
  return equal(a->lhs, b->lhs) && equal(a->rhs, b->rhs);
}

int64_t evaluate(const Expr &e, llvm::ArrayRef<int64_t> symbolValues) {
  switch (e->kind) {
  case Kind::Constant:
    return e->value;
  case Kind::Symbol:
    return e->value < static_cast<int64_t>(symbolValues.size()) ? symbolValues[e->value] : 0;
  default:
    return apply(e->kind, evaluate(e->lhs, symbolValues), evaluate(e->rhs, symbolValues));
  }
}

bool isMonotone(const Expr &e) {
  switch (e->kind) {
  case Kind::Constant:
  case Kind::Symbol:
    return true;
  // The smaller of two growing values grows too.
  case Kind::Add:
  case Kind::Min:
    return isMonotone(e->lhs) && isMonotone(e->rhs);
  // Products of non-negative growing terms grow; a negative constant factor would not.
  case Kind::Mul:
    return isMonotone(e->lhs) && isMonotone(e->rhs) && constantValue(e->lhs).value_or(0) >= 0 &&
           constantValue(e->rhs).value_or(0) >= 0;
  // x - c and x / c (c > 0) keep x's direction; subtracting or dividing by a symbol
  // does not.
  case Kind::Sub:
    return isMonotone(e->lhs) && constantValue(e->rhs).has_value();
  case Kind::FloorDiv:
  case Kind::CeilDiv:
    return isMonotone(e->lhs) && constantValue(e->rhs).value_or(0) > 0;
  }
  return false;
}

std::string print(const Expr &e, llvm::ArrayRef<std::string> names) {
  if (!e)
    return "<null>";
  switch (e->kind) {
  case Kind::Constant:
    return std::to_string(e->value);
  case Kind::Symbol:
    return e->value < static_cast<int64_t>(names.size()) ? names[e->value]
                                                         : "s" + std::to_string(e->value);
  case Kind::Min:
    return "min(" + print(e->lhs, names) + ", " + print(e->rhs, names) + ")";
  default:
    break;
  }
  auto side = [&](const Expr &operand, bool right) {
    std::string text = print(operand, names);
    int mine = precedence(e->kind), theirs = precedence(operand->kind);
    // Left-associative: a right operand of equal precedence needs parentheses too
    // (a - (b + c)), as does any negative constant.
    bool parens = theirs < mine || (right && theirs == mine) ||
                  (operand->kind == Kind::Constant && operand->value < 0);
    return parens ? "(" + text + ")" : text;
  };
  return side(e->lhs, false) + spelling(e->kind) + side(e->rhs, true);
}

std::optional<Expr> parse(llvm::StringRef text, llvm::ArrayRef<std::string> names,
                          std::string *error) {
  return Parser(text, names).parseAll(error);
}

void encode(const Expr &e, std::vector<int64_t> &words) {
  switch (e->kind) {
  case Kind::Constant:
    words.insert(words.end(), {PT2C_SYM_CONSTANT, e->value});
    return;
  case Kind::Symbol:
    words.insert(words.end(), {PT2C_SYM_SYMBOL, e->value});
    return;
  default:
    break;
  }
  encode(e->lhs, words);
  encode(e->rhs, words);
  words.insert(words.end(), {opcode(e->kind), 0});
}

std::optional<Expr> decode(llvm::ArrayRef<int64_t> words) {
  if (words.size() % 2 != 0)
    return std::nullopt;
  std::vector<Expr> stack;
  for (size_t i = 0; i < words.size(); i += 2) {
    int64_t op = words[i], operand = words[i + 1];
    if (op == PT2C_SYM_CONSTANT || op == PT2C_SYM_SYMBOL) {
      if (op == PT2C_SYM_SYMBOL && operand < 0)
        return std::nullopt;
      stack.push_back(op == PT2C_SYM_CONSTANT ? constant(operand) : symbol(operand));
      continue;
    }
    auto kind = kindOf(op);
    if (!kind || stack.size() < 2)
      return std::nullopt;
    Expr rhs = stack.back();
    stack.pop_back();
    // make, not the folding builders: the text shows the code as it is.
    stack.back() = make(*kind, 0, stack.back(), rhs);
  }
  if (stack.size() != 1)
    return std::nullopt;
  return stack.front();
}

} // namespace pt2c::sym
