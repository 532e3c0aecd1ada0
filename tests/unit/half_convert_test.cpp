// The f16/bf16 conversions of runtime/src/half_convert.c (LLVM's libcalls in every
// model.so) against references computed in double arithmetic: every f16 value widens
// exactly, and narrowing picks the nearest representable value, ties to even.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "runtime/src/half_convert.h"

namespace {

// The exact value of f16 bits, by the format's definition.
double f16_value(uint16_t bits) {
  int exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  double sign = (bits & 0x8000) ? -1.0 : 1.0;
  if (exponent == 0x1f)
    return mantissa ? std::numeric_limits<double>::quiet_NaN()
                    : sign * std::numeric_limits<double>::infinity();
  if (exponent == 0)
    return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

double bf16_value(uint16_t bits) {
  uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof value);
  return value;
}

// Whether `got` is the correctly rounded (nearest, ties to even) encoding of `x` in a
// 16-bit format whose values `decode` gives: the neighbours of `got` are no closer.
template <typename Decode> bool is_nearest_even(double x, uint16_t got, Decode decode) {
  double value = decode(got);
  if (std::isnan(x))
    return std::isnan(value);
  if (std::isinf(value) && !std::isinf(x)) {
    // Overflow: x must be at least halfway between the largest finite value and the
    // next power of two beyond it.
    uint16_t largest = static_cast<uint16_t>((got & 0x8000) | ((got & 0x7fff) - 1));
    double max = std::fabs(decode(largest)), ulp = max - std::fabs(decode(largest - 1));
    return std::signbit(value) == std::signbit(x) && std::fabs(x) >= max + ulp / 2;
  }
  if (value == 0 && x != 0 && std::signbit(value) != std::signbit(x))
    return false;
  double error = std::fabs(value - x);
  for (int step : {-1, 1}) {
    uint16_t magnitude = got & 0x7fff;
    if (magnitude == 0 && step < 0)
      continue;
    uint16_t neighbour = static_cast<uint16_t>((got & 0x8000) | (magnitude + step));
    double other = decode(neighbour);
    if (std::isnan(other) || std::isinf(other))
      continue;
    double other_error = std::fabs(other - x);
    if (other_error < error)
      return false;
    if (other_error == error && (got & 1))
      return false; // a tie goes to the even one
  }
  return true;
}

float random_float(std::mt19937 &rng) {
  // Uniform over bit patterns: every exponent, subnormals, infinities and NaNs.
  uint32_t bits = rng();
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

} // namespace

TEST_CASE("every f16 value widens exactly to f32 and narrows back to itself") {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    float wide = pt2c_f16_bits_to_f32(static_cast<uint16_t>(bits));
    double exact = f16_value(static_cast<uint16_t>(bits));
    if (std::isnan(exact)) {
      REQUIRE(std::isnan(wide));
      REQUIRE(std::isnan(f16_value(pt2c_f32_to_f16_bits(wide))));
      continue;
    }
    REQUIRE(static_cast<double>(wide) == exact);
    REQUIRE(pt2c_f32_to_f16_bits(wide) == bits);
  }
}

TEST_CASE("f32 and f64 narrow to f16 and bf16 with round to nearest even") {
  std::mt19937 rng(5);
  for (int i = 0; i < 200000; ++i) {
    float x = random_float(rng);
    INFO("x = " << x);
    REQUIRE(is_nearest_even(x, pt2c_f32_to_f16_bits(x), f16_value));
    REQUIRE(is_nearest_even(x, pt2c_f32_to_bf16_bits(x), bf16_value));
    // Doubles between f32 values: rounding through f32 first would round twice.
    double d = static_cast<double>(x) * (1.0 + std::ldexp(static_cast<double>(rng() % 4096), -40));
    REQUIRE(is_nearest_even(d, pt2c_f64_to_f16_bits(d), f16_value));
    REQUIRE(is_nearest_even(d, pt2c_f64_to_bf16_bits(d), bf16_value));
  }
}

TEST_CASE("a row narrows to bf16 as each value does, NaN, infinity and ties included") {
  std::mt19937 rng(9);
  // Every class of bits: random, NaNs (quiet and signaling, both signs), infinities,
  // ties (low half 0x8000) and the values next to them.
  const uint32_t special[] = {0x7f800000u, 0xff800000u, 0x7f800001u, 0xffc00000u,
                              0x7fbfffffu, 0x3f808000u, 0x3f818000u, 0x3f807fffu,
                              0x7f7fffffu, 0x00008000u, 0x80000000u, 0x00000000u};
  std::vector<float> row(1037);
  for (size_t i = 0; i < row.size(); ++i) {
    uint32_t bits = i < std::size(special) ? special[i] : static_cast<uint32_t>(rng());
    std::memcpy(&row[i], &bits, sizeof(bits));
  }
  for (int64_t count : {0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 1037}) {
    std::vector<decltype(&pt2c_f32_to_bf16_row)> versions = {pt2c_f32_to_bf16_row};
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx512f"))
      versions.push_back(pt2c_f32_to_bf16_row_avx512);
#endif
    for (size_t v = 0; v < versions.size(); ++v) {
      std::vector<uint16_t> out(row.size() + 1, 0xabcd);
      versions[v](row.data(), count, out.data());
      for (int64_t i = 0; i < count; ++i) {
        INFO("version " << v << ", count " << count << ", element " << i);
        REQUIRE(out[i] == pt2c_f32_to_bf16_bits(row[i]));
      }
      REQUIRE(out[count] == 0xabcd); // nothing past the row
    }
  }
}

TEST_CASE("halfway cases round to even, also below f16's normal range") {
  // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: ties go to 1 (even).
  CHECK(pt2c_f32_to_f16_bits(1.0f + 0x1p-11f) == 0x3c00);
  CHECK(pt2c_f32_to_f16_bits(1.0f + 3 * 0x1p-11f) == 0x3c02);
  CHECK(pt2c_f32_to_f16_bits(0x1p-25f) == 0x0000);     // half the smallest subnormal
  CHECK(pt2c_f32_to_f16_bits(3 * 0x1p-25f) == 0x0002); // 1.5 subnormal units -> 2
  CHECK(pt2c_f32_to_f16_bits(65519.0f) == 0x7bff);
  CHECK(pt2c_f32_to_f16_bits(65520.0f) == 0x7c00);
  CHECK(pt2c_f32_to_bf16_bits(1.0f + 0x1p-8f) == 0x3f80);
  // f64 just above a tie: through f32 it would become the tie and round down.
  CHECK(pt2c_f64_to_f16_bits(1.0 + 0x1p-11 + 0x1p-40) == 0x3c01);
  CHECK(pt2c_f64_to_bf16_bits(1.0 + 0x1p-8 + 0x1p-40) == 0x3f81);
}

TEST_CASE("the libcalls pass half and bfloat bits in the low 16 bits of xmm registers") {
  _Float16 one;
  uint16_t bits = 0x3c00;
  std::memcpy(&one, &bits, sizeof one);
  CHECK(__extendhfsf2(one) == 1.0f);
  CHECK(__extendhfdf2(one) == 1.0);
  _Float16 narrowed = __truncsfhf2(-2.0f);
  std::memcpy(&bits, &narrowed, sizeof bits);
  CHECK(bits == 0xc000);
  narrowed = __truncsfbf2(-2.0f);
  std::memcpy(&bits, &narrowed, sizeof bits);
  CHECK(bits == 0xc000);
  narrowed = __truncdfhf2(0.5);
  std::memcpy(&bits, &narrowed, sizeof bits);
  CHECK(bits == 0x3800);
  narrowed = __truncdfbf2(0.5);
  std::memcpy(&bits, &narrowed, sizeof bits);
  CHECK(bits == 0x3f00);
}
