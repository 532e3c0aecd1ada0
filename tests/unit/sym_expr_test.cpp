// Symbolic size expressions (ir/symbolic/SymExpr.h): the text form both ways, evaluation,
// monotonicity and the plan's postfix code, with min (the exporter's clamped sizes).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "ir/symbolic/SymExpr.h"
#include "pt2c/plan_format.h"

namespace sym = pt2c::sym;

namespace {

const std::vector<std::string> kNames = {"batch", "u0", "c0"};

sym::Expr parsed(const std::string &text) {
  std::string error;
  auto e = sym::parse(text, kNames, &error);
  INFO(text << ": " << error);
  REQUIRE(e);
  return *e;
}

} // namespace

TEST_CASE("min prints as a call and parses back") {
  for (const char *text : {"min(u0, 100)", "min(batch*u0, 2*batch + 1)", "min(u0, 3) + 1",
                           "2*min(u0, batch)", "min(min(u0, 4), batch)", "(batch + 1) floordiv 2"})
    CHECK(sym::print(parsed(text), kNames) == text);
  // A product of a sum and a min: the min needs no parentheses, the sum does.
  sym::Expr e = sym::mul(sym::add(sym::symbol(0), sym::constant(1)),
                         sym::min(sym::symbol(1), sym::constant(7)));
  CHECK(sym::print(e, kNames) == "(batch + 1)*min(u0, 7)");
  CHECK(sym::equal(parsed(sym::print(e, kNames)), e));
}

TEST_CASE("min folds constants and equal operands") {
  CHECK(sym::constantValue(sym::min(sym::constant(5), sym::constant(3))) == 3);
  CHECK(sym::constantValue(parsed("min(4, 9) + 1")) == 5);
  sym::Expr u0 = sym::symbol(1);
  CHECK(sym::min(u0, sym::symbol(1)) == u0);
  CHECK(sym::min(u0, nullptr) == nullptr);
}

TEST_CASE("min evaluates to the smaller operand") {
  sym::Expr e = parsed("min(u0, 100)");
  CHECK(sym::evaluate(e, {1, 40, 0}) == 40);
  CHECK(sym::evaluate(e, {1, 400, 0}) == 100);
  CHECK(sym::evaluate(parsed("min(2*batch, u0) - 1"), {3, 10, 0}) == 5);
}

TEST_CASE("min of growing expressions grows: buffers planned at the maxima stay valid") {
  CHECK(sym::isMonotone(parsed("min(u0, 100)")));
  CHECK(sym::isMonotone(parsed("4*min(batch*u0, 1000)")));
  CHECK_FALSE(sym::isMonotone(parsed("min(u0, 100 - batch)")));
}

TEST_CASE("malformed min is refused with a reason") {
  for (auto [text, why] :
       std::vector<std::pair<const char *, const char *>>{{"min(u0 100)", "expected ','"},
                                                          {"min(u0, 100", "expected ')'"},
                                                          {"min(u0, v9)", "unknown symbol 'v9'"}}) {
    std::string error;
    CHECK_FALSE(sym::parse(text, kNames, &error));
    CHECK_THAT(error, Catch::Contains(why));
  }
  // A symbol whose name starts with "min" is still a symbol.
  std::vector<std::string> names = {"minutes"};
  CHECK(sym::print(*sym::parse("minutes + 1", names), names) == "minutes + 1");
}

TEST_CASE("postfix code: min is PT2C_SYM_MIN, and decode inverts encode") {
  sym::Expr e = parsed("min(u0, 100)");
  std::vector<int64_t> words;
  sym::encode(e, words);
  CHECK(words == std::vector<int64_t>{PT2C_SYM_SYMBOL, 1, PT2C_SYM_CONSTANT, 100, PT2C_SYM_MIN, 0});
  for (const char *text :
       {"min(u0, 100)", "(batch + 1) floordiv 2", "batch*u0 - 3", "min(2*batch, u0 ceildiv 4)"}) {
    words.clear();
    sym::encode(parsed(text), words);
    auto back = sym::decode(words);
    REQUIRE(back);
    CHECK(sym::print(*back, kNames) == text);
  }
  // Code that is not one expression: too few operands, two values left, an unknown opcode.
  CHECK_FALSE(sym::decode({PT2C_SYM_SYMBOL, 0, PT2C_SYM_MIN, 0}));
  CHECK_FALSE(sym::decode({PT2C_SYM_SYMBOL, 0, PT2C_SYM_SYMBOL, 1}));
  CHECK_FALSE(sym::decode({PT2C_SYM_SYMBOL, 0, PT2C_SYM_SYMBOL, 1, 99, 0}));
  CHECK_FALSE(sym::decode({}));
}
