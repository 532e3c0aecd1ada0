/* pt2c runtime C ABI: the only symbols a model.so exports.
 *
 * A model.so carries its kernels, weights and execution plan; this header is all a host
 * program needs to load and run it. Every call returns a pt2c_status; on failure
 * pt2c_last_error() returns a message for the calling thread.
 *
 * Versioning: PT2C_ABI_VERSION changes when a signature or struct here changes.
 * Check pt2c_abi_version() against the header you compiled with.
 */
#ifndef PT2C_PT2C_H_
#define PT2C_PT2C_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PT2C_ABI_VERSION 1u

#if defined(__GNUC__)
#define PT2C_API __attribute__((visibility("default")))
#else
#define PT2C_API
#endif

typedef enum pt2c_status {
  PT2C_OK = 0,
  PT2C_ERROR_INVALID_ARGUMENT = 1, /* null pointer, bad index */
  PT2C_ERROR_INPUT_COUNT = 2,      /* wrong number of inputs or outputs */
  PT2C_ERROR_DTYPE = 3,            /* a tensor has the wrong dtype */
  PT2C_ERROR_SHAPE = 4,            /* a tensor has the wrong rank or sizes */
  PT2C_ERROR_GUARD = 5,            /* an assumption recorded at export does not hold */
  PT2C_ERROR_OUT_OF_MEMORY = 6,
  PT2C_ERROR_CORRUPT_MODEL = 7,    /* the embedded plan is unreadable */
  PT2C_ERROR_UNSUPPORTED = 8,      /* e.g. a device this build has no kernels for */
} pt2c_status;

/* Numbering shared with ir/artifact/pt2c.proto (DType). */
typedef enum pt2c_dtype {
  PT2C_DTYPE_UNDEFINED = 0,
  PT2C_F32 = 1,
  PT2C_F64 = 2,
  PT2C_F16 = 3,
  PT2C_BF16 = 4,
  PT2C_I64 = 5,
  PT2C_I32 = 6,
  PT2C_I16 = 7,
  PT2C_I8 = 8,
  PT2C_U8 = 9,
  PT2C_BOOL = 10,
} pt2c_dtype;

#define PT2C_MAX_RANK 8

/* Describes an input or output of the model. Strings and arrays are owned by the model
 * and live until pt2c_model_destroy. */
typedef struct pt2c_tensor_info {
  const char* name;
  pt2c_dtype dtype;
  int32_t rank;
  const int64_t* dims; /* rank entries */
} pt2c_tensor_info;

/* A caller-owned, contiguous (row-major) tensor. */
typedef struct pt2c_tensor {
  void* data;
  pt2c_dtype dtype;
  int32_t rank;
  const int64_t* dims; /* rank entries */
} pt2c_tensor;

typedef struct pt2c_model pt2c_model;

/* The ABI version this library was built with (PT2C_ABI_VERSION). */
PT2C_API uint32_t pt2c_abi_version(void);

/* Size in bytes of one element of `dtype`, or 0 for an unknown dtype. */
PT2C_API size_t pt2c_dtype_size(pt2c_dtype dtype);

/* Creates the model embedded in this library. */
PT2C_API pt2c_status pt2c_model_create(pt2c_model** out_model);

/* Destroys a model; null is allowed. */
PT2C_API void pt2c_model_destroy(pt2c_model* model);

/* Counts of inputs and outputs; -1 (with a last error) for a null model. */
PT2C_API int32_t pt2c_model_num_inputs(const pt2c_model* model);
PT2C_API int32_t pt2c_model_num_outputs(const pt2c_model* model);
PT2C_API pt2c_status pt2c_model_input_info(const pt2c_model* model, int32_t index,
                                           pt2c_tensor_info* out_info);
PT2C_API pt2c_status pt2c_model_output_info(const pt2c_model* model, int32_t index,
                                            pt2c_tensor_info* out_info);

/* Runs the model. Inputs and outputs are checked (count, dtype, rank, sizes) before any
 * kernel runs. Output buffers are caller-owned and must have the sizes output_info gives.
 * A model is not safe to run from two threads at once; create one per thread. */
PT2C_API pt2c_status pt2c_model_run(pt2c_model* model, const pt2c_tensor* inputs,
                                    int32_t num_inputs, pt2c_tensor* outputs,
                                    int32_t num_outputs);

/* The message of the last failed call on this thread ("" if none). */
PT2C_API const char* pt2c_last_error(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* PT2C_PT2C_H_ */
