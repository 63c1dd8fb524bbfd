/* png: a solid-colour RGB PNG (vision probes, law A04: at least 256 px),
 * deflated with zlib, and base64 for a data: URL. */
#ifndef ZEALOT_PNG_H
#define ZEALOT_PNG_H

#include <stdint.h>

#include "../base/util.h"

/* Append the PNG bytes to out. Returns 0, or -1 when zlib fails. */
int png_solid(uint32_t width, uint32_t height, uint8_t r, uint8_t g, uint8_t b, struct sb *out);
/* Append the base64 of data[0..n) to out. */
void base64_append(const unsigned char *data, size_t n, struct sb *out);

#endif
