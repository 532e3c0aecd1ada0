/* Scratch blocks behind pthread keys whose destructor is libc's free: it stays valid after
 * this library is dlclose'd (see error.c, which also explains why not _Thread_local). */
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#include "scratch.h"

#include <pthread.h>
#include <stdlib.h>

enum { kHeader = 64 }; /* the block's capacity, keeping the data 64-byte aligned */

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static pthread_key_t g_keys[PT2C_SCRATCH_NUM_SLOTS];
static int g_keys_created;

static void create_keys(void) {
  for (int i = 0; i < PT2C_SCRATCH_NUM_SLOTS; ++i)
    if (pthread_key_create(&g_keys[i], free) != 0)
      return;
  g_keys_created = 1;
}

/* Keys are a finite resource and a host may load and unload many models. Blocks of live
 * threads leak at unload (their destructor no longer runs): one per slot and thread. */
__attribute__((destructor)) static void delete_keys(void) {
  if (!g_keys_created)
    return;
  for (int i = 0; i < PT2C_SCRATCH_NUM_SLOTS; ++i)
    pthread_key_delete(g_keys[i]);
}

void *pt2c_cpu_scratch(pt2c_scratch_slot slot, size_t bytes) {
  pthread_once(&g_once, create_keys);
  if (!g_keys_created)
    return NULL;
  char *block = pthread_getspecific(g_keys[slot]);
  if (block && *(size_t *)block >= bytes)
    return block + kHeader;
  size_t capacity = block ? *(size_t *)block : 0;
  capacity = capacity + capacity / 2 > bytes ? capacity + capacity / 2 : bytes;
  free(block);
  pthread_setspecific(g_keys[slot], NULL);
  void *fresh;
  if (posix_memalign(&fresh, 64, kHeader + capacity) != 0)
    return NULL;
  *(size_t *)fresh = capacity;
  pthread_setspecific(g_keys[slot], fresh);
  return (char *)fresh + kHeader;
}
