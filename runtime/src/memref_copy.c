/* MLIR's memrefCopy for model.so (see memref_copy.h).
 *
 * Why a runtime function rather than keeping memref.copy out of the CPU lowering:
 * bufferization inserts such copies in places the prim lowering does not control
 * (copies into out-params, copies of views it cannot bufferize in place), so the symbol
 * must exist whatever the kernels look like. MLIR's own (CRunnerUtils) lives in a C++
 * library that model.so must not depend on; this one is C11 and libc only.
 *
 * The innermost dims that are contiguous in both src and dst merge into one run, copied
 * with memcpy; the outer dims are walked recursively, so any rank works without a
 * fixed-size index array. */
#include "memref_copy.h"

#include <stddef.h>
#include <string.h>

/* The ranked descriptor: two pointers, then offset, sizes[rank], strides[rank]. */
typedef struct ranked_descriptor {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t sizes_and_strides[];
} ranked_descriptor;

typedef struct copy_walk {
  const int64_t *sizes;
  const int64_t *src_strides; /* in elements */
  const int64_t *dst_strides; /* in elements */
  int64_t elem_size;
  int64_t outer_rank; /* dims walked one index at a time */
  size_t run_bytes;   /* bytes copied by one memcpy */
} copy_walk;

static void copy_dims(const copy_walk *walk, int64_t dim, const char *src, char *dst) {
  if (dim == walk->outer_rank) {
    memcpy(dst, src, walk->run_bytes);
    return;
  }
  ptrdiff_t src_step = (ptrdiff_t)(walk->src_strides[dim] * walk->elem_size);
  ptrdiff_t dst_step = (ptrdiff_t)(walk->dst_strides[dim] * walk->elem_size);
  for (int64_t i = 0; i < walk->sizes[dim]; ++i, src += src_step, dst += dst_step)
    copy_dims(walk, dim + 1, src, dst);
}

void memrefCopy(int64_t elem_size, pt2c_unranked_memref *src, pt2c_unranked_memref *dst) {
  int64_t rank = src->rank;
  const ranked_descriptor *s = (const ranked_descriptor *)src->descriptor;
  const ranked_descriptor *d = (const ranked_descriptor *)dst->descriptor;
  const int64_t *sizes = s->sizes_and_strides;
  const int64_t *src_strides = s->sizes_and_strides + rank;
  const int64_t *dst_strides = d->sizes_and_strides + rank;
  for (int64_t i = 0; i < rank; ++i)
    if (sizes[i] == 0)
      return;

  /* Merge inner dims while both sides are contiguous there (a size-1 dim's stride is
   * never used, so it does not break a run). */
  int64_t outer_rank = rank, run_elems = 1;
  while (outer_rank > 0) {
    int64_t dim = outer_rank - 1;
    if (sizes[dim] != 1 && (src_strides[dim] != run_elems || dst_strides[dim] != run_elems))
      break;
    run_elems *= sizes[dim];
    outer_rank = dim;
  }

  copy_walk walk = {sizes,     src_strides, dst_strides,
                    elem_size, outer_rank,  (size_t)(run_elems * elem_size)};
  copy_dims(&walk, 0, s->aligned + s->offset * elem_size, d->aligned + d->offset * elem_size);
}
