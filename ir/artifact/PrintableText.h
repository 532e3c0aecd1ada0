// Names and text inside an artifact are untrusted bytes: a damaged or hostile file can
// hold escape sequences that would drive the terminal an error message is printed on.
// printableText() keeps ordinary text (UTF-8 included) and writes every C0/C1 control
// character, DEL and any byte that is not valid UTF-8 as \xNN.
#ifndef PT2C_IR_ARTIFACT_PRINTABLETEXT_H_
#define PT2C_IR_ARTIFACT_PRINTABLETEXT_H_

#include <string>

#include "llvm/ADT/StringRef.h"

namespace pt2c {

std::string printableText(llvm::StringRef text);

} // namespace pt2c

#endif // PT2C_IR_ARTIFACT_PRINTABLETEXT_H_
