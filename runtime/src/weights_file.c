#define _POSIX_C_SOURCE 200809L /* fstat, mmap */
#include "weights_file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "weights_hash.h"

_Static_assert(sizeof(pt2c_weights_file_header) == PT2C_WEIGHTS_FILE_HEADER_SIZE,
               "the weights file header is 64 bytes");

static pt2c_status fail_file(const char* path, const char* problem) {
  return pt2c_fail(PT2C_ERROR_WEIGHTS_FILE, "weights file '%s': %s", path, problem);
}

/* The header's claims against the .so's record, before any data is read. */
static pt2c_status check_header(const char* path, const pt2c_weights_file_header* header,
                                uint64_t file_size, const pt2c_external_weights* expected) {
  if (memcmp(header->magic, PT2C_WEIGHTS_FILE_MAGIC, 8) != 0)
    return fail_file(path, "not a pt2c weights file (no PT2CWGT magic at its start)");
  if (header->version != PT2C_WEIGHTS_FILE_VERSION ||
      header->header_size != PT2C_WEIGHTS_FILE_HEADER_SIZE)
    return pt2c_fail(PT2C_ERROR_WEIGHTS_FILE,
                     "weights file '%s': format version %u (header %u bytes); this runtime "
                     "reads version %u", path, header->version, header->header_size,
                     PT2C_WEIGHTS_FILE_VERSION);
  if (header->fingerprint != expected->fingerprint || header->blob_size != expected->blob_size)
    return pt2c_fail(PT2C_ERROR_WEIGHTS_FILE,
                     "weights file '%s' belongs to another model or another compile: its "
                     "layout fingerprint is %016" PRIx64 " (%" PRIu64 " bytes of weights), "
                     "this model.so expects %016" PRIx64 " (%" PRIu64 " bytes)",
                     path, header->fingerprint, header->blob_size, expected->fingerprint,
                     expected->blob_size);
  if (header->checksum != expected->checksum)
    return pt2c_fail(PT2C_ERROR_WEIGHTS_FILE,
                     "weights file '%s' has the layout of this model.so but other weight "
                     "values: checksum %016" PRIx64 ", this model.so was compiled with "
                     "%016" PRIx64, path, header->checksum, expected->checksum);
  if (file_size - PT2C_WEIGHTS_FILE_HEADER_SIZE < header->blob_size)
    return pt2c_fail(PT2C_ERROR_WEIGHTS_FILE,
                     "weights file '%s' is truncated: %" PRIu64 " bytes of weights after "
                     "the header, %" PRIu64 " expected", path,
                     file_size - PT2C_WEIGHTS_FILE_HEADER_SIZE, header->blob_size);
  if (file_size - PT2C_WEIGHTS_FILE_HEADER_SIZE > header->blob_size)
    return pt2c_fail(PT2C_ERROR_WEIGHTS_FILE,
                     "weights file '%s' has %" PRIu64 " bytes after its %" PRIu64
                     "-byte blob: not a file pt2c wrote", path,
                     file_size - PT2C_WEIGHTS_FILE_HEADER_SIZE - header->blob_size,
                     header->blob_size);
  return PT2C_OK;
}

pt2c_status pt2c_weights_file_open(const char* path, const pt2c_external_weights* expected,
                                   int verify_data, pt2c_weights_file* out) {
  memset(out, 0, sizeof *out);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT)
    return pt2c_fail(PT2C_ERROR_WEIGHTS_FILE,
                     "weights file '%s' does not exist: this model keeps its weights in a "
                     "separate file (pt2c --external-weights writes MODEL.so.weights; "
                     "`python -m pt2c_exporter weights` makes it from model.py); name it "
                     "with pt2c_model_create_with_weights, cpp_host/pt2c run --weights or "
                     "PT2C_WEIGHTS", path);
  if (fd < 0) return fail_file(path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return fail_file(path, "not a regular file");
  }
  uint64_t file_size = (uint64_t)st.st_size;
  if (file_size < PT2C_WEIGHTS_FILE_HEADER_SIZE) {
    close(fd);
    return pt2c_fail(PT2C_ERROR_WEIGHTS_FILE,
                     "weights file '%s' is truncated: %" PRIu64 " bytes, shorter than its "
                     "%u-byte header", path, file_size, PT2C_WEIGHTS_FILE_HEADER_SIZE);
  }
  if (file_size > SIZE_MAX) {
    close(fd);
    return fail_file(path, "too large to map");
  }
  void* mapping = mmap(NULL, (size_t)file_size, PROT_READ, MAP_PRIVATE, fd, 0);
  int map_errno = errno;
  close(fd); /* the mapping keeps the file */
  if (mapping == MAP_FAILED)
    return pt2c_fail(map_errno == ENOMEM ? PT2C_ERROR_OUT_OF_MEMORY : PT2C_ERROR_WEIGHTS_FILE,
                     "weights file '%s': cannot map it: %s", path, strerror(map_errno));
  pt2c_weights_file file = {mapping, (size_t)file_size,
                            (const unsigned char*)mapping + PT2C_WEIGHTS_FILE_HEADER_SIZE, 0};
  pt2c_weights_file_header header;
  memcpy(&header, mapping, sizeof header);
  pt2c_status status = check_header(path, &header, file_size, expected);
  file.blob_size = header.blob_size;
  if (status == PT2C_OK && verify_data) {
    uint64_t checksum = pt2c_weights_hash(file.blob, (size_t)file.blob_size);
    if (checksum != expected->checksum)
      status = pt2c_fail(PT2C_ERROR_WEIGHTS_FILE,
                         "weights file '%s' is corrupt: its data's checksum is %016" PRIx64
                         ", its header and this model.so say %016" PRIx64
                         " (PT2C_WEIGHTS_VERIFY=0 skips this check)",
                         path, checksum, expected->checksum);
  }
  if (status != PT2C_OK) {
    pt2c_weights_file_close(&file);
    return status;
  }
  *out = file;
  return PT2C_OK;
}

void pt2c_weights_file_close(pt2c_weights_file* file) {
  if (file->mapping != NULL) munmap(file->mapping, file->mapping_size);
  memset(file, 0, sizeof *file);
}
