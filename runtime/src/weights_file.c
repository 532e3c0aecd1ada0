#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, with the POSIX calls (pread, fstat, mmap) */
#include "weights_file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "content_hash.h"
#include "error.h"

_Static_assert(sizeof(pt2c_weights_file_header) == PT2C_WEIGHTS_FILE_HEADER_SIZE,
               "the weights file header is 64 bytes");

static pt2c_status fail_file(const char *path, const char *problem) {
  return pt2c_fail(PT2C_ERROR_WEIGHTS_FILE, "weights file '%s': %s", path, problem);
}

static pt2c_status fail_missing(const char *path) {
  return pt2c_fail(PT2C_ERROR_WEIGHTS_FILE,
                   "weights file '%s' does not exist: this model keeps its weights in a "
                   "separate file (pt2c --external-weights writes MODEL.so.weights; "
                   "`python -m pt2c_exporter weights` makes it from model.py); name it "
                   "with pt2c_model_create_with_weights, cpp_host/pt2c run --weights or "
                   "PT2C_WEIGHTS",
                   path);
}

/* What a non-regular file is, for the message. */
static const char *file_kind(mode_t mode) {
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISSOCK(mode))
    return "a socket";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  return "not a regular file";
}

static pt2c_status fail_not_regular(const char *path, mode_t mode) {
  return pt2c_fail(PT2C_ERROR_WEIGHTS_FILE,
                   "weights file '%s' is %s; it must be a regular file (the one pt2c "
                   "--external-weights wrote)",
                   path, file_kind(mode));
}

/* Reads `size` bytes at `offset`, retrying short reads and EINTR. Returns the bytes read
 * (fewer at end of file), or -1 with errno set. */
static int64_t read_at(int fd, void *buffer, uint64_t size, uint64_t offset) {
  uint64_t done = 0;
  while (done < size) {
    uint64_t chunk = size - done;
    if (chunk > (1u << 30))
      chunk = 1u << 30; /* read() moves at most ~2 GiB per call */
    ssize_t got = pread(fd, (unsigned char *)buffer + done, (size_t)chunk, (off_t)(offset + done));
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      return -1;
    if (got == 0)
      break;
    done += (uint64_t)got;
  }
  return (int64_t)done;
}

/* Every header byte against the format and the .so's record, before any data is read. */
static pt2c_status check_header(const char *path, const pt2c_weights_file_header *header,
                                uint64_t file_size, const pt2c_external_weights *expected) {
  if (memcmp(header->magic, PT2C_WEIGHTS_FILE_MAGIC, 8) != 0) /* the NUL included */
    return fail_file(path, "not a pt2c weights file (no PT2CWGT magic at its start)");
  if (header->version != PT2C_WEIGHTS_FILE_VERSION ||
      header->header_size != PT2C_WEIGHTS_FILE_HEADER_SIZE)
    return pt2c_fail(PT2C_ERROR_WEIGHTS_FILE,
                     "weights file '%s': format version %u (header %u bytes); this runtime "
                     "reads version %u",
                     path, header->version, header->header_size, PT2C_WEIGHTS_FILE_VERSION);
  /* Reserved bytes are zero in every file pt2c writes; a later format that uses them
   * will change the version, so anything else there is damage or another writer. */
  const unsigned char *reserved = (const unsigned char *)header->reserved;
  for (size_t i = 0; i < sizeof header->reserved; ++i)
    if (reserved[i] != 0)
      return pt2c_fail(PT2C_ERROR_WEIGHTS_FILE,
                       "weights file '%s' is damaged: header byte %zu (reserved) is 0x%02x, "
                       "not zero",
                       path, offsetof(pt2c_weights_file_header, reserved) + i, reserved[i]);
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
                     "%016" PRIx64,
                     path, header->checksum, expected->checksum);
  if (file_size - PT2C_WEIGHTS_FILE_HEADER_SIZE < header->blob_size)
    return pt2c_fail(PT2C_ERROR_WEIGHTS_FILE,
                     "weights file '%s' is truncated: %" PRIu64 " bytes of weights after "
                     "the header, %" PRIu64 " expected",
                     path, file_size - PT2C_WEIGHTS_FILE_HEADER_SIZE, header->blob_size);
  if (file_size - PT2C_WEIGHTS_FILE_HEADER_SIZE > header->blob_size)
    return pt2c_fail(PT2C_ERROR_WEIGHTS_FILE,
                     "weights file '%s' has %" PRIu64 " bytes after its %" PRIu64
                     "-byte blob: not a file pt2c wrote",
                     path, file_size - PT2C_WEIGHTS_FILE_HEADER_SIZE - header->blob_size,
                     header->blob_size);
  return PT2C_OK;
}

/* Opens `path` for reading only if it is a regular file, and its size. The path is
 * looked at first (opening a FIFO or a device can block or have effects), then opened
 * non-blocking and looked at again through the descriptor, in case something else was
 * put at the path in between. */
static pt2c_status open_regular(const char *path, int *out_fd, uint64_t *out_size) {
  struct stat st;
  if (stat(path, &st) != 0)
    return errno == ENOENT ? fail_missing(path) : fail_file(path, strerror(errno));
  if (!S_ISREG(st.st_mode))
    return fail_not_regular(path, st.st_mode);
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return errno == ENOENT ? fail_missing(path) : fail_file(path, strerror(errno));
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    int stat_errno = errno;
    close(fd);
    return S_ISREG(st.st_mode) ? fail_file(path, strerror(stat_errno))
                               : fail_not_regular(path, st.st_mode);
  }
  *out_fd = fd;
  *out_size = (uint64_t)st.st_size;
  return PT2C_OK;
}

/* Reads the blob into fresh anonymous memory that is read-only afterwards (a kernel
 * that wrote a weight would fault instead of corrupting the model). */
static pt2c_status read_blob(const char *path, int fd, uint64_t blob_size,
                             pt2c_weights_file *file) {
  long page = sysconf(_SC_PAGESIZE);
  uint64_t page_size = page > 0 ? (uint64_t)page : 4096;
  if (blob_size > SIZE_MAX - page_size)
    return fail_file(path, "too large for this process's address space");
  size_t size = (size_t)((blob_size + page_size - 1) / page_size * page_size);
  if (size == 0)
    size = (size_t)page_size; /* mmap takes no empty mappings */
  void *memory = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED)
    return pt2c_fail(PT2C_ERROR_OUT_OF_MEMORY,
                     "weights file '%s': cannot allocate %" PRIu64 " bytes for its weights: %s",
                     path, blob_size, strerror(errno));
  file->mapping = memory;
  file->mapping_size = size;
  file->blob = memory;
  file->blob_size = blob_size;
  int64_t got = read_at(fd, memory, blob_size, PT2C_WEIGHTS_FILE_HEADER_SIZE);
  if (got < 0)
    return pt2c_fail(PT2C_ERROR_WEIGHTS_FILE, "weights file '%s': cannot read it: %s", path,
                     strerror(errno));
  if ((uint64_t)got < blob_size)
    return pt2c_fail(PT2C_ERROR_WEIGHTS_FILE,
                     "weights file '%s' shrank while it was read: %" PRId64 " of %" PRIu64
                     " bytes of weights (was it being written?)",
                     path, got, blob_size);
  if (mprotect(memory, size, PROT_READ) != 0)
    return fail_file(path, "cannot make the copy of its weights read-only");
  return PT2C_OK;
}

pt2c_status pt2c_weights_file_open(const char *path, const pt2c_external_weights *expected,
                                   int verify_data, pt2c_weights_file *out) {
  memset(out, 0, sizeof *out);
  int fd = -1;
  uint64_t file_size = 0;
  pt2c_status status = open_regular(path, &fd, &file_size);
  if (status != PT2C_OK)
    return status;
  pt2c_weights_file file = {0};
  pt2c_weights_file_header header;
  int64_t got = file_size < sizeof header ? 0 : read_at(fd, &header, sizeof header, 0);
  if (got < 0)
    status = pt2c_fail(PT2C_ERROR_WEIGHTS_FILE, "weights file '%s': cannot read it: %s", path,
                       strerror(errno));
  else if ((uint64_t)got < sizeof header)
    status = pt2c_fail(PT2C_ERROR_WEIGHTS_FILE,
                       "weights file '%s' is truncated: %" PRIu64 " bytes, shorter than its "
                       "%u-byte header",
                       path, file_size, PT2C_WEIGHTS_FILE_HEADER_SIZE);
  if (status == PT2C_OK)
    status = check_header(path, &header, file_size, expected);
  if (status == PT2C_OK)
    status = read_blob(path, fd, header.blob_size, &file);
  close(fd); /* the model never reads the file again */
  if (status == PT2C_OK && verify_data) {
    uint64_t checksum = pt2c_content_hash(file.blob, (size_t)file.blob_size);
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

void pt2c_weights_file_close(pt2c_weights_file *file) {
  if (file->mapping != NULL)
    munmap(file->mapping, file->mapping_size);
  memset(file, 0, sizeof *file);
}
