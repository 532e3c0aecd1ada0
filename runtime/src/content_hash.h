/* The checksum of what the compiler writes and the runtime reads back: a 64-bit hash
 * that the compiler records in every model.so for its embedded plan, and for its weights
 * file when it has one (weights_format.h); the runtime recomputes it at create. Not
 * cryptographic: it catches a truncated, corrupted or mismatched file, not a forged one. Word i of
 * the data (8 bytes, little-endian; the last one zero-padded) contributes mix(word + i * K) to a
 * sum, so the words are independent of each other (the loop vectorizes, ~several GB/s) yet position
 * matters; the length is mixed in at the end. Also linked into the compiler (one definition for
 * both), which includes it as "pt2c/shared/content_hash.h" (runtime/BUILD.bazel). */
#ifndef PT2C_RUNTIME_CONTENT_HASH_H_
#define PT2C_RUNTIME_CONTENT_HASH_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Data given in any number of pieces hashes as if given at once. */
typedef struct pt2c_content_hasher {
  uint64_t sum;
  uint64_t length;          /* bytes seen */
  unsigned char pending[8]; /* the bytes of an incomplete word */
} pt2c_content_hasher;

void pt2c_content_hash_init(pt2c_content_hasher *hasher);
void pt2c_content_hash_update(pt2c_content_hasher *hasher, const void *data, size_t size);
uint64_t pt2c_content_hash_final(const pt2c_content_hasher *hasher);

/* One call for data in one piece. */
uint64_t pt2c_content_hash(const void *data, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* PT2C_RUNTIME_CONTENT_HASH_H_ */
