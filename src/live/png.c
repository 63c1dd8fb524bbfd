#include "png.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static void be32(struct sb *o, uint32_t v)
{
	char b[4] = {(char)(v >> 24), (char)(v >> 16), (char)(v >> 8), (char)v};
	sb_add(o, b, 4);
}

static void chunk(struct sb *o, const char *type, const unsigned char *data, size_t n)
{
	be32(o, (uint32_t)n);
	size_t at = o->len;
	sb_add(o, type, 4);
	if (n)
		sb_add(o, (const char *)data, n);
	uLong crc = crc32(0L, (const Bytef *)o->s + at, (uInt)(n + 4));
	be32(o, (uint32_t)crc);
}

int png_solid(uint32_t width, uint32_t height, uint8_t r, uint8_t g, uint8_t b, struct sb *out)
{
	if (!width || !height || width > 8192 || height > 8192)
		return -1;
	size_t row = 1 + (size_t)width * 3;
	size_t raw_n = row * height;
	unsigned char *raw = xmalloc(raw_n);
	for (uint32_t y = 0; y < height; y++) {
		unsigned char *p = raw + y * row;
		p[0] = 0; /* filter: none */
		for (uint32_t x = 0; x < width; x++) {
			p[1 + 3 * x] = r;
			p[2 + 3 * x] = g;
			p[3 + 3 * x] = b;
		}
	}
	uLongf zn = compressBound((uLong)raw_n);
	unsigned char *z = xmalloc(zn);
	int rc = compress2(z, &zn, raw, (uLong)raw_n, 9);
	free(raw);
	if (rc != Z_OK) {
		free(z);
		return -1;
	}
	static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
	sb_add(out, (const char *)sig, 8);
	unsigned char ihdr[13] = {0};
	for (int i = 0; i < 4; i++) {
		ihdr[i] = (unsigned char)(width >> (24 - 8 * i));
		ihdr[4 + i] = (unsigned char)(height >> (24 - 8 * i));
	}
	ihdr[8] = 8; /* bit depth */
	ihdr[9] = 2; /* colour type: RGB */
	chunk(out, "IHDR", ihdr, 13);
	chunk(out, "IDAT", z, zn);
	chunk(out, "IEND", NULL, 0);
	free(z);
	return 0;
}

void base64_append(const unsigned char *d, size_t n, struct sb *out)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)d[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)d[i + 1] << 8;
		if (i + 2 < n)
			v |= d[i + 2];
		char q[4] = {t[v >> 18 & 63], t[v >> 12 & 63], i + 1 < n ? t[v >> 6 & 63] : '=',
			     i + 2 < n ? t[v & 63] : '='};
		sb_add(out, q, 4);
	}
}
