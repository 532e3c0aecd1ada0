// Places intermediate buffers in one scratch arena: a buffer lives from the step that
// writes it to the last step that reads it, and buffers whose lifetimes do not overlap
// share memory (first fit, 64-byte aligned).
#ifndef PT2C_COMPILER_CODEGEN_ARENAPLANNER_H_
#define PT2C_COMPILER_CODEGEN_ARENAPLANNER_H_

#include <cstdint>
#include <vector>

namespace pt2c {

class ArenaPlanner {
public:
  static constexpr uint64_t kAlignment = 64;

  // Returns the offset of a buffer of `nbytes` live during steps [first, last].
  // Calls must come in non-decreasing `first` order.
  uint64_t place(uint64_t nbytes, int64_t first, int64_t last);
  uint64_t size() const { return size_; }

private:
  struct Live {
    uint64_t offset, nbytes;
    int64_t last;
  };
  std::vector<Live> live_; // sorted by offset
  uint64_t size_ = 0;
};

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_ARENAPLANNER_H_
