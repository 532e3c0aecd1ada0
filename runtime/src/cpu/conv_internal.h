/* What the convolution files share (cpu_conv.c drives conv_direct.c, conv_im2col.c,
 * conv_transpose.c and conv_depthwise*.c). Internal. */
#ifndef PT2C_RUNTIME_CPU_CONV_INTERNAL_H_
#define PT2C_RUNTIME_CPU_CONV_INTERNAL_H_

#include <stdint.h>

/* A 1-D or 2-D convolution as 2-D: a 1-D one has height 1. */
typedef struct pt2c_conv_geometry {
  int64_t batch, channels, out_channels, groups;
  int64_t group_channels, group_out_channels; /* C/G, K/G */
  int64_t in_h, in_w, out_h, out_w;
  int64_t kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
} pt2c_conv_geometry;

/* The input as im2col reads it when pt2c_conv_splits_phases(g) (a strided kernel wider
 * than 1): each input row split into stride_w phases (columns p, p + stride_w, ...;
 * pt2c_conv_phase_width(g) wide each), so that the columns one output row reads for one
 * kernel column are contiguous. Element (c, ih, iw) of an image is then at
 * ((c * in_h + ih) * stride_w + iw % stride_w) * width + iw / stride_w. Otherwise im2col
 * reads the NCHW input itself (a 1x1 kernel reads each input element once anyway). */
int pt2c_conv_splits_phases(const pt2c_conv_geometry *g);
int64_t pt2c_conv_phase_width(const pt2c_conv_geometry *g);
/* Input rows [row0, row0 + rows) (counted over channels and images) of x into phased. */
void pt2c_conv_split_phases(const pt2c_conv_geometry *g, const float *x, int64_t row0, int64_t rows,
                            float *phased);

/* Output pixels [first, first + panel_width) of the im2col matrix of one image and group,
 * [C/G * kernel_h * kernel_w, out_h * out_w], rows [row0, row1) of it, as one packed
 * panel: dst[(kk - row0) * panel_width + j], zero past the last pixel. The pixel-major
 * GEMMs' A panels (panel_width PT2C_GEMM_MR, up to PT2C_GEMM_NR).
 * x: the group's first input channel, phase split when pt2c_conv_splits_phases(g). */
void pt2c_conv_im2col_panel(const pt2c_conv_geometry *g, const float *phased, int64_t first,
                            int panel_width, int64_t row0, int64_t row1, float *dst);

/* The direct convolution (conv_direct.c): each input channel as its stride phases that
 * some tap reads (row_phases x col_phases of the stride_h x stride_w), zero-padded
 * planes of rows x cols floats (channel_floats per channel, and `tail`
 * readable floats after the last, set by pt2c_conv_direct_rows), from which the channel-major GEMM
 * reads B in place; its C has one column per virtual pixel n = oh * cols + ow (ow >= out_w: junk).
 */
typedef struct pt2c_conv_direct_layout {
  int64_t rows, cols;       /* of a phase plane; cols is also the virtual row width */
  int64_t row_min, col_min; /* the phase-plane position of row 0 and column 0 */
  int64_t row_phases, col_phases;
  int64_t plane, channel_floats, tail;
} pt2c_conv_direct_layout;

void pt2c_conv_direct_layout_of(const pt2c_conv_geometry *g, pt2c_conv_direct_layout *l);
/* rows[kk] for each of the C/G * kernel_h * kernel_w rows of B (cpu_gemm.h's b_rows),
 * relative to the group's first input channel; sets l->tail to how far the GEMM's reads
 * (whole panels of virtual pixels) run past the group's planes. */
void pt2c_conv_direct_rows(const pt2c_conv_geometry *g, pt2c_conv_direct_layout *l, int64_t *rows);
/* Input channel planes [plane0, plane0 + planes) (counted over images and channels) of
 * the NCHW input x into their phase planes in dst (only the phases some tap reads). */
void pt2c_conv_direct_fill(const pt2c_conv_geometry *g, const pt2c_conv_direct_layout *l,
                           const float *x, int64_t plane0, int64_t planes, float *dst);
/* Rows (channels) [row0, row1) and virtual pixels [col0, col1) of the GEMM's result v
 * (rows ldv apart) into y's [K/G, HW] planes: junk columns dropped, z (residual, y's
 * layout) added when given, then relu or silu. */
void pt2c_conv_direct_copy_out(const pt2c_conv_geometry *g, const pt2c_conv_direct_layout *l,
                               const float *v, int64_t ldv, int64_t row0, int64_t row1,
                               int64_t col0, int64_t col1, const float *z, int relu, int silu,
                               float *y);

/* Channels [c0, c1) of a pixel-major convolution's result: y[c * pixels + q] =
 * t[q * ld + c] (+ z at y's index, when z) (then max(., 0) when relu). t is one (image,
 * group)'s y^T, with rows ld floats apart; y and z its [K/G, HW] planes. */
void pt2c_conv_transpose_channels(const float *t, int64_t ld, int64_t pixels, int64_t c0,
                                  int64_t c1, const float *z, int relu, float *y);

/* One output channel plane of a depthwise convolution, epilogue included.
 * x: its input plane; w: its kernel_h x kernel_w weights; z: NULL or its residual plane. */
void pt2c_conv_depthwise_plane(const pt2c_conv_geometry *g, const float *x, const float *w,
                               float bias, const float *z, int relu, float *y);

/* even[j] = src[2j], odd[j] = src[2j + 1] for j < pairs: the stride-2 phase split, as one
 * loop the compiler vectorizes with shuffles (two strided passes it does not). */
static inline void pt2c_deinterleave2(const float *src, int64_t pairs, float *even, float *odd) {
  for (int64_t j = 0; j < pairs; ++j) {
    even[j] = src[2 * j];
    odd[j] = src[2 * j + 1];
  }
}

/* Channels per block of the blocked depthwise kernel (conv_depthwise_blocked.c). */
enum { PT2C_DEPTHWISE_BLOCK = 16 };

/* Floats of scratch the blocked depthwise kernel takes per call. */
int64_t pt2c_conv_depthwise_block_scratch(const pt2c_conv_geometry *g);

/* `channels` (<= PT2C_DEPTHWISE_BLOCK) consecutive output channel planes of a depthwise
 * convolution, epilogue included. x: the first one's input plane; w: the block's weights
 * as [kernel_h * kernel_w][PT2C_DEPTHWISE_BLOCK] (zero past `channels`); bias: NULL or
 * the block's biases; z: NULL or the first one's residual plane. */
void pt2c_conv_depthwise_block(const pt2c_conv_geometry *g, const float *x, int channels,
                               const float *w, const float *bias, const float *z, int relu,
                               float *y);

#endif /* PT2C_RUNTIME_CPU_CONV_INTERNAL_H_ */
