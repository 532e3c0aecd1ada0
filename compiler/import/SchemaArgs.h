// Just enough of an ATen schema string to know which arguments are tensors, e.g.
//   "aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) ->
//   Tensor"
// The importer needs this for arguments recorded as None: only the schema says whether a
// None stands for a missing tensor operand or a missing attribute.
#ifndef PT2C_COMPILER_IMPORT_SCHEMAARGS_H_
#define PT2C_COMPILER_IMPORT_SCHEMAARGS_H_

#include <string>
#include <vector>

#include "llvm/ADT/StringRef.h"

namespace pt2c {

struct SchemaArg {
  std::string type; // "Tensor", "Tensor?", "Tensor(a!)", "int[2]", "Scalar", ...
  std::string name;
  bool isTensor() const;     // Tensor, Tensor?, Tensor(a!), ...
  bool isTensorList() const; // Tensor[], Tensor?[], ...
};

// The arguments in order; empty if the string has no parenthesised argument list.
std::vector<SchemaArg> parseSchemaArgs(llvm::StringRef schema);

} // namespace pt2c

#endif // PT2C_COMPILER_IMPORT_SCHEMAARGS_H_
