/* Makes testdata/tiny_model.c a model with external weights, as `pt2c --external-weights`
 * would: the record of its weights file (pt2c/weights_format.h), a strong definition
 * that replaces embedded_entry.c's weak "embedded" default. The file holds tiny_model's
 * six weights (0.5, 1.5, ..., 5.5): 24 bytes whose pt2c_content_hash is the checksum
 * below; the fingerprint is any value the test's file repeats. */
#include "pt2c/weights_format.h"

__attribute__((visibility("hidden"))) const pt2c_external_weights __pt2c_external_weights = {
    .external = 1,
    .blob_size = 24,
    .fingerprint = 0x7069c2f00d5eed01ull,
    .checksum = 0x2a4bdb1c90ff6483ull,
};
