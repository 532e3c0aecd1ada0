/* The few parts of MIOpen's C API the convolution steps of ROCm plans use
 * (miopen_conv.c), declared here so that the runtime builds without ROCm's headers and
 * never links MIOpen: the functions are looked up with dlsym. Types, values and signatures
 * are miopen.h's (MIOpen 3.x of ROCm 6; the immediate-mode convolution API they use exists
 * since MIOpen 2.0). Internal. */
#ifndef PT2C_RUNTIME_ROCM_MIOPEN_API_H_
#define PT2C_RUNTIME_ROCM_MIOPEN_API_H_

#include <stddef.h>
#include <stdint.h>

#include "../cuda/cuda_driver.h" /* CUstream: MIOpen's miopenAcceleratorQueue_t is a hipStream_t */

typedef int miopenStatus_t;
typedef struct miopenHandle *miopenHandle_t;
typedef struct miopenTensorDescriptor *miopenTensorDescriptor_t;
typedef struct miopenConvolutionDescriptor *miopenConvolutionDescriptor_t;
typedef struct miopenActivationDescriptor *miopenActivationDescriptor_t;

enum {
  miopenStatusSuccess = 0,
  /* miopenDataType_t */
  miopenHalf = 0,
  miopenFloat = 1,
  miopenBFloat16 = 5,
  /* miopenConvolutionMode_t: cross-correlation, as torch's conv */
  miopenConvolution = 0,
  /* miopenTensorOp_t */
  miopenTensorOpAdd = 0,
  /* miopenActivationMode_t */
  miopenActivationRELU = 3,
};

/* An immediate-mode solution (miopenConvolutionForwardGetSolution). */
typedef struct {
  float time; /* ms, measured (find database) or estimated */
  size_t workspace_size;
  uint64_t solution_id;
  int algorithm; /* miopenConvAlgorithm_t */
} miopenConvSolution_t;

/* The functions, as members of the table miopen_conv.c fills with dlsym. */
typedef struct miopen_api {
  miopenStatus_t (*Create)(miopenHandle_t *);
  miopenStatus_t (*Destroy)(miopenHandle_t);
  miopenStatus_t (*SetStream)(miopenHandle_t, CUstream);
  miopenStatus_t (*CreateTensorDescriptor)(miopenTensorDescriptor_t *);
  miopenStatus_t (*SetTensorDescriptor)(miopenTensorDescriptor_t, int data_type, int nb_dims,
                                        const int *dims, const int *strides);
  miopenStatus_t (*DestroyTensorDescriptor)(miopenTensorDescriptor_t);
  miopenStatus_t (*CreateConvolutionDescriptor)(miopenConvolutionDescriptor_t *);
  miopenStatus_t (*InitConvolutionNdDescriptor)(miopenConvolutionDescriptor_t, int spatial_dims,
                                                const int *padding, const int *strides,
                                                const int *dilations, int mode);
  miopenStatus_t (*SetConvolutionGroupCount)(miopenConvolutionDescriptor_t, int groups);
  miopenStatus_t (*DestroyConvolutionDescriptor)(miopenConvolutionDescriptor_t);
  miopenStatus_t (*CreateActivationDescriptor)(miopenActivationDescriptor_t *);
  miopenStatus_t (*SetActivationDescriptor)(miopenActivationDescriptor_t, int mode, double alpha,
                                            double beta, double gamma);
  miopenStatus_t (*DestroyActivationDescriptor)(miopenActivationDescriptor_t);
  miopenStatus_t (*ConvolutionForwardGetSolutionCount)(miopenHandle_t, miopenTensorDescriptor_t w,
                                                       miopenTensorDescriptor_t x,
                                                       miopenConvolutionDescriptor_t,
                                                       miopenTensorDescriptor_t y, size_t *count);
  miopenStatus_t (*ConvolutionForwardGetSolution)(miopenHandle_t, miopenTensorDescriptor_t w,
                                                  miopenTensorDescriptor_t x,
                                                  miopenConvolutionDescriptor_t,
                                                  miopenTensorDescriptor_t y, size_t max_count,
                                                  size_t *count, miopenConvSolution_t *solutions);
  miopenStatus_t (*ConvolutionForwardCompileSolution)(miopenHandle_t, miopenTensorDescriptor_t w,
                                                      miopenTensorDescriptor_t x,
                                                      miopenConvolutionDescriptor_t,
                                                      miopenTensorDescriptor_t y,
                                                      uint64_t solution_id);
  miopenStatus_t (*ConvolutionForwardImmediate)(miopenHandle_t, miopenTensorDescriptor_t w_desc,
                                                const void *w, miopenTensorDescriptor_t x_desc,
                                                const void *x, miopenConvolutionDescriptor_t,
                                                miopenTensorDescriptor_t y_desc, void *y,
                                                void *workspace, size_t workspace_bytes,
                                                uint64_t solution_id);
  /* C = op(alpha1 * A, alpha2 * B) + beta * C; B may broadcast (dims of 1). */
  miopenStatus_t (*OpTensor)(miopenHandle_t, int op, const void *alpha1, miopenTensorDescriptor_t,
                             const void *a, const void *alpha2, miopenTensorDescriptor_t,
                             const void *b, const void *beta, miopenTensorDescriptor_t, void *c);
  miopenStatus_t (*ActivationForward)(miopenHandle_t, miopenActivationDescriptor_t,
                                      const void *alpha, miopenTensorDescriptor_t, const void *x,
                                      const void *beta, miopenTensorDescriptor_t, void *y);
} miopen_api;

#endif /* PT2C_RUNTIME_ROCM_MIOPEN_API_H_ */
