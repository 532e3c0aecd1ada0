// A plan convolution as the GPU convolution libraries describe it (cuDNN and MIOpen take
// the same int dims, strides, padding, stride and dilation): runtime/src/cuda/conv_problem.h.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "runtime/src/cuda/conv_problem.h"

namespace {

pt2c_plan_conv conv2d() {
  pt2c_plan_conv c = {};
  c.dtype = PT2C_F32;
  c.spatial_rank = 2;
  c.groups = 2;
  c.batch = 3;
  c.in_channels = 4;
  c.out_channels = 6;
  uint64_t input[] = {9, 7, 1}, kernel[] = {3, 2, 1}, output[] = {4, 6, 1}, stride[] = {2, 1, 1},
           padding[] = {1, 0, 0}, dilation[] = {1, 1, 1};
  for (int d = 0; d < PT2C_CONV_MAX_SPATIAL; ++d) {
    c.input[d] = input[d], c.kernel[d] = kernel[d], c.output[d] = output[d];
    c.stride[d] = stride[d], c.padding[d] = padding[d], c.dilation[d] = dilation[d];
  }
  return c;
}

std::vector<int> dims(const int *values, int rank) {
  return std::vector<int>(values, values + rank);
}

} // namespace

TEST_CASE("a 2-d convolution keeps its dims; the filter has C / groups channels") {
  pt2c_plan_conv c = conv2d();
  pt2c_conv_problem p;
  REQUIRE(pt2c_conv_problem_make(&c, &p));
  CHECK(p.rank == 4);
  CHECK(p.spatial == 2);
  CHECK(dims(p.x, 4) == std::vector<int>{3, 4, 9, 7});
  CHECK(dims(p.y, 4) == std::vector<int>{3, 6, 4, 6});
  CHECK(dims(p.w, 4) == std::vector<int>{6, 2, 3, 2});
  CHECK(dims(p.bias, 4) == std::vector<int>{1, 6, 1, 1});
  CHECK(dims(p.padding, 2) == std::vector<int>{1, 0});
  CHECK(dims(p.stride, 2) == std::vector<int>{2, 1});
  CHECK(dims(p.dilation, 2) == std::vector<int>{1, 1});
  CHECK(p.groups == 2);
}

TEST_CASE("a 1-d convolution is a 2-d one of height 1") {
  pt2c_plan_conv c = conv2d();
  c.spatial_rank = 1;
  c.input[1] = c.kernel[1] = c.output[1] = 1; // unused dims are 1 in a plan
  c.stride[0] = 3, c.padding[0] = 2, c.dilation[0] = 2;
  pt2c_conv_problem p;
  REQUIRE(pt2c_conv_problem_make(&c, &p));
  CHECK(p.rank == 4);
  CHECK(dims(p.x, 4) == std::vector<int>{3, 4, 1, 9});
  CHECK(dims(p.w, 4) == std::vector<int>{6, 2, 1, 3});
  CHECK(dims(p.y, 4) == std::vector<int>{3, 6, 1, 4});
  CHECK(dims(p.padding, 2) == std::vector<int>{0, 2});
  CHECK(dims(p.stride, 2) == std::vector<int>{1, 3});
  CHECK(dims(p.dilation, 2) == std::vector<int>{1, 2});
}

TEST_CASE("a 3-d convolution has rank 5") {
  pt2c_plan_conv c = conv2d();
  c.spatial_rank = 3;
  c.input[2] = 5, c.kernel[2] = 3, c.output[2] = 3;
  pt2c_conv_problem p;
  REQUIRE(pt2c_conv_problem_make(&c, &p));
  CHECK(p.rank == 5);
  CHECK(dims(p.x, 5) == std::vector<int>{3, 4, 9, 7, 5});
  CHECK(dims(p.bias, 5) == std::vector<int>{1, 6, 1, 1, 1});
}

TEST_CASE("a tensor of more elements than an int holds is refused") {
  pt2c_plan_conv c = conv2d();
  c.input[0] = c.output[0] = 1u << 20;
  c.input[1] = c.output[1] = 1u << 10; // x: 3 * 4 * 2^30 elements
  pt2c_conv_problem p;
  CHECK_FALSE(pt2c_conv_problem_make(&c, &p));
}

TEST_CASE("packed strides: NCHW, and channels-last with the channel stride 1") {
  const int d[] = {2, 3, 4, 5};
  int strides[4];
  pt2c_conv_packed_strides(d, 4, 0, strides);
  CHECK(dims(strides, 4) == std::vector<int>{60, 20, 5, 1});
  pt2c_conv_packed_strides(d, 4, 1, strides);
  CHECK(dims(strides, 4) == std::vector<int>{60, 1, 15, 3});
}
