#include "compiler/import/SchemaArgs.h"

namespace pt2c {

bool SchemaArg::isTensor() const {
  return llvm::StringRef(type).starts_with("Tensor") && !isTensorList();
}

bool SchemaArg::isTensorList() const {
  return llvm::StringRef(type).starts_with("Tensor") && llvm::StringRef(type).contains("[]");
}

std::vector<SchemaArg> parseSchemaArgs(llvm::StringRef schema) {
  std::vector<SchemaArg> args;
  size_t open = schema.find('(');
  if (open == llvm::StringRef::npos)
    return args;
  // Split the top-level argument list at commas; annotations such as Tensor(a!) nest.
  int depth = 0;
  size_t start = open + 1;
  for (size_t i = open + 1; i < schema.size(); ++i) {
    char c = schema[i];
    if (c == '(' || c == '[')
      ++depth;
    bool end = c == ')' && depth == 0;
    if (c == ')' || c == ']')
      --depth;
    if ((c == ',' && depth == 0) || end) {
      llvm::StringRef piece = schema.slice(start, i).trim();
      start = i + 1;
      if (!piece.empty() && piece != "*") {
        piece = piece.split('=').first.trim(); // drop the default value
        auto [type, name] = piece.rsplit(' ');
        args.push_back({type.trim().str(), name.trim().str()});
      }
      if (end)
        break;
    }
  }
  return args;
}

} // namespace pt2c
