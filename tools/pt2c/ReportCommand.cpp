#include "tools/pt2c/ReportCommand.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <vector>

#include "ir/artifact/ArtifactFile.h"
#include "llvm/Support/Error.h"

namespace pt2c {
namespace {

using artifact::ReportEntry;

bool hasLocation(const ReportEntry &e) { return e.has_loc() && !e.loc().file().empty(); }

std::string location(const ReportEntry &e) {
  return hasLocation(e) ? e.loc().file() + ":" + std::to_string(e.loc().line()) : "-";
}

// Columns are as wide as Python's len() of their cells: code points, not bytes, so a
// non-ASCII file name lines up the same in both printers.
size_t displayWidth(const std::string &s) {
  return std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; });
}

std::string table(const std::vector<std::vector<std::string>> &rows) {
  std::vector<size_t> widths(rows.front().size(), 0);
  for (const auto &row : rows)
    for (size_t c = 0; c < row.size(); ++c)
      widths[c] = std::max(widths[c], displayWidth(row[c]));
  std::string out;
  for (const auto &row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      if (c)
        line += "  ";
      line += row[c] + std::string(widths[c] - displayWidth(row[c]), ' ');
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  }
  return out;
}

void appendJsonString(std::string &out, const std::string &s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\b':
      out += "\\b";
      break;
    case '\f':
      out += "\\f";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += static_cast<char>(c); // UTF-8 passes through (proto3 strings are UTF-8)
      }
    }
  }
  out += '"';
}

// Per graph with dynamic dimensions (model.py's dynamic_shapes): their ranges, the
// inputs that have them and the sizes the exporter traced. report_text.py prints the same.
std::string dynamicDimsText(const artifact::Artifact &artifact) {
  std::string out;
  for (const auto &graph : artifact.graphs()) {
    if (graph.dynamic_dims().empty())
      continue;
    std::vector<std::vector<std::string>> rows = {{"NAME", "RANGE", "INPUTS", "TRACED AT"}};
    for (int k = 0; k < graph.dynamic_dims_size(); ++k) {
      const artifact::DynamicDim &d = graph.dynamic_dims(k);
      std::string name = d.name(), inputs, sizes;
      for (const auto &in : d.inputs())
        inputs += (inputs.empty() ? "" : ", ") + in.input() + " dim " + std::to_string(in.dim());
      if (d.has_produced()) // a data-dependent size: the graph computes it
        inputs = "data-dependent (" + d.produced().value() + " dim " +
                 std::to_string(d.produced().dim()) + ")";
      if (d.has_clamp()) // evaluated from the dims before it, as the exporter wrote it
        inputs = d.clamp().expr();
      for (int i = 0; i < d.traced_sizes_size(); ++i)
        sizes += (i ? ", " : "") + std::to_string(d.traced_sizes(i)) + (i ? "" : " (example)");
      rows.push_back({name, "[" + std::to_string(d.min()) + ", " + std::to_string(d.max()) + "]",
                      inputs, sizes});
    }
    out += "\ndynamic dimensions of " + graph.name() + ":\n" + table(rows);
  }
  return out;
}

std::string dynamicDimsJson(const artifact::Artifact &artifact) {
  std::string out;
  for (const auto &graph : artifact.graphs())
    for (int k = 0; k < graph.dynamic_dims_size(); ++k) {
      const artifact::DynamicDim &d = graph.dynamic_dims(k);
      out += out.empty() ? "\n    {\"graph\": " : ",\n    {\"graph\": ";
      appendJsonString(out, graph.name());
      out += ", \"name\": ";
      appendJsonString(out, d.name());
      out += ", \"min\": " + std::to_string(d.min()) + ", \"max\": " + std::to_string(d.max()) +
             ", \"inputs\": [";
      for (int i = 0; i < d.inputs_size(); ++i) {
        out += i ? ", {\"input\": " : "{\"input\": ";
        appendJsonString(out, d.inputs(i).input());
        out += ", \"dim\": " + std::to_string(d.inputs(i).dim()) + "}";
      }
      out += "]";
      if (d.has_produced()) {
        out += ", \"produced\": {\"value\": ";
        appendJsonString(out, d.produced().value());
        out += ", \"dim\": " + std::to_string(d.produced().dim()) + "}";
      }
      if (d.has_clamp()) {
        out += ", \"clamp\": ";
        appendJsonString(out, d.clamp().expr());
      }
      out += ", \"traced_sizes\": [";
      for (int i = 0; i < d.traced_sizes_size(); ++i)
        out += (i ? ", " : "") + std::to_string(d.traced_sizes(i));
      out += "]}";
    }
  return out;
}

} // namespace

std::string formatReportText(const artifact::Artifact &artifact) {
  const auto &entries = artifact.report();
  int n = entries.size();
  std::string out = "draft report for " + artifact.model_path() + ": " +
                    (n == 0 ? std::string("no findings")
                            : std::to_string(n) + (n == 1 ? " finding" : " findings")) +
                    " (" + artifact.producer() + ")\n";
  if (n == 0)
    return out + dynamicDimsText(artifact);

  std::vector<std::vector<std::string>> rows = {{"#", "KIND", "COUNT", "LOCATION", "OP"}};
  for (int i = 0; i < n; ++i) {
    const ReportEntry &e = entries[i];
    rows.push_back({std::to_string(i + 1), e.kind(), std::to_string(e.count()), location(e),
                    e.op().empty() ? "-" : e.op()});
  }
  out += "\n" + table(rows) + "\n";
  for (int i = 0; i < n; ++i) {
    const ReportEntry &e = entries[i];
    std::string label = std::to_string(i + 1) + ". ";
    std::string indent(label.size(), ' ');
    out += label + location(e);
    if (e.has_loc() && !e.loc().code().empty())
      out += ": " + e.loc().code();
    out += "\n" + indent + e.message() + "\n";
    if (!e.assumed().empty())
      out += indent + "assumed: " + e.assumed() + "\n";
    if (!e.graph().empty())
      out += indent + "graph: " + e.graph() + "\n";
  }
  return out + dynamicDimsText(artifact);
}

std::string formatReportJson(const artifact::Artifact &artifact) {
  std::string out = "{\n  \"model\": ";
  appendJsonString(out, artifact.model_path());
  out += ",\n  \"producer\": ";
  appendJsonString(out, artifact.producer());
  out += ",\n  \"findings\": " + std::to_string(artifact.report_size()) + ",\n  \"entries\": [";
  for (int i = 0; i < artifact.report_size(); ++i) {
    const ReportEntry &e = artifact.report(i);
    out += i ? ",\n    {" : "\n    {";
    out += "\"kind\": ";
    appendJsonString(out, e.kind());
    out += ", \"count\": " + std::to_string(e.count());
    if (hasLocation(e)) {
      out += ", \"file\": ";
      appendJsonString(out, e.loc().file());
      out += ", \"line\": " + std::to_string(e.loc().line()) + ", \"code\": ";
      appendJsonString(out, e.loc().code());
    } else {
      out += ", \"file\": null, \"line\": null, \"code\": null";
    }
    out += ", \"op\": ";
    appendJsonString(out, e.op());
    out += ", \"message\": ";
    appendJsonString(out, e.message());
    out += ", \"assumed\": ";
    appendJsonString(out, e.assumed());
    if (!e.graph().empty()) {
      out += ", \"graph\": ";
      appendJsonString(out, e.graph());
    }
    out += "}";
  }
  out += artifact.report_size() ? "\n  ]" : "]";
  // Only where there are any, so reports of static models keep their keys.
  std::string dims = dynamicDimsJson(artifact);
  if (!dims.empty())
    out += ",\n  \"dynamic_dims\": [" + dims + "\n  ]";
  out += "\n}\n";
  return out;
}

int printReport(const std::string &artifactPath, bool json) {
  auto file = readArtifactFile(artifactPath);
  if (!file) {
    llvm::handleAllErrors(file.takeError(), [](const llvm::ErrorInfoBase &e) {
      std::cerr << "pt2c: error: " << e.message() << "\n";
    });
    return 1;
  }
  std::cout << (json ? formatReportJson(file->message) : formatReportText(file->message));
  std::cout.flush();
  return std::cout ? 0 : 1;
}

} // namespace pt2c
