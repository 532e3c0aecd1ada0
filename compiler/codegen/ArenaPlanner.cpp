#include "compiler/codegen/ArenaPlanner.h"

#include <algorithm>

namespace pt2c {

static uint64_t alignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

uint64_t ArenaPlanner::place(uint64_t nbytes, int64_t first, int64_t last) {
  live_.erase(
      std::remove_if(live_.begin(), live_.end(), [&](const Live &l) { return l.last < first; }),
      live_.end());
  uint64_t size = alignUp(std::max<uint64_t>(nbytes, 1), kAlignment);
  uint64_t offset = 0;
  auto it = live_.begin();
  for (; it != live_.end(); ++it) {
    if (it->offset >= offset + size)
      break; // the gap before this block fits
    offset = std::max(offset, alignUp(it->offset + it->nbytes, kAlignment));
  }
  live_.insert(it, {offset, size, last});
  size_ = std::max(size_, offset + size);
  return offset;
}

} // namespace pt2c
