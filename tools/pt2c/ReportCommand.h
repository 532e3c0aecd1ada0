// `pt2c report MODEL.pt2c [--json]`: prints the draft report an artifact carries (what
// the exporter had to assume while tracing; compiler/exporter/README.md lists the kinds).
#ifndef PT2C_TOOLS_PT2C_REPORTCOMMAND_H_
#define PT2C_TOOLS_PT2C_REPORTCOMMAND_H_

#include <string>

#include "ir/artifact/pt2c.pb.h"

namespace pt2c {

// The text layout of compiler/exporter/pt2c_exporter/report_text.py, byte for byte: a
// header line, a table (#, KIND, COUNT, LOCATION, OP) and one detail block per entry.
std::string formatReportText(const artifact::Artifact &artifact);

// {"model", "producer", "findings", "entries": [{"kind", "count", "file", "line",
// "code", "op", "message", "assumed"}]}; file, line and code are null where an entry
// has no source location.
std::string formatReportJson(const artifact::Artifact &artifact);

// Reads the artifact and prints its report to stdout. Returns the exit code: 0, or 1
// with a `pt2c: error:` line when the file cannot be read.
int printReport(const std::string &artifactPath, bool json);

} // namespace pt2c

#endif // PT2C_TOOLS_PT2C_REPORTCOMMAND_H_
