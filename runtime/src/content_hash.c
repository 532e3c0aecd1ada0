#include "content_hash.h"

#include <string.h>

static const uint64_t kPositionKey = 0x9e3779b97f4a7c15ull;

/* MurmurHash3's finalizer: a bijection that spreads every input bit over the word. */
static uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

static uint64_t load_le64(const unsigned char *p) {
  uint64_t word = 0;
  for (int i = 7; i >= 0; --i)
    word = (word << 8) | p[i];
  return word;
}

void pt2c_content_hash_init(pt2c_content_hasher *hasher) { memset(hasher, 0, sizeof *hasher); }

/* Sum over words first .. first + count - 1 of a contiguous run. */
static uint64_t sum_words(const unsigned char *data, uint64_t first, size_t count) {
  uint64_t sum = 0;
  for (size_t i = 0; i < count; ++i) {
    uint64_t word;
    memcpy(&word, data + 8 * i, 8); /* x86-64 is little-endian, as the format is */
    sum += mix(word + (first + i) * kPositionKey);
  }
  return sum;
}

void pt2c_content_hash_update(pt2c_content_hasher *hasher, const void *data, size_t size) {
  const unsigned char *bytes = data;
  unsigned filled = (unsigned)(hasher->length % 8);
  if (filled > 0) { /* complete the pending word first */
    size_t take = 8 - filled < size ? 8 - filled : size;
    memcpy(hasher->pending + filled, bytes, take);
    hasher->length += take;
    bytes += take;
    size -= take;
    if (hasher->length % 8 != 0)
      return;
    hasher->sum += mix(load_le64(hasher->pending) + (hasher->length / 8 - 1) * kPositionKey);
  }
  size_t words = size / 8;
  hasher->sum += sum_words(bytes, hasher->length / 8, words);
  hasher->length += 8 * words;
  size_t rest = size - 8 * words;
  memcpy(hasher->pending, bytes + 8 * words, rest);
  hasher->length += rest;
}

uint64_t pt2c_content_hash_final(const pt2c_content_hasher *hasher) {
  uint64_t sum = hasher->sum;
  unsigned filled = (unsigned)(hasher->length % 8);
  if (filled > 0) {
    unsigned char last[8] = {0};
    memcpy(last, hasher->pending, filled);
    sum += mix(load_le64(last) + (hasher->length / 8) * kPositionKey);
  }
  return mix(sum ^ mix(hasher->length));
}

uint64_t pt2c_content_hash(const void *data, size_t size) {
  pt2c_content_hasher hasher;
  pt2c_content_hash_init(&hasher);
  pt2c_content_hash_update(&hasher, data, size);
  return pt2c_content_hash_final(&hasher);
}
