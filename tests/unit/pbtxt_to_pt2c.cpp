// pbtxt_to_pt2c IN.pbtxt OUT.pt2c: a .pt2c artifact (without weights) from the text form
// of its Artifact message, so that tests can compile hand-written graphs, including
// artifact fields the exporter of this checkout does not write yet.
#include <fstream>
#include <iostream>
#include <sstream>

#include "google/protobuf/text_format.h"
#include "tests/unit/artifact_bytes.h"

int main(int argc, char **argv) {
  if (argc != 3) {
    std::cerr << "usage: pbtxt_to_pt2c IN.pbtxt OUT.pt2c\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  std::stringstream text;
  text << in.rdbuf();
  pt2c::artifact::Artifact message;
  if (!in || !google::protobuf::TextFormat::ParseFromString(text.str(), &message)) {
    std::cerr << "pbtxt_to_pt2c: cannot read an Artifact message from " << argv[1] << "\n";
    return 1;
  }
  std::ofstream out(argv[2], std::ios::binary);
  out << pt2c_test::serializeArtifact(message, "");
  return out.good() ? 0 : 1;
}
