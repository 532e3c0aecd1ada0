#include "compiler/codegen/PlanSetWriter.h"

#include <cstring>

#include "pt2c/plan_format.h"

namespace pt2c {
namespace {

uint32_t addString(std::string &strings, const std::string &s) {
  uint32_t offset = strings.size();
  strings.append(s);
  strings.push_back('\0');
  return offset;
}

template <typename T> void appendRecords(std::string &out, const std::vector<T> &items) {
  out.append(reinterpret_cast<const char *>(items.data()), items.size() * sizeof(T));
}

void padTo8(std::string &out) { out.resize((out.size() + 7) / 8 * 8, '\0'); }

} // namespace

std::vector<PlanSetPart> planSetParts(const std::string &bytes) {
  pt2c_plan_set_header h;
  if (bytes.size() < sizeof(h) || bytes.compare(0, 8, PT2C_PLAN_SET_MAGIC, 8) != 0)
    return {};
  std::memcpy(&h, bytes.data(), sizeof(h));
  std::vector<PlanSetPart> parts;
  for (uint32_t g = 0; g < h.num_graphs; ++g) {
    pt2c_plan_set_graph r;
    size_t at = sizeof(h) + g * sizeof(r);
    if (at + sizeof(r) > bytes.size())
      return {};
    std::memcpy(&r, bytes.data() + at, sizeof(r));
    if (r.plan_offset > bytes.size() || r.plan_size > bytes.size() - r.plan_offset)
      return {};
    parts.push_back({r.first_kernel, bytes.substr(r.plan_offset, r.plan_size)});
  }
  return parts;
}

std::string serializePlanSet(const std::vector<PlanSetGraph> &graphs) {
  std::string strings;
  std::vector<pt2c_plan_set_graph> records;
  std::vector<pt2c_plan_slot> slots;
  for (const PlanSetGraph &g : graphs) {
    pt2c_plan_set_graph r{};
    r.name = addString(strings, g.name);
    r.method = addString(strings, g.method);
    r.first_slot = slots.size();
    r.num_slots = g.slots.size();
    r.first_kernel = g.firstKernel;
    for (const PlanSetGraph::Slot &s : g.slots)
      slots.push_back({addString(strings, s.name), s.input});
    records.push_back(r);
  }
  pt2c_plan_set_header h;
  std::memset(&h, 0, sizeof(h));
  std::memcpy(h.magic, PT2C_PLAN_SET_MAGIC, 8);
  h.version = PT2C_PLAN_SET_VERSION;
  h.num_graphs = records.size();
  h.num_slots = slots.size();
  h.strings_size = strings.size();

  // The tables' size is known before the plans are placed after them.
  uint64_t offset = sizeof(h) + records.size() * sizeof(pt2c_plan_set_graph) +
                    slots.size() * sizeof(pt2c_plan_slot) + strings.size();
  for (size_t i = 0; i < graphs.size(); ++i) {
    offset = (offset + 7) / 8 * 8;
    records[i].plan_offset = offset;
    records[i].plan_size = graphs[i].plan.size();
    offset += graphs[i].plan.size();
  }
  std::string out(reinterpret_cast<const char *>(&h), sizeof(h));
  appendRecords(out, records);
  appendRecords(out, slots);
  out.append(strings);
  for (const PlanSetGraph &g : graphs) {
    padTo8(out);
    out.append(g.plan);
  }
  return out;
}

} // namespace pt2c
