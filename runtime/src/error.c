/* Thread-local last error.
 *
 * The message lives in a per-thread heap buffer behind a pthread key rather than in a
 * _Thread_local array: TLS in a dlopen'ed library needs __tls_get_addr, which would add
 * ld-linux to the model.so's NEEDED list, and a large initial-exec TLS block can exhaust
 * glibc's static TLS surplus when the library is dlopen'ed. */
#include "error.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

enum { kMessageCapacity = 1024 };

static pthread_once_t g_key_once = PTHREAD_ONCE_INIT;
static pthread_key_t g_message_key;
static int g_key_created;

/* Each thread's buffer is released by libc's free at thread exit; the destructor is
 * libc code, so it stays valid even after this library is dlclose'd. */
static void create_key(void) { g_key_created = pthread_key_create(&g_message_key, free) == 0; }

/* Return the key to the process when the library is unloaded: keys are a finite
 * resource and a host may load and unload many models. */
__attribute__((destructor)) static void delete_key(void) {
  if (g_key_created) {
    pthread_key_delete(g_message_key);
    g_key_created = 0;
  }
}

/* This thread's message buffer, created on first use; NULL if that is impossible. */
static char *thread_message(int create) {
  pthread_once(&g_key_once, create_key);
  if (!g_key_created)
    return NULL;
  char *message = pthread_getspecific(g_message_key);
  if (message == NULL && create) {
    message = calloc(1, kMessageCapacity);
    if (message != NULL && pthread_setspecific(g_message_key, message) != 0) {
      free(message);
      message = NULL;
    }
  }
  return message;
}

pt2c_status pt2c_fail(pt2c_status status, const char *format, ...) {
  char *message = thread_message(1);
  if (message != NULL) {
    va_list args;
    va_start(args, format);
    vsnprintf(message, kMessageCapacity, format, args);
    va_end(args);
  }
  return status;
}

PT2C_API const char *pt2c_last_error(void) {
  const char *message = thread_message(0);
  if (message != NULL)
    return message;
  /* Either no call on this thread has failed, or the buffer could not be allocated. */
  return g_key_created ? "" : "pt2c: could not allocate the error message buffer";
}
