/* libFuzzer target: one HTTP response header line as curl hands it to a
 * header callback (remote_header_parse, shared by the header reader and the
 * downloader). Beyond not crashing: the line is NUL-terminated within its
 * buffer and, when the input holds no NUL, carries no CR or LF at its end;
 * a value points into the line,
 * and a Content-Range is only ever a valid one (start <= end < total). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "payload/remote.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct remote_header h;
	remote_header_parse((const char *)data, size, &h);
	size_t n = strnlen(h.line, sizeof(h.line));
	if (n == sizeof(h.line))
		abort();
	if (!memchr(data, 0, size) && n && (h.line[n - 1] == '\r' || h.line[n - 1] == '\n'))
		abort(); /* (a NUL inside the line ends the string before the CR LF comes off) */
	if (h.value && (h.value < h.line || h.value > h.line + n))
		abort();
	if (h.field == REMOTE_CONTENT_RANGE && !(h.start <= h.end && h.end < h.total))
		abort();
	if ((h.field == REMOTE_STATUS || h.field == REMOTE_END || h.field == REMOTE_OTHER) && h.value)
		abort();
	return 0;
}
