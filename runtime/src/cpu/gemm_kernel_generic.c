/* The portable GEMM microkernel: GCC/Clang vector extensions of 4 floats, which baseline
 * x86-64 compiles to SSE2 (and other targets to their own vectors); 6 x 8 per pass. */
#include <string.h>

typedef float v4f __attribute__((vector_size(16)));
typedef int v4i __attribute__((vector_size(16)));

static inline v4f v_load(const float *p) {
  v4f v;
  memcpy(&v, p, sizeof(v));
  return v;
}
static inline void v_store(float *p, v4f v) { memcpy(p, &v, sizeof(v)); }
static inline v4f v_load_n(const float *p, int n) {
  v4f v = {0, 0, 0, 0};
  for (int i = 0; i < n; ++i)
    v[i] = p[i];
  return v;
}
static inline void v_store_n(float *p, v4f v, int n) {
  for (int i = 0; i < n; ++i)
    p[i] = v[i];
}
static inline v4f v_splat(float s) { return (v4f){s, s, s, s}; }
static inline v4f v_relu(v4f v) {
  v4f zero = {0, 0, 0, 0};
  return (v4f)((v4i)v & (v > zero)); /* C has no vector ?: */
}

#define VEC v4f
#define VLEN 4
#define NVR 2
#define V_ZERO() ((v4f){0, 0, 0, 0})
#define V_LOAD(p) v_load(p)
#define V_STORE(p, v) v_store(p, v)
#define V_BCAST(p) v_splat(*(p))
#define V_FMA(a, b, acc) ((a) * (b) + (acc))
#define V_ADD(a, b) ((a) + (b))
#define V_RELU(v) v_relu(v)
#define V_LOAD_N(p, n) v_load_n(p, n)
#define V_STORE_N(p, v, n) v_store_n(p, v, n)
#define KERNEL_NAME pt2c_gemm_kernel_generic

#include "gemm_kernel_template.h"
