#include "tools/pt2c/PlanSvg.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

namespace pt2c {
namespace {

constexpr int kLeft = 20, kTop = 40, kRow = 30, kBoxHeight = 22;
constexpr int kCharWidth = 7; // 11 px monospace, rounded up: boxes fit their labels

std::string escaped(const std::string &text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string tensorName(const PlanRecords &plan, const pt2c_plan_tensor &t) {
  return t.name < plan.strings.size() ? std::string(plan.strings.c_str() + t.name) : "?";
}

} // namespace

std::vector<int64_t> fallbackOwners(const PlanRecords &plan) {
  std::vector<int64_t> owner(plan.steps.size(), -1);
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const pt2c_plan_step &step = plan.steps[s];
    uint32_t fallback = 0;
    if (step.kind == PT2C_STEP_GEMM && step.kernel < plan.gemms.size())
      fallback = plan.gemms[step.kernel].num_fallback_steps;
    else if (step.kind == PT2C_STEP_CONV && step.kernel < plan.convs.size())
      fallback = plan.convs[step.kernel].num_fallback_steps;
    for (size_t f = s + 1; f <= s + fallback && f < owner.size(); ++f)
      owner[f] = static_cast<int64_t>(s);
  }
  return owner;
}

std::string planGraphSvg(const PlanRecords &plan, const std::vector<std::string> &labels,
                         const std::string &title) {
  // Nodes in drawing order: inputs, the steps that run, outputs.
  std::vector<std::pair<std::string, std::string>> nodes; // (css class, label)
  std::map<uint32_t, int> last;                           // buffer -> node that touched it
  std::set<std::pair<int, int>> edges;
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    last[plan.inputs[i].buffer] = static_cast<int>(nodes.size());
    nodes.push_back({"io", "input " + tensorName(plan, plan.inputs[i])});
  }
  std::vector<int64_t> owners = fallbackOwners(plan);
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    if (owners[s] >= 0)
      continue; // the library step stands for it
    const pt2c_plan_step &step = plan.steps[s];
    int node = static_cast<int>(nodes.size());
    const char *kind = step.kind == PT2C_STEP_GEMM   ? "gemm"
                       : step.kind == PT2C_STEP_CONV ? "conv"
                                                     : "kernel";
    nodes.push_back({kind, s < labels.size() ? labels[s] : "step " + std::to_string(s)});
    for (uint32_t a = 0; a < step.num_args; ++a) {
      if (step.first_arg + a >= plan.stepArgs.size())
        break;
      uint32_t buffer = plan.stepArgs[step.first_arg + a];
      if (buffer < plan.buffers.size() && plan.buffers[buffer].kind == PT2C_BUFFER_WEIGHT)
        continue; // constants: no data flow to draw
      auto it = last.find(buffer);
      if (it != last.end() && it->second != node)
        edges.insert({it->second, node});
      last[buffer] = node;
    }
  }
  for (size_t i = 0; i < plan.outputs.size(); ++i) {
    int node = static_cast<int>(nodes.size());
    nodes.push_back({"io", "output " + tensorName(plan, plan.outputs[i])});
    auto it = last.find(plan.outputs[i].buffer);
    if (it != last.end())
      edges.insert({it->second, node});
  }

  // Arrows between neighbours are straight; longer ones bow out to the right, wider the
  // further they go, so that skip connections (a residual) stand apart.
  size_t longest = 20;
  for (const auto &node : nodes)
    longest = std::max(longest, node.second.size());
  const int kBoxWidth = static_cast<int>(longest) * kCharWidth + 12;
  int height = kTop + static_cast<int>(nodes.size()) * kRow + 20;
  int maxBow = 0;
  for (const auto &[from, to] : edges)
    if (to != from + 1)
      maxBow = std::max(maxBow, 20 + 6 * std::min(to - from, 60));
  int width = kLeft + kBoxWidth + maxBow + 20;
  std::string svg;
  svg += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) +
         "\" height=\"" + std::to_string(height) +
         "\" font-family=\"monospace\" font-size=\"11\">\n";
  svg += "<defs><marker id=\"arrow\" markerWidth=\"8\" markerHeight=\"8\" refX=\"7\" refY=\"4\" "
         "orient=\"auto\"><path d=\"M0,0 L8,4 L0,8 z\" fill=\"#555\"/></marker>\n"
         "<style>.io{fill:#e8e8e8}.kernel{fill:#dfeaff}.gemm{fill:#ffe2c6}.conv{fill:#d9f2d9}"
         "rect{stroke:#666}path{fill:none;stroke:#555}</style></defs>\n";
  svg += "<text x=\"" + std::to_string(kLeft) + "\" y=\"20\" font-size=\"13\">" + escaped(title) +
         "</text>\n";
  auto rowY = [](int node) { return kTop + node * kRow; };
  for (const auto &[from, to] : edges) {
    int y1 = rowY(from) + kBoxHeight, y2 = rowY(to);
    std::string d;
    if (to == from + 1) {
      int x = kLeft + kBoxWidth / 2;
      d = "M" + std::to_string(x) + "," + std::to_string(y1) + " L" + std::to_string(x) + "," +
          std::to_string(y2);
    } else {
      int x = kLeft + kBoxWidth, bow = x + 20 + 6 * std::min(to - from, 60);
      int ya = rowY(from) + kBoxHeight / 2, yb = rowY(to) + kBoxHeight / 2;
      d = "M" + std::to_string(x) + "," + std::to_string(ya) + " C" + std::to_string(bow) + "," +
          std::to_string(ya) + " " + std::to_string(bow) + "," + std::to_string(yb) + " " +
          std::to_string(x) + "," + std::to_string(yb);
    }
    svg += "<path d=\"" + d + "\" marker-end=\"url(#arrow)\"/>\n";
  }
  for (size_t n = 0; n < nodes.size(); ++n) {
    int y = rowY(static_cast<int>(n));
    svg += "<g><rect class=\"" + nodes[n].first + "\" x=\"" + std::to_string(kLeft) + "\" y=\"" +
           std::to_string(y) + "\" width=\"" + std::to_string(kBoxWidth) + "\" height=\"" +
           std::to_string(kBoxHeight) + "\" rx=\"4\"/><text x=\"" + std::to_string(kLeft + 6) +
           "\" y=\"" + std::to_string(y + 15) + "\">" + escaped(nodes[n].second) + "</text></g>\n";
  }
  svg += "</svg>\n";
  return svg;
}

} // namespace pt2c
