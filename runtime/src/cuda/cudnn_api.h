/* The few parts of cuDNN's C API the convolution steps use (cuda_conv.c), declared here
 * so that the runtime builds without cuDNN's headers and never links it: the functions
 * are looked up with dlsym. Types, values and signatures match cuDNN 9 (checked against
 * cudnn_graph.h, cudnn_ops.h and cudnn_cnn.h of cuDNN 9.19; the legacy convolution API
 * they declare is unchanged since cuDNN 8, where cudnnConvolutionFwdAlgoPerf_t and the
 * math types got their present form). Internal. */
#ifndef PT2C_RUNTIME_CUDA_CUDNN_API_H_
#define PT2C_RUNTIME_CUDA_CUDNN_API_H_

#include <stddef.h>

#include "cuda_driver.h" /* CUstream: cuDNN's cudaStream_t is the same handle */

typedef int cudnnStatus_t;
typedef struct cudnnContext *cudnnHandle_t;
typedef struct cudnnTensorStruct *cudnnTensorDescriptor_t;
typedef struct cudnnFilterStruct *cudnnFilterDescriptor_t;
typedef struct cudnnConvolutionStruct *cudnnConvolutionDescriptor_t;
typedef struct cudnnActivationStruct *cudnnActivationDescriptor_t;

enum {
  CUDNN_STATUS_SUCCESS = 0,
  /* cudnnDataType_t */
  CUDNN_DATA_FLOAT = 0,
  CUDNN_DATA_HALF = 2,
  CUDNN_DATA_BFLOAT16 = 9,
  /* cudnnMathType_t: DEFAULT lets f32 use TF32 tensor cores on Ampere and newer; FMA
   * does not. */
  CUDNN_DEFAULT_MATH = 0,
  CUDNN_TENSOR_OP_MATH = 1,
  CUDNN_FMA_MATH = 3,
  /* cudnnTensorFormat_t */
  CUDNN_TENSOR_NCHW = 0,
  CUDNN_TENSOR_NHWC = 1,
  /* cudnnConvolutionMode_t: torch's conv is a cross-correlation */
  CUDNN_CROSS_CORRELATION = 1,
  /* cudnnActivationMode_t, cudnnNanPropagation_t */
  CUDNN_ACTIVATION_RELU = 1,
  CUDNN_NOT_PROPAGATE_NAN = 0,
  /* cudnnConvolutionFwdAlgo_t: how many there are */
  CUDNN_CONVOLUTION_FWD_ALGO_COUNT = 8,
};

typedef struct {
  int algo; /* cudnnConvolutionFwdAlgo_t */
  cudnnStatus_t status;
  float time; /* ms */
  size_t memory;
  int determinism;
  int mathType;
  int reserved[3];
} cudnnConvolutionFwdAlgoPerf_t;

/* The functions, as members of the table cuda_conv.c fills with dlsym. */
typedef struct cudnn_api {
  size_t (*GetVersion)(void);
  cudnnStatus_t (*Create)(cudnnHandle_t *);
  cudnnStatus_t (*Destroy)(cudnnHandle_t);
  cudnnStatus_t (*SetStream)(cudnnHandle_t, CUstream);
  cudnnStatus_t (*CreateTensorDescriptor)(cudnnTensorDescriptor_t *);
  cudnnStatus_t (*SetTensorNdDescriptor)(cudnnTensorDescriptor_t, int data_type, int nb_dims,
                                         const int dims[], const int strides[]);
  cudnnStatus_t (*DestroyTensorDescriptor)(cudnnTensorDescriptor_t);
  cudnnStatus_t (*CreateFilterDescriptor)(cudnnFilterDescriptor_t *);
  cudnnStatus_t (*SetFilterNdDescriptor)(cudnnFilterDescriptor_t, int data_type, int format,
                                         int nb_dims, const int dims[]);
  cudnnStatus_t (*DestroyFilterDescriptor)(cudnnFilterDescriptor_t);
  cudnnStatus_t (*CreateConvolutionDescriptor)(cudnnConvolutionDescriptor_t *);
  cudnnStatus_t (*SetConvolutionNdDescriptor)(cudnnConvolutionDescriptor_t, int array_length,
                                              const int padding[], const int strides[],
                                              const int dilations[], int mode, int compute_type);
  cudnnStatus_t (*SetConvolutionGroupCount)(cudnnConvolutionDescriptor_t, int groups);
  cudnnStatus_t (*SetConvolutionMathType)(cudnnConvolutionDescriptor_t, int math_type);
  cudnnStatus_t (*DestroyConvolutionDescriptor)(cudnnConvolutionDescriptor_t);
  cudnnStatus_t (*CreateActivationDescriptor)(cudnnActivationDescriptor_t *);
  cudnnStatus_t (*SetActivationDescriptor)(cudnnActivationDescriptor_t, int mode, int nan_option,
                                           double coefficient);
  cudnnStatus_t (*DestroyActivationDescriptor)(cudnnActivationDescriptor_t);
  cudnnStatus_t (*FindConvolutionForwardAlgorithm)(cudnnHandle_t, cudnnTensorDescriptor_t x,
                                                   cudnnFilterDescriptor_t w,
                                                   cudnnConvolutionDescriptor_t,
                                                   cudnnTensorDescriptor_t y, int requested,
                                                   int *returned,
                                                   cudnnConvolutionFwdAlgoPerf_t *results);
  cudnnStatus_t (*ConvolutionForward)(cudnnHandle_t, const void *alpha, cudnnTensorDescriptor_t,
                                      const void *x, cudnnFilterDescriptor_t, const void *w,
                                      cudnnConvolutionDescriptor_t, int algo, void *workspace,
                                      size_t workspace_bytes, const void *beta,
                                      cudnnTensorDescriptor_t, void *y);
  cudnnStatus_t (*ConvolutionBiasActivationForward)(
      cudnnHandle_t, const void *alpha1, cudnnTensorDescriptor_t, const void *x,
      cudnnFilterDescriptor_t, const void *w, cudnnConvolutionDescriptor_t, int algo,
      void *workspace, size_t workspace_bytes, const void *alpha2, cudnnTensorDescriptor_t,
      const void *z, cudnnTensorDescriptor_t, const void *bias, cudnnActivationDescriptor_t,
      cudnnTensorDescriptor_t, void *y);
  cudnnStatus_t (*AddTensor)(cudnnHandle_t, const void *alpha, cudnnTensorDescriptor_t,
                             const void *a, const void *beta, cudnnTensorDescriptor_t, void *c);
  cudnnStatus_t (*TransformTensor)(cudnnHandle_t, const void *alpha, cudnnTensorDescriptor_t,
                                   const void *x, const void *beta, cudnnTensorDescriptor_t,
                                   void *y);
} cudnn_api;

#endif /* PT2C_RUNTIME_CUDA_CUDNN_API_H_ */
