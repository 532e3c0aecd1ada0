// Mutation fuzzing of what `pt2c compile` reads: .pt2c artifacts derived from four small
// seeds (tests/unit/artifact_seeds.h) run through the compiler's own front half, the
// functions compileArtifact calls (readArtifactBuffer, then ArtifactToPrim.h: import,
// verification, functionalization, aten -> prim decomposition, weight folding). Each
// mutant must end in success or a clean error; an LLVM fatal error, an assertion or a
// crash kills the test, after the signal handler below has named the mutant.
//
// - byte level: bits flipped, the file truncated or extended, header fields rewritten;
//   every such mutant must be refused by the header and CRC-32 checks;
// - field level: the decoded message mutated by protobuf reflection anywhere in its
//   tree (numbers set to extremes, strings swapped for other names of the artifact,
//   garbage or control bytes, repeated entries dropped, duplicated or swapped, oneof
//   kinds changed, enums set out of range), plus structured mutations of sizes and
//   weight entries, then written again with a correct CRC so the deeper checks run.
//
// PT2C_FUZZ_ARTIFACTS mutants in all (default 20000, about 15 s on the 2-core build
// box), seeded by PT2C_FUZZ_SEED (default fixed): raise the first for a longer run by hand.
#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "compiler/driver/ArtifactToPrim.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "google/protobuf/stubs/logging.h"
#include "ir/Dialects.h"
#include "ir/artifact/PrintableText.h"
#include "mlir/IR/Diagnostics.h"
#include "tests/unit/artifact_seeds.h"

namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

uint64_t envOr(const char *name, uint64_t fallback) {
  const char *v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

// What the mutant being run is, for the crash handler (async-signal-safe: a fixed buffer).
char gCurrent[512];

void onFatalSignal(int sig) {
  const char head[] = "\nartifact_fuzz_test: died on mutant: ";
  ssize_t ignored = write(2, head, sizeof head - 1);
  ignored = write(2, gCurrent, strnlen(gCurrent, sizeof gCurrent));
  ignored = write(2, "\n", 1);
  (void)ignored;
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// Values that break arithmetic: signs, zero, one, powers of two at the type's edges.
int64_t extremeInt(std::mt19937_64 &rng) {
  static const int64_t kValues[] = {0,
                                    1,
                                    -1,
                                    2,
                                    3,
                                    7,
                                    64,
                                    -64,
                                    255,
                                    65536,
                                    INT32_MAX,
                                    INT32_MIN,
                                    (int64_t)UINT32_MAX,
                                    INT64_MAX,
                                    INT64_MIN,
                                    INT64_MAX / 2 + 1,
                                    1LL << 40,
                                    -(1LL << 40)};
  return kValues[rng() % (sizeof kValues / sizeof kValues[0])];
}

class Mutator {
public:
  Mutator(std::mt19937_64 &rng, const pt2c_test::Seed &seed) : rng(rng) {
    collectStrings(seed.message);
  }

  // One reflection-level change somewhere in `m`'s tree; its description is appended.
  void mutateField(Message &root, std::string &log) {
    std::vector<Site> sites;
    collectSites(root, sites);
    if (sites.empty())
      return;
    Site s = sites[rng() % sites.size()];
    mutateSite(s, log);
  }

  // A change a real exporter bug or a hand-edited file would make: a size, a stride, a
  // weight's offset or length, its dtype.
  void mutateStructured(pt2c::artifact::Artifact &a, std::string &log) {
    if (a.graphs_size() == 0)
      return;
    auto *g = a.mutable_graphs(rng() % a.graphs_size());
    switch (rng() % 4) {
    case 0: { // one size of one value (user input sizes among them) off by a little
      if (g->values_size() == 0)
        return;
      auto *meta = g->mutable_values(rng() % g->values_size())->mutable_meta();
      if (meta->sizes_size() == 0)
        return;
      auto *size = meta->mutable_sizes(rng() % meta->sizes_size());
      if (size->has_expr())
        return;
      size->set_value(size->value() + (rng() % 2 ? 1 : -1) * (1 + rng() % 3));
      log += " size+-";
      return;
    }
    case 1: { // rank changed
      if (g->values_size() == 0)
        return;
      auto *meta = g->mutable_values(rng() % g->values_size())->mutable_meta();
      if (rng() % 2 && meta->sizes_size() > 0)
        meta->mutable_sizes()->RemoveLast();
      else
        meta->add_sizes()->set_value(1 + rng() % 4);
      log += " rank";
      return;
    }
    case 2: { // a weight moved by a multiple of the alignment or resized
      if (a.weights_size() == 0)
        return;
      auto *w = a.mutable_weights(rng() % a.weights_size());
      if (rng() % 2)
        w->set_offset(w->offset() + 64 * ((int64_t)(rng() % 5) - 2));
      else
        w->set_nbytes(w->nbytes() + 4 * ((int64_t)(rng() % 5) - 2));
      log += " weight-region";
      return;
    }
    default: { // an argument list element changed
      if (g->nodes_size() == 0)
        return;
      auto *n = g->mutable_nodes(rng() % g->nodes_size());
      for (auto &arg : *n->mutable_args())
        if (arg.has_ints() && arg.ints().values_size() > 0) {
          arg.mutable_ints()
              ->mutable_values(rng() % arg.ints().values_size())
              ->set_value((int64_t)(rng() % 9) - 4);
          log += " ints[" + arg.name() + "]";
          return;
        }
      return;
    }
    }
  }

private:
  struct Site {
    Message *message;
    const FieldDescriptor *field;
  };

  void collectStrings(const Message &m) {
    const Reflection *r = m.GetReflection();
    std::vector<const FieldDescriptor *> fields;
    r->ListFields(m, &fields);
    for (const FieldDescriptor *f : fields) {
      if (f->type() == FieldDescriptor::TYPE_STRING) {
        if (f->is_repeated())
          for (int i = 0; i < r->FieldSize(m, f); ++i)
            strings.push_back(r->GetRepeatedString(m, f, i));
        else
          strings.push_back(r->GetString(m, f));
      } else if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
        if (f->is_repeated())
          for (int i = 0; i < r->FieldSize(m, f); ++i)
            collectStrings(r->GetRepeatedMessage(m, f, i));
        else
          collectStrings(r->GetMessage(m, f));
      }
    }
  }

  // Every field of every message in the tree, set or not: an unset field can be set
  // (switching a oneof's kind, adding an entry to an empty list).
  void collectSites(Message &m, std::vector<Site> &sites) {
    const Reflection *r = m.GetReflection();
    const auto *d = m.GetDescriptor();
    for (int i = 0; i < d->field_count(); ++i) {
      const FieldDescriptor *f = d->field(i);
      sites.push_back({&m, f});
      if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE)
        continue;
      if (f->is_repeated()) {
        for (int j = 0; j < r->FieldSize(m, f); ++j)
          collectSites(*r->MutableRepeatedMessage(&m, f, j), sites);
      } else if (r->HasField(m, f)) {
        collectSites(*r->MutableMessage(&m, f), sites);
      }
    }
  }

  std::string newString() {
    switch (rng() % 6) {
    case 0:
      return "";
    case 1:
      return "\x1b[31mred\x1b[0m\r\x07";
    case 2:
      return std::string("\xff\xfe bad utf-8", 13);
    case 3:
      return std::string(1 + rng() % 300, 'a' + rng() % 26);
    default:
      return strings.empty() ? "x" : strings[rng() % strings.size()];
    }
  }

  void setScalar(Message &m, const FieldDescriptor *f, int index, std::string &log) {
    const Reflection *r = m.GetReflection();
    bool rep = f->is_repeated();
    switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT64: {
      int64_t v = rng() % 2 ? extremeInt(rng) : (int64_t)(rng() % 9) - 4;
      rep ? r->SetRepeatedInt64(&m, f, index, v) : r->SetInt64(&m, f, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_UINT64: {
      uint64_t v = rng() % 2 ? (uint64_t)extremeInt(rng) : rng() % 1024;
      rep ? r->SetRepeatedUInt64(&m, f, index, v) : r->SetUInt64(&m, f, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_INT32: {
      int32_t v = (int32_t)(rng() % 2 ? extremeInt(rng) : (int64_t)(rng() % 9) - 4);
      rep ? r->SetRepeatedInt32(&m, f, index, v) : r->SetInt32(&m, f, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_UINT32: {
      uint32_t v = (uint32_t)extremeInt(rng);
      rep ? r->SetRepeatedUInt32(&m, f, index, v) : r->SetUInt32(&m, f, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_DOUBLE: {
      static const double kDoubles[] = {0.0,       -0.0,      1e308,  -1e308,
                                        1.0 / 0.0, 0.0 / 0.0, 1e-320, 3.5};
      double v = kDoubles[rng() % 8];
      rep ? r->SetRepeatedDouble(&m, f, index, v) : r->SetDouble(&m, f, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_FLOAT: {
      float v = rng() % 2 ? 0.0f / 0.0f : -1.0f;
      rep ? r->SetRepeatedFloat(&m, f, index, v) : r->SetFloat(&m, f, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_BOOL: {
      bool v = rng() % 2;
      rep ? r->SetRepeatedBool(&m, f, index, v) : r->SetBool(&m, f, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_ENUM: {
      int v =
          rng() % 3 ? (int)(rng() % (f->enum_type()->value_count() + 2)) - 1 : (int)extremeInt(rng);
      rep ? r->SetRepeatedEnumValue(&m, f, index, v) : r->SetEnumValue(&m, f, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_STRING: {
      std::string v = newString();
      rep ? r->SetRepeatedString(&m, f, index, v) : r->SetString(&m, f, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_MESSAGE:
      // An entry cleared to its defaults (an empty name, no sizes, kind unset).
      (rep ? r->MutableRepeatedMessage(&m, f, index) : r->MutableMessage(&m, f))->Clear();
      break;
    }
    log += " set:" + f->full_name();
  }

  void mutateSite(const Site &s, std::string &log) {
    Message &m = *s.message;
    const Reflection *r = m.GetReflection();
    const FieldDescriptor *f = s.field;
    if (!f->is_repeated()) {
      if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE && !r->HasField(m, f)) {
        r->MutableMessage(&m, f); // present with defaults: a oneof switched to it
        log += " add:" + f->full_name();
        return;
      }
      setScalar(m, f, -1, log);
      return;
    }
    int n = r->FieldSize(m, f);
    unsigned what = n == 0 ? 0 : rng() % 5;
    switch (what) {
    case 0: // append: a copy of an entry, or a default one
      if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
        Message *added = r->AddMessage(&m, f);
        if (n > 0)
          added->CopyFrom(r->GetRepeatedMessage(m, f, rng() % n));
      } else {
        switch (f->cpp_type()) {
        case FieldDescriptor::CPPTYPE_STRING:
          r->AddString(&m, f, newString());
          break;
        case FieldDescriptor::CPPTYPE_INT64:
          r->AddInt64(&m, f, extremeInt(rng));
          break;
        case FieldDescriptor::CPPTYPE_DOUBLE:
          r->AddDouble(&m, f, 2.0);
          break;
        case FieldDescriptor::CPPTYPE_BOOL:
          r->AddBool(&m, f, true);
          break;
        case FieldDescriptor::CPPTYPE_ENUM:
          r->AddEnumValue(&m, f, 1);
          break;
        default:
          return;
        }
      }
      log += " append:" + f->full_name();
      return;
    case 1: { // drop one entry (swap it to the end first)
      r->SwapElements(&m, f, rng() % n, n - 1);
      r->RemoveLast(&m, f);
      log += " drop:" + f->full_name();
      return;
    }
    case 2:
      if (n < 2)
        return;
      r->SwapElements(&m, f, rng() % n, rng() % n);
      log += " swap:" + f->full_name();
      return;
    default:
      if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
        std::vector<Site> inner;
        collectSites(*r->MutableRepeatedMessage(&m, f, rng() % n), inner);
        if (!inner.empty())
          mutateSite(inner[rng() % inner.size()], log);
        return;
      }
      setScalar(m, f, rng() % n, log);
      return;
    }
  }

  std::mt19937_64 &rng;
  std::vector<std::string> strings;
};

// Byte-level damage to a written file; never the identity.
std::string mutateBytes(std::string file, std::mt19937_64 &rng, std::string &log) {
  switch (rng() % 5) {
  case 0: {
    std::string original = file;
    int flips = 1 + rng() % 4;
    for (int i = 0; i < flips; ++i)
      file[rng() % file.size()] ^= (char)(1u << (rng() % 8));
    // Two flips of one bit cancel each other: then flip one bit again.
    if (file == original)
      file[rng() % file.size()] ^= 1;
    log = "flip";
    return file;
  }
  case 1:
    file.resize(rng() % file.size());
    log = "truncate";
    return file;
  case 2:
    file.append(1 + rng() % 200, (char)rng());
    log = "extend";
    return file;
  case 3: { // the message length
    uint64_t len = llvm::support::endian::read64le(&file[8]);
    static const int64_t kDeltas[] = {-1, 1, -64, 64};
    uint64_t v = rng() % 2 ? len + kDeltas[rng() % 4] : (uint64_t)extremeInt(rng);
    if (v == len)
      v = len + 1;
    llvm::support::endian::write64le(&file[8], v);
    log = "length";
    return file;
  }
  default: { // magic, version, CRC or reserved byte
    size_t at = rng() % 24;
    if (at >= 8 && at < 16)
      at = 16 + rng() % 8;
    file[at] = (char)(file[at] + 1 + rng() % 255);
    log = "header";
    return file;
  }
  }
}

enum Outcome { kRefusedByRead, kRefusedByImport, kRefusedByLowering, kCompiled, kOutcomes };

struct Result {
  Outcome outcome;
  std::string error; // the llvm::Error text (diagnostics are collected separately)
  std::vector<std::string> diagnostics;
};

// The driver's steps in the driver's order, on one mutant's bytes.
Result runFrontHalf(const std::string &bytes) {
  Result result;
  auto read = pt2c::readArtifactBuffer(llvm::MemoryBuffer::getMemBufferCopy(bytes, "mutant.pt2c"),
                                       "mutant.pt2c");
  if (!read) {
    result.outcome = kRefusedByRead;
    result.error = llvm::toString(read.takeError());
    return result;
  }
  mlir::DialectRegistry registry;
  pt2c::registerAllDialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    result.diagnostics.push_back(d.str());
    return mlir::success();
  });
  auto module = pt2c::importArtifactModule(context, *read, "mutant.pt2c");
  if (!module) {
    result.outcome = kRefusedByImport;
    result.error = llvm::toString(module.takeError());
    return result;
  }
  if (auto err = pt2c::lowerAtenToPrim(context, **module, *read, {})) {
    result.outcome = kRefusedByLowering;
    result.error = llvm::toString(std::move(err));
    return result;
  }
  result.outcome = kCompiled;
  return result;
}

bool hasControlBytes(const std::string &text) {
  for (unsigned char c : text)
    if ((c < 0x20 && c != '\n') || c == 0x7f)
      return true;
  return false;
}

} // namespace

TEST_CASE("every seed artifact compiles to prim ops") {
  for (const pt2c_test::Seed &seed : pt2c_test::allSeeds()) {
    INFO(seed.name);
    Result r = runFrontHalf(pt2c_test::serializeArtifact(seed.message, seed.blob));
    for (const auto &d : r.diagnostics)
      UNSCOPED_INFO(d);
    CHECK(r.error == "");
    CHECK(r.outcome == kCompiled);
  }
}

TEST_CASE("mutated artifacts end in a clean error or compile, never in an abort") {
  const uint64_t total = envOr("PT2C_FUZZ_ARTIFACTS", 20000);
  const uint64_t seedValue = envOr("PT2C_FUZZ_SEED", 20240615);
  std::signal(SIGABRT, onFatalSignal);
  std::signal(SIGSEGV, onFatalSignal);
  std::signal(SIGBUS, onFatalSignal);
  std::signal(SIGFPE, onFatalSignal);
  std::signal(SIGILL, onFatalSignal);
  // Writing a mutant with a string that is not UTF-8 makes protobuf log an error; the
  // reader's own messages are tested to reach its error instead (artifact reader test).
  google::protobuf::LogHandler *previous = google::protobuf::SetLogHandler(nullptr);

  std::vector<pt2c_test::Seed> seeds = pt2c_test::allSeeds();
  std::mt19937_64 rng(seedValue);
  uint64_t counts[kOutcomes] = {};
  uint64_t byteMutants = 0;
  double slowest = 0;
  std::string slowestMutant;
  for (uint64_t i = 0; i < total; ++i) {
    const pt2c_test::Seed &seed = seeds[i % seeds.size()];
    std::string log;
    std::string bytes;
    // One mutant in four is damaged bytes; the rest are well-formed files whose
    // contents lie.
    bool byteLevel = rng() % 4 == 0;
    if (byteLevel) {
      ++byteMutants;
      bytes = mutateBytes(pt2c_test::serializeArtifact(seed.message, seed.blob), rng, log);
    } else {
      pt2c::artifact::Artifact message = seed.message;
      Mutator mutator(rng, seed);
      int changes = 1 + rng() % 3;
      for (int c = 0; c < changes; ++c) {
        if (rng() % 3 == 0)
          mutator.mutateStructured(message, log);
        else
          mutator.mutateField(message, log);
      }
      bytes = pt2c_test::serializeArtifact(message, seed.blob);
    }
    snprintf(gCurrent, sizeof gCurrent, "#%llu (PT2C_FUZZ_SEED=%llu) seed %s:%s",
             (unsigned long long)i, (unsigned long long)seedValue, seed.name.c_str(), log.c_str());
    auto start = std::chrono::steady_clock::now();
    Result r = runFrontHalf(bytes);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (seconds > slowest) {
      slowest = seconds;
      slowestMutant = gCurrent;
    }
    ++counts[r.outcome];
    INFO(gCurrent << "\n" << r.error);
    // Damaged bytes never get past the header and CRC-32 checks.
    if (byteLevel)
      REQUIRE(r.outcome == kRefusedByRead);
    // A refusal says why; a read error quotes the artifact's names escaped.
    if (r.outcome != kCompiled)
      REQUIRE(!r.error.empty());
    if (r.outcome == kRefusedByRead)
      REQUIRE(!hasControlBytes(r.error));
  }
  google::protobuf::SetLogHandler(previous);
  std::signal(SIGABRT, SIG_DFL);
  std::signal(SIGSEGV, SIG_DFL);
  std::signal(SIGBUS, SIG_DFL);
  std::signal(SIGFPE, SIG_DFL);
  std::signal(SIGILL, SIG_DFL);

  WARN(total << " mutants (" << byteMutants << " byte level), seed " << seedValue
             << ": refused by the reader " << counts[kRefusedByRead] << ", by import "
             << counts[kRefusedByImport] << ", by lowering " << counts[kRefusedByLowering]
             << ", compiled " << counts[kCompiled] << "; slowest " << slowest << " s ("
             << slowestMutant << ")");
  // A hang shows as a mutant far slower than the seeds (milliseconds each).
  CHECK(slowest < 5.0);
  // The field mutations reach every stage: a fuzzer stuck at the reader tests nothing.
  if (total >= 1000) {
    CHECK(counts[kRefusedByImport] > 0);
    CHECK(counts[kCompiled] > 0);
  }
}

// ---- What the fuzzer found, and the known cases, as named checks.

TEST_CASE("a convolution whose groups do not split its channels is an error, not an abort") {
  // prim.convolution's type inference failed inside ODS's builder: "LLVM ERROR: Failed
  // to infer result type(s)" (exit 134) after the aten op had verified.
  pt2c_test::Seed seed = pt2c_test::convSeed();
  auto *conv = seed.message.mutable_graphs(0)->mutable_nodes(0);
  for (auto &arg : *conv->mutable_args())
    if (arg.name() == "groups")
      arg.mutable_int_value()->set_value(2);
  Result r = runFrontHalf(pt2c_test::serializeArtifact(seed.message, seed.blob));
  CHECK(r.outcome != kCompiled);
  CHECK(!r.error.empty());
  bool named = false;
  for (const auto &d : r.diagnostics)
    named |= d.find("channels") != std::string::npos;
  CHECK(named);
}

TEST_CASE("an input whose size disagrees with its graph is an error, not an abort") {
  pt2c_test::Seed seed = pt2c_test::mlpSeed();
  seed.message.mutable_graphs(0)->mutable_values(0)->mutable_meta()->mutable_sizes(1)->set_value(9);
  Result r = runFrontHalf(pt2c_test::serializeArtifact(seed.message, seed.blob));
  CHECK(r.outcome != kCompiled);
  CHECK(!r.error.empty());
  CHECK(!r.diagnostics.empty());
}

TEST_CASE("a message that does not parse is one error with protobuf's reason, escaped") {
  pt2c_test::Seed seed = pt2c_test::mlpSeed();
  seed.message.mutable_graphs(0)->mutable_nodes(0)->set_target("aten::\xff\x1b[2J");
  google::protobuf::LogHandler *previous = google::protobuf::SetLogHandler(nullptr);
  std::string bytes = pt2c_test::serializeArtifact(seed.message, seed.blob);
  google::protobuf::SetLogHandler(previous);
  Result r = runFrontHalf(bytes);
  CHECK(r.outcome == kRefusedByRead);
  CHECK(r.error.find("does not parse") != std::string::npos);
  CHECK(r.error.find("invalid UTF-8") != std::string::npos);
  CHECK(!hasControlBytes(r.error));
}

TEST_CASE("names in the reader's errors are escaped") {
  pt2c_test::Seed seed = pt2c_test::mlpSeed();
  auto *w = seed.message.mutable_weights(0);
  w->set_name("net.\x1b]0;owned\x07");
  w->set_nbytes(w->nbytes() + 4);
  Result r = runFrontHalf(pt2c_test::serializeArtifact(seed.message, seed.blob));
  CHECK(r.outcome == kRefusedByRead);
  CHECK(r.error.find("'net.\\x1b]0;owned\\x07'") != std::string::npos);
  CHECK(!hasControlBytes(r.error));
}

TEST_CASE("a damaged byte in the padding the CRC-32 does not cover is refused") {
  pt2c_test::Seed seed = pt2c_test::viewsSeed();
  pt2c_test::addWeight(seed, "unused", {3});
  std::string bytes = pt2c_test::serializeArtifact(seed.message, seed.blob);
  uint64_t length = llvm::support::endian::read64le(&bytes[8]);
  size_t padding = pt2c::kArtifactHeaderSize + length;
  REQUIRE(padding % pt2c::kArtifactAlignment != 0); // there is padding to damage
  bytes[padding] = 1;
  Result r = runFrontHalf(bytes);
  CHECK(r.outcome == kRefusedByRead);
  CHECK(r.error.find("padding") != std::string::npos);
}

TEST_CASE("cat of a number where its tensor list was is an error, not a crash") {
  // The importer makes the number a rank-0 constant; cat's shape rule then indexed the
  // dim of a rank-0 shape (SIGSEGV in the verifier).
  pt2c_test::Seed seed = pt2c_test::viewsSeed();
  for (auto &node : *seed.message.mutable_graphs(0)->mutable_nodes())
    if (node.target() == "aten::cat")
      node.mutable_args(0)->set_float_value(1.5);
  Result r = runFrontHalf(pt2c_test::serializeArtifact(seed.message, seed.blob));
  CHECK(r.outcome == kRefusedByImport);
  bool named = false;
  for (const auto &d : r.diagnostics)
    named |= d.find("cannot be concatenated") != std::string::npos;
  CHECK(named);
}
