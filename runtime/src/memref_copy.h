/* memrefCopy: the runtime function MLIR's MemRefToLLVM lowering calls for a memref.copy
 * whose source or target is not contiguous. Internal: kernels in the same model.so
 * resolve it at link time; the version script keeps it out of the exported symbols. */
#ifndef PT2C_RUNTIME_MEMREF_COPY_H_
#define PT2C_RUNTIME_MEMREF_COPY_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MLIR's unranked memref as passed by the lowering: the rank and a pointer to the
 * ranked descriptor {allocated, aligned, offset, sizes[rank], strides[rank]}. */
typedef struct pt2c_unranked_memref {
  int64_t rank;
  void *descriptor;
} pt2c_unranked_memref;

/* Copies every element of src into the element at the same index of dst. Both have the
 * same rank and sizes; strides and offsets count elements of elem_size bytes. src and
 * dst must not overlap (memref.copy's contract). */
void memrefCopy(int64_t elem_size, pt2c_unranked_memref *src, pt2c_unranked_memref *dst);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_MEMREF_COPY_H_ */
