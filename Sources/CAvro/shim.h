// SPDX-License-Identifier: Apache-2.0
// Apache Avro's C library (Debian's libavro-dev): Iceberg's manifest lists and manifests
// are Avro object container files. Its value interface is a set of macros, which Swift
// cannot call: these inline functions stand in for the ones SlicehouseIceberg uses.
#include <avro.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// An object container file held in memory, read value by value with its writer's schema.
typedef struct cavro_reader {
    void *buffer;                 // the file's bytes (fmemopen reads them in place)
    avro_file_reader_t reader;    // owns the FILE
    avro_value_iface_t *iface;
    avro_value_t value;
} cavro_reader;

/// Open `size` bytes (copied: the reader owns its buffer) as a container file; NULL when
/// they are not one (avro_strerror() says why).
static inline cavro_reader *cavro_open(const void *bytes, size_t size) {
    if (size == 0) return NULL;
    cavro_reader *r = (cavro_reader *)calloc(1, sizeof(cavro_reader));
    if (!r) return NULL;
    r->buffer = malloc(size);
    if (!r->buffer) { free(r); return NULL; }
    memcpy(r->buffer, bytes, size);
    FILE *file = fmemopen(r->buffer, size, "rb");
    if (!file) { free(r->buffer); free(r); return NULL; }
    // With should_close set, the library closes the FILE itself when it fails.
    if (avro_file_reader_fp(file, "manifest", 1, &r->reader) != 0) {
        free(r->buffer);
        free(r);
        return NULL;
    }
    avro_schema_t schema = avro_file_reader_get_writer_schema(r->reader);
    r->iface = schema ? avro_generic_class_from_schema(schema) : NULL;
    if (!r->iface || avro_generic_value_new(r->iface, &r->value) != 0) {
        if (r->iface) avro_value_iface_decref(r->iface);
        avro_file_reader_close(r->reader);
        free(r->buffer);
        free(r);
        return NULL;
    }
    return r;
}

/// Read the next value into `r->value`: 1 when read, 0 at the end, -1 on a bad file.
static inline int cavro_next(cavro_reader *r) {
    avro_value_reset(&r->value);
    int rc = avro_file_reader_read_value(r->reader, &r->value);
    if (rc == 0) return 1;
    if (rc == EOF) return 0;
    return -1;
}

static inline avro_value_t *cavro_value(cavro_reader *r) { return &r->value; }

static inline void cavro_close(cavro_reader *r) {
    if (!r) return;
    avro_value_decref(&r->value);
    avro_value_iface_decref(r->iface);
    avro_file_reader_close(r->reader);   // closes the FILE
    free(r->buffer);
    free(r);
}

static inline int cavro_type(const avro_value_t *v) { return (int)avro_value_get_type(v); }
static inline int cavro_boolean(const avro_value_t *v, int *out) { return avro_value_get_boolean(v, out); }
static inline int cavro_int(const avro_value_t *v, int32_t *out) { return avro_value_get_int(v, out); }
static inline int cavro_long(const avro_value_t *v, int64_t *out) { return avro_value_get_long(v, out); }
static inline int cavro_float(const avro_value_t *v, float *out) { return avro_value_get_float(v, out); }
static inline int cavro_double(const avro_value_t *v, double *out) { return avro_value_get_double(v, out); }
static inline int cavro_enum(const avro_value_t *v, int *out) { return avro_value_get_enum(v, out); }
/// A string's bytes; `size` counts the terminating NUL.
static inline int cavro_string(const avro_value_t *v, const char **out, size_t *size) {
    return avro_value_get_string(v, out, size);
}
static inline int cavro_bytes(const avro_value_t *v, const void **out, size_t *size) {
    return avro_value_get_bytes(v, out, size);
}
static inline int cavro_fixed(const avro_value_t *v, const void **out, size_t *size) {
    return avro_value_get_fixed(v, out, size);
}
/// Records' fields, arrays' elements and maps' entries.
static inline int cavro_size(const avro_value_t *v, size_t *out) { return avro_value_get_size(v, out); }
/// The i-th field, element or entry; `name` is the field's name or the map's key (NULL for arrays).
static inline int cavro_child(const avro_value_t *v, size_t i, avro_value_t *child, const char **name) {
    return avro_value_get_by_index(v, i, child, name);
}
static inline int cavro_branch(const avro_value_t *v, avro_value_t *branch) {
    return avro_value_get_current_branch(v, branch);
}
