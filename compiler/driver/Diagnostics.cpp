#include "compiler/driver/Diagnostics.h"

#include "ir/artifact/PrintableText.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

namespace pt2c {
namespace {

const char *severityName(mlir::DiagnosticSeverity s) {
  switch (s) {
  case mlir::DiagnosticSeverity::Error:
    return "error";
  case mlir::DiagnosticSeverity::Warning:
    return "warning";
  case mlir::DiagnosticSeverity::Note:
    return "note";
  case mlir::DiagnosticSeverity::Remark:
    return "remark";
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

// The model.py source line the importer attached to a location (see Importer.cpp).
std::optional<llvm::StringRef> sourceCode(mlir::Location loc) {
  std::optional<llvm::StringRef> code;
  loc->walk([&](mlir::Location l) {
    if (auto fused = llvm::dyn_cast<mlir::FusedLoc>(l))
      if (auto text = llvm::dyn_cast_or_null<mlir::StringAttr>(fused.getMetadata())) {
        code = text.strref();
        return mlir::WalkResult::interrupt();
      }
    return mlir::WalkResult::advance();
  });
  return code;
}

// Messages quote names, file names and source lines from the artifact: escaped, so a
// damaged artifact cannot write control sequences to the terminal.
void print(mlir::Diagnostic &diag) {
  auto loc = fileLocation(diag.getLocation());
  bool hasLine = loc && loc->getLine() > 0;
  llvm::errs() << "pt2c: ";
  if (hasLine)
    llvm::errs() << printableText(loc->getFilename().strref()) << ":" << loc->getLine() << ": ";
  llvm::errs() << severityName(diag.getSeverity()) << ": " << printableText(diag.str()) << "\n";
  if (auto code = sourceCode(diag.getLocation()); hasLine && code)
    llvm::errs() << llvm::format("%6u | ", loc->getLine()) << printableText(*code) << "\n";
  for (mlir::Diagnostic &note : diag.getNotes())
    print(note);
}

} // namespace

UserDiagnosticPrinter::UserDiagnosticPrinter(mlir::MLIRContext *ctx)
    : mlir::ScopedDiagnosticHandler(ctx, [](mlir::Diagnostic &diag) {
        print(diag);
        return mlir::success();
      }) {}

} // namespace pt2c
