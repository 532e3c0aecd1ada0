/* The table of AMD GPU code objects a ROCm model.so embeds (`pt2c --target rocm`), as the
 * symbols __pt2c_rocm_code_objects and __pt2c_rocm_code_objects_size. The compiler writes
 * it (compiler/codegen/rocm/CodeObjectTable.cpp); the runtime picks the entry whose
 * architecture is the GPU's and hands its bytes to hipModuleLoadData.
 *
 * Layout, little-endian, 8-byte aligned:
 *   pt2c_rocm_code_objects_header
 *   pt2c_rocm_code_object_entry[count]
 *   the code objects (ELF shared objects for amdgcn-amd-amdhsa, linked by ld.lld), each at
 *   its entry's offset from the start of the table, 64-byte aligned
 */
#ifndef PT2C_ROCM_CODE_OBJECTS_H_
#define PT2C_ROCM_CODE_OBJECTS_H_

#include <stdint.h>

#define PT2C_ROCM_CODE_OBJECTS_MAGIC "PT2CHSA1" /* 8 bytes, no NUL stored */
#define PT2C_ROCM_CODE_OBJECTS_VERSION 1u
#define PT2C_ROCM_ARCH_NAME_BYTES 32

typedef struct pt2c_rocm_code_objects_header {
  char magic[8];
  uint32_t version;
  uint32_t count; /* entries */
} pt2c_rocm_code_objects_header;

typedef struct pt2c_rocm_code_object_entry {
  /* LLVM's processor name ("gfx90a"), NUL-padded: the code object runs on GPUs whose
   * hipDeviceProp_t.gcnArchName starts with it (before any ":sramecc+:xnack-"). */
  char arch[PT2C_ROCM_ARCH_NAME_BYTES];
  uint32_t wave_size; /* lanes per wavefront the code was compiled for (64 or 32) */
  uint32_t reserved;  /* 0 */
  uint64_t offset;    /* from the start of the table */
  uint64_t size;
} pt2c_rocm_code_object_entry;

#endif /* PT2C_ROCM_CODE_OBJECTS_H_ */
