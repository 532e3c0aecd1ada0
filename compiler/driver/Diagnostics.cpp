#include "compiler/driver/Diagnostics.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/LineIterator.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"

namespace pt2c {
namespace {

const char* severityName(mlir::DiagnosticSeverity s) {
  switch (s) {
    case mlir::DiagnosticSeverity::Error: return "error";
    case mlir::DiagnosticSeverity::Warning: return "warning";
    case mlir::DiagnosticSeverity::Note: return "note";
    case mlir::DiagnosticSeverity::Remark: return "remark";
  }
  return "error";
}

std::optional<mlir::FileLineColLoc> fileLocation(mlir::Location loc) {
  std::optional<mlir::FileLineColLoc> found;
  loc->walk([&](mlir::Location l) {
    if (auto f = llvm::dyn_cast<mlir::FileLineColLoc>(l)) {
      found = f;
      return mlir::WalkResult::interrupt();
    }
    return mlir::WalkResult::advance();
  });
  return found;
}

void printSourceLine(llvm::StringRef file, unsigned line) {
  auto buffer = llvm::MemoryBuffer::getFile(file);
  if (!buffer || line == 0) return;
  for (llvm::line_iterator it(**buffer, /*SkipBlanks=*/false); !it.is_at_end(); ++it)
    if (static_cast<unsigned>(it.line_number()) == line) {
      llvm::errs() << llvm::format("%6u | ", line) << *it << "\n";
      return;
    }
}

void print(mlir::Diagnostic& diag) {
  auto loc = fileLocation(diag.getLocation());
  bool hasLine = loc && loc->getLine() > 0;
  llvm::errs() << "pt2c: ";
  if (hasLine) llvm::errs() << loc->getFilename().strref() << ":" << loc->getLine() << ": ";
  llvm::errs() << severityName(diag.getSeverity()) << ": " << diag.str() << "\n";
  if (hasLine) printSourceLine(loc->getFilename().strref(), loc->getLine());
  for (mlir::Diagnostic& note : diag.getNotes()) print(note);
}

}  // namespace

UserDiagnosticPrinter::UserDiagnosticPrinter(mlir::MLIRContext* ctx)
    : mlir::ScopedDiagnosticHandler(ctx, [](mlir::Diagnostic& diag) {
        print(diag);
        return mlir::success();
      }) {}

}  // namespace pt2c
