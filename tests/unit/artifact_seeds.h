// Small, realistic .pt2c artifacts built in C++ (no checked-in binaries), shaped like
// the exporter's output: the seeds the artifact fuzz test mutates. Each graph uses the
// ops and argument kinds the exporter records for its model (linear as t + addmm, views,
// a convolution, a dynamic batch dimension with a module buffer written in place).
#ifndef PT2C_TESTS_UNIT_ARTIFACT_SEEDS_H_
#define PT2C_TESTS_UNIT_ARTIFACT_SEEDS_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ir/artifact/ArtifactFile.h"
#include "tests/unit/artifact_bytes.h"
#include "llvm/Support/MathExtras.h"

namespace pt2c_test {

using pt2c::artifact::Argument;
using pt2c::artifact::Artifact;
using pt2c::artifact::Graph;
using pt2c::artifact::Node;

// A seed: the message and the weights blob its entries point into.
struct Seed {
  std::string name;
  Artifact message;
  std::string blob;
};

inline std::vector<int64_t> contiguousStrides(const std::vector<int64_t> &sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  for (size_t i = sizes.size(); i-- > 1;)
    strides[i - 1] = strides[i] * sizes[i];
  return strides;
}

// Helpers that append to a graph the way the exporter records a trace.
class GraphBuilder {
public:
  explicit GraphBuilder(Graph *g) : g(g) {}

  void value(const std::string &name, std::vector<int64_t> sizes,
             pt2c::artifact::DType dtype = pt2c::artifact::F32, int64_t storage = 0) {
    auto *v = g->add_values();
    v->set_name(name);
    v->set_storage_id(storage ? storage : ++nextStorage);
    v->mutable_meta()->set_dtype(dtype);
    for (int64_t s : sizes)
      v->mutable_meta()->add_sizes()->set_value(s);
    for (int64_t s : contiguousStrides(sizes))
      v->mutable_meta()->add_strides(s);
  }
  void input(const std::string &value, const std::string &name,
             pt2c::artifact::InputSpec::Kind kind = pt2c::artifact::InputSpec::USER_INPUT) {
    auto *in = g->add_inputs();
    in->set_kind(kind);
    in->set_value(value);
    in->set_name(name);
  }
  void output(const std::string &value, const std::string &name,
              pt2c::artifact::OutputSpec::Kind kind = pt2c::artifact::OutputSpec::USER_OUTPUT) {
    auto *out = g->add_outputs();
    out->set_kind(kind);
    out->set_value(value);
    out->set_name(name);
  }
  // `schema` is the full ATen schema: target and overload are read from it.
  Node *node(const std::string &schema, const std::string &out, int line) {
    Node *n = g->add_nodes();
    std::string head = schema.substr(0, schema.find('('));
    size_t dot = head.find('.');
    n->set_target(head.substr(0, dot));
    n->set_overload(dot == std::string::npos ? "default" : head.substr(dot + 1));
    n->set_schema(schema);
    n->add_outputs(out);
    n->mutable_loc()->set_file("model.py");
    n->mutable_loc()->set_line(line);
    n->mutable_loc()->set_code("return self.net(x)");
    return n;
  }
  static void tensor(Node *n, const std::string &name, const std::string &value) {
    Argument *a = n->add_args();
    a->set_name(name);
    a->set_tensor(value);
  }
  static void integer(Node *n, const std::string &name, int64_t v) {
    Argument *a = n->add_args();
    a->set_name(name);
    a->mutable_int_value()->set_value(v);
  }
  static void ints(Node *n, const std::string &name, std::vector<int64_t> vs) {
    Argument *a = n->add_args();
    a->set_name(name);
    for (int64_t v : vs)
      a->mutable_ints()->add_values()->set_value(v);
  }
  static void boolean(Node *n, const std::string &name, bool v) {
    Argument *a = n->add_args();
    a->set_name(name);
    a->set_bool_value(v);
  }

private:
  Graph *g;
  int64_t nextStorage = 0;
};

// Appends a weight of f32 values to the blob (64-byte aligned) and its entry.
inline void addWeight(Seed &seed, const std::string &fqn, std::vector<int64_t> sizes) {
  auto *w = seed.message.add_weights();
  w->set_name(fqn);
  w->mutable_meta()->set_dtype(pt2c::artifact::F32);
  int64_t count = 1;
  for (int64_t s : sizes) {
    w->mutable_meta()->add_sizes()->set_value(s);
    count *= s;
  }
  for (int64_t s : contiguousStrides(sizes))
    w->mutable_meta()->add_strides(s);
  seed.blob.resize(llvm::alignTo(seed.blob.size(), pt2c::kArtifactAlignment), '\0');
  w->set_offset(seed.blob.size());
  w->set_nbytes(count * 4);
  for (int64_t i = 0; i < count; ++i) {
    float f = static_cast<float>((i * 37 % 17) - 8) / 16.0f;
    seed.blob.append(reinterpret_cast<const char *>(&f), 4);
  }
}

inline Seed newSeed(const std::string &name) {
  Seed s;
  s.name = name;
  s.message.set_format_version(2);
  s.message.set_producer("pt2c-exporter torch=2.5.0 python=3.11");
  s.message.set_model_path("model.py");
  s.message.add_graphs()->set_name("forward");
  return s;
}

// nn.Sequential(Linear(8, 16), ReLU(), Linear(16, 8)) plus a residual add.
inline Seed mlpSeed() {
  Seed s = newSeed("mlp");
  GraphBuilder g(s.message.mutable_graphs(0));
  g.value("x", {4, 8});
  for (auto [v, sizes] : std::vector<std::pair<std::string, std::vector<int64_t>>>{{"w1", {16, 8}},
                                                                                   {"b1", {16}},
                                                                                   {"w2", {8, 16}},
                                                                                   {"b2", {8}},
                                                                                   {"t1", {8, 16}},
                                                                                   {"h", {4, 16}},
                                                                                   {"r", {4, 16}},
                                                                                   {"t2", {16, 8}},
                                                                                   {"o", {4, 8}},
                                                                                   {"y", {4, 8}}})
    g.value(v, sizes);
  g.input("x", "x");
  const char *fqns[] = {"net.0.weight", "net.0.bias", "net.2.weight", "net.2.bias"};
  const char *values[] = {"w1", "b1", "w2", "b2"};
  for (int i = 0; i < 4; ++i)
    g.input(values[i], fqns[i], pt2c::artifact::InputSpec::PARAMETER);
  addWeight(s, "net.0.weight", {16, 8});
  addWeight(s, "net.0.bias", {16});
  addWeight(s, "net.2.weight", {8, 16});
  addWeight(s, "net.2.bias", {8});
  const std::string t = "aten::t(Tensor(a) self) -> Tensor(a)";
  const std::string addmm = "aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, "
                            "Scalar alpha=1) -> Tensor";
  GraphBuilder::tensor(g.node(t, "t1", 10), "self", "w1");
  Node *n = g.node(addmm, "h", 10);
  GraphBuilder::tensor(n, "self", "b1");
  GraphBuilder::tensor(n, "mat1", "x");
  GraphBuilder::tensor(n, "mat2", "t1");
  GraphBuilder::tensor(g.node("aten::relu(Tensor self) -> Tensor", "r", 11), "self", "h");
  GraphBuilder::tensor(g.node(t, "t2", 12), "self", "w2");
  n = g.node(addmm, "o", 12);
  GraphBuilder::tensor(n, "self", "b2");
  GraphBuilder::tensor(n, "mat1", "r");
  GraphBuilder::tensor(n, "mat2", "t2");
  n = g.node("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", "y", 13);
  GraphBuilder::tensor(n, "self", "o");
  GraphBuilder::tensor(n, "other", "x");
  GraphBuilder::integer(n, "alpha", 1);
  g.output("y", "0");
  return s;
}

// x.view(6, 4).t() reshaped, squared, summed over a dim, and concatenated with itself.
inline Seed viewsSeed() {
  Seed s = newSeed("views");
  GraphBuilder g(s.message.mutable_graphs(0));
  g.value("x", {2, 3, 4});
  g.value("a", {6, 4}, pt2c::artifact::F32, 1);
  g.value("b", {4, 6}, pt2c::artifact::F32, 1);
  s.message.mutable_graphs(0)->mutable_values(2)->mutable_meta()->clear_strides();
  s.message.mutable_graphs(0)->mutable_values(2)->mutable_meta()->add_strides(1);
  s.message.mutable_graphs(0)->mutable_values(2)->mutable_meta()->add_strides(4);
  for (auto [v, sizes] : std::vector<std::pair<std::string, std::vector<int64_t>>>{
           {"c", {2, 12}}, {"d", {2, 12}}, {"e", {2}}, {"p", {12, 2}}, {"f", {4, 12}}})
    g.value(v, sizes);
  g.input("x", "x");
  Node *n = g.node("aten::view(Tensor(a) self, SymInt[] size) -> Tensor(a)", "a", 20);
  GraphBuilder::tensor(n, "self", "x");
  GraphBuilder::ints(n, "size", {6, 4});
  n = g.node("aten::transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)", "b", 21);
  GraphBuilder::tensor(n, "self", "a");
  GraphBuilder::integer(n, "dim0", 0);
  GraphBuilder::integer(n, "dim1", 1);
  n = g.node("aten::reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)", "c", 22);
  GraphBuilder::tensor(n, "self", "b");
  GraphBuilder::ints(n, "shape", {2, 12});
  n = g.node("aten::mul.Tensor(Tensor self, Tensor other) -> Tensor", "d", 23);
  GraphBuilder::tensor(n, "self", "c");
  GraphBuilder::tensor(n, "other", "c");
  n = g.node("aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, "
             "ScalarType? dtype=None) -> Tensor",
             "e", 24);
  GraphBuilder::tensor(n, "self", "d");
  GraphBuilder::ints(n, "dim", {1});
  GraphBuilder::boolean(n, "keepdim", false);
  n = g.node("aten::permute(Tensor(a) self, int[] dims) -> Tensor(a)", "p", 25);
  GraphBuilder::tensor(n, "self", "c");
  GraphBuilder::ints(n, "dims", {1, 0});
  n = g.node("aten::cat(Tensor[] tensors, int dim=0) -> Tensor", "f", 26);
  Argument *list = n->add_args();
  list->set_name("tensors");
  list->mutable_tensors()->add_values("c");
  list->mutable_tensors()->add_values("d");
  GraphBuilder::integer(n, "dim", 0);
  g.output("e", "0");
  g.output("f", "1");
  g.output("p", "2");
  return s;
}

// Conv2d(3, 4, 3, padding=1) + ReLU.
inline Seed convSeed() {
  Seed s = newSeed("conv");
  GraphBuilder g(s.message.mutable_graphs(0));
  g.value("x", {1, 3, 8, 8});
  g.value("w", {4, 3, 3, 3});
  g.value("b", {4});
  g.value("c", {1, 4, 8, 8});
  g.value("y", {1, 4, 8, 8});
  g.input("x", "x");
  g.input("w", "conv.weight", pt2c::artifact::InputSpec::PARAMETER);
  g.input("b", "conv.bias", pt2c::artifact::InputSpec::PARAMETER);
  addWeight(s, "conv.weight", {4, 3, 3, 3});
  addWeight(s, "conv.bias", {4});
  Node *n = g.node("aten::convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, "
                   "SymInt[] padding, SymInt[] dilation, bool transposed, "
                   "SymInt[] output_padding, SymInt groups) -> Tensor",
                   "c", 30);
  GraphBuilder::tensor(n, "input", "x");
  GraphBuilder::tensor(n, "weight", "w");
  GraphBuilder::tensor(n, "bias", "b");
  GraphBuilder::ints(n, "stride", {1, 1});
  GraphBuilder::ints(n, "padding", {1, 1});
  GraphBuilder::ints(n, "dilation", {1, 1});
  GraphBuilder::boolean(n, "transposed", false);
  GraphBuilder::ints(n, "output_padding", {0, 0});
  GraphBuilder::integer(n, "groups", 1);
  GraphBuilder::tensor(g.node("aten::relu(Tensor self) -> Tensor", "y", 31), "self", "c");
  g.output("y", "0");
  return s;
}

// y = x * scale with x's dim 0 the dynamic dimension "batch" in [1, 16], and a counter
// buffer written in place (count.add_(1): a buffer mutation output).
inline Seed dynamicSeed() {
  Seed s = newSeed("dynamic");
  Graph *graph = s.message.mutable_graphs(0);
  GraphBuilder g(graph);
  g.value("x", {4, 8});
  g.value("scale", {8});
  g.value("count", {1});
  g.value("y", {4, 8});
  g.value("count1", {1});
  for (int v : {0, 3}) {
    auto *size = graph->mutable_values(v)->mutable_meta()->mutable_sizes(0);
    size->set_expr("batch");
    auto *term = size->mutable_symbolic()->add_terms();
    term->set_coefficient(1);
    term->add_symbols("batch");
    size->set_hint(4);
  }
  auto *dim = graph->add_dynamic_dims();
  dim->set_name("batch");
  dim->set_min(1);
  dim->set_max(16);
  dim->add_traced_sizes(4);
  auto *where = dim->add_inputs();
  where->set_input("x");
  where->set_dim(0);
  g.input("x", "x");
  g.input("scale", "scale", pt2c::artifact::InputSpec::BUFFER);
  g.input("count", "count", pt2c::artifact::InputSpec::BUFFER);
  addWeight(s, "scale", {8});
  addWeight(s, "count", {1});
  Node *n = g.node("aten::mul.Tensor(Tensor self, Tensor other) -> Tensor", "y", 40);
  GraphBuilder::tensor(n, "self", "x");
  GraphBuilder::tensor(n, "other", "scale");
  n = g.node("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", "count1",
             41);
  GraphBuilder::tensor(n, "self", "count");
  Argument *one = n->add_args();
  one->set_name("other");
  one->mutable_int_value()->set_value(1);
  GraphBuilder::integer(n, "alpha", 1);
  g.output("y", "0");
  g.output("count1", "count", pt2c::artifact::OutputSpec::BUFFER_MUTATION);
  return s;
}

inline std::vector<Seed> allSeeds() { return {mlpSeed(), viewsSeed(), convSeed(), dynamicSeed()}; }

} // namespace pt2c_test

#endif // PT2C_TESTS_UNIT_ARTIFACT_SEEDS_H_
