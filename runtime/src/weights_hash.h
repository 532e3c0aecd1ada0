/* The checksum of a weights blob (weights_format.h): a 64-bit hash that the compiler
 * records in a model.so with external weights and the runtime recomputes over the file
 * it maps. Not cryptographic: it catches a truncated, corrupted or mismatched file, not
 * a forged one. Word i of the data (8 bytes, little-endian; the last one zero-padded)
 * contributes mix(word + i * K) to a sum, so the words are independent of each other
 * (the loop vectorizes, ~several GB/s) yet position matters; the length is mixed in at
 * the end. Also linked into the compiler (one definition for both). */
#ifndef PT2C_RUNTIME_WEIGHTS_HASH_H_
#define PT2C_RUNTIME_WEIGHTS_HASH_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Data given in any number of pieces hashes as if given at once. */
typedef struct pt2c_weights_hasher {
  uint64_t sum;
  uint64_t length;          /* bytes seen */
  unsigned char pending[8]; /* the bytes of an incomplete word */
} pt2c_weights_hasher;

void pt2c_weights_hash_init(pt2c_weights_hasher* hasher);
void pt2c_weights_hash_update(pt2c_weights_hasher* hasher, const void* data, size_t size);
uint64_t pt2c_weights_hash_final(const pt2c_weights_hasher* hasher);

/* One call for data in one piece. */
uint64_t pt2c_weights_hash(const void* data, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_WEIGHTS_HASH_H_ */
