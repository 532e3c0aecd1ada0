#include "ir/artifact/PrintableText.h"

#include "llvm/Support/ConvertUTF.h"

namespace pt2c {

std::string printableText(llvm::StringRef text) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  auto escape = [&](unsigned char c) {
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 15];
  };
  const auto *p = reinterpret_cast<const llvm::UTF8 *>(text.data());
  const auto *end = p + text.size();
  while (p < end) {
    unsigned char c = *p;
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7f)
        escape(c);
      else
        out += static_cast<char>(c);
      ++p;
      continue;
    }
    unsigned length = llvm::getNumBytesForUTF8(c);
    if (length > static_cast<unsigned>(end - p) || !llvm::isLegalUTF8Sequence(p, p + length)) {
      escape(c); // not UTF-8: one byte at a time
      ++p;
      continue;
    }
    // U+0080..U+009F (C1 controls, 0xC2 0x80..0x9F): CSI among them.
    if (c == 0xC2 && p[1] < 0xA0) {
      escape(p[0]);
      escape(p[1]);
    } else {
      out.append(reinterpret_cast<const char *>(p), length);
    }
    p += length;
  }
  return out;
}

} // namespace pt2c
