// Why decompositions did not apply, kept while pt2c-decompose-aten-to-prim runs so that
// the conversion's "failed to legalize operation 'aten.X'" error can say why: MLIR
// reports pattern match failures only in debug builds, and "failed to legalize" alone
// leaves the user guessing which argument or shape pt2c does not support.
#ifndef PT2C_COMPILER_TRANSFORMS_DECOMPOSE_FAILURELOG_H
#define PT2C_COMPILER_TRANSFORMS_DECOMPOSE_FAILURELOG_H

#include <map>
#include <string>
#include <utility>

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/PatternMatch.h"

namespace pt2c::decompose {

/// The reasons recorded while it is alive (one pass run on this thread).
class FailureLog {
public:
  FailureLog() : previous(active()) { active() = this; }
  ~FailureLog() { active() = previous; }
  FailureLog(const FailureLog &) = delete;
  FailureLog &operator=(const FailureLog &) = delete;

  /// Records why `op` did not decompose (in the live log, if any); the first reason
  /// for an op at a location is kept.
  static void record(mlir::Operation *op, const std::string &reason) {
    if (FailureLog *log = active(); log && !reason.empty())
      log->reasons.emplace(
          Key{op->getLoc().getAsOpaquePointer(), op->getName().getStringRef().str()}, reason);
  }

  /// Appends the recorded reason to a "failed to legalize operation 'aten.X'" error.
  void explain(mlir::Diagnostic &diag) const {
    std::string message = diag.str();
    llvm::StringRef rest(message);
    if (diag.getSeverity() != mlir::DiagnosticSeverity::Error ||
        !rest.consume_front("failed to legalize operation '"))
      return;
    std::string name = rest.take_until([](char c) { return c == '\''; }).str();
    auto it = reasons.find(Key{diag.getLocation().getAsOpaquePointer(), name});
    if (it != reasons.end())
      diag << ": " << it->second;
  }

private:
  using Key = std::pair<const void *, std::string>;
  static FailureLog *&active() {
    static thread_local FailureLog *log = nullptr;
    return log;
  }

  std::map<Key, std::string> reasons;
  FailureLog *previous;
};

/// A decomposition pattern's failure: logged for the error message, and reported to
/// the rewriter as usual.
inline mlir::LogicalResult decompositionFailed(mlir::PatternRewriter &rewriter, mlir::Operation *op,
                                               const std::string &reason) {
  FailureLog::record(op, reason);
  return rewriter.notifyMatchFailure(op, reason);
}

} // namespace pt2c::decompose

#endif // PT2C_COMPILER_TRANSFORMS_DECOMPOSE_FAILURELOG_H
