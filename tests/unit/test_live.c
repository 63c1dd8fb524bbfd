#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "live/png.h"
#include "live/probe.h"
#include "tap.h"

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void test_live(void)
{
	struct sb png = {0};
	ok(png_solid(512, 512, 255, 0, 0, &png) == 0, "png: 512 px encodes");
	const unsigned char *p = (const unsigned char *)png.s;
	ok(png.len > 57 && memcmp(p, "\x89PNG\r\n\x1a\n", 8) == 0, "png: signature");
	ok(be32(p + 8) == 13 && memcmp(p + 12, "IHDR", 4) == 0 && be32(p + 16) == 512 && be32(p + 20) == 512 &&
	       p[24] == 8 && p[25] == 2,
	   "png: IHDR 512 x 512, 8-bit RGB");
	ok(be32(p + 29) == (uint32_t)crc32(0, p + 12, 17), "png: IHDR CRC");
	/* inflate the IDAT and check every pixel is red */
	uint32_t idat_n = be32(p + 33);
	ok(memcmp(p + 37, "IDAT", 4) == 0, "png: IDAT follows");
	uLongf raw_n = 512 * (1 + 512 * 3);
	unsigned char *raw = malloc(raw_n);
	int z = uncompress(raw, &raw_n, p + 41, idat_n);
	int red = z == Z_OK && raw_n == 512 * (1 + 512 * 3);
	for (uLongf i = 0; red && i < raw_n; i++) {
		uLongf col = i % (1 + 512 * 3);
		unsigned want = col == 0 ? 0 : (col - 1) % 3 == 0 ? 255 : 0;
		red &= raw[i] == want;
	}
	ok(red, "png: inflates to 512 rows of solid red");
	free(raw);
	ok(png_solid(0, 10, 0, 0, 0, &png) == -1, "png: zero width refused");
	sb_release(&png);

	struct sb b64 = {0};
	base64_append((const unsigned char *)"Man", 3, &b64);
	base64_append((const unsigned char *)"Ma", 2, &b64);
	base64_append((const unsigned char *)"M", 1, &b64);
	ok(strcmp(b64.s, "TWFuTWE=TQ==") == 0, "base64 with padding: %s", b64.s);
	sb_release(&b64);

	char *ev = NULL;
	const char *trap = "{\"choices\":[{\"finish_reason\":\"length\",\"message\":{\"content\":\"\","
			   "\"reasoning_content\":\"thinking...\"}}],\"usage\":{\"completion_tokens\":64}}";
	ok(probe_judge_chat(200, trap, strlen(trap), &ev) == PROBE_PASS && strstr(ev, "thinking trap"),
	   "chat: empty content after a length stop in reasoning is the thinking trap, not a failure");
	free(ev);
	const char *dead = "{\"choices\":[{\"finish_reason\":\"stop\",\"message\":{\"content\":\"\"}}]}";
	ok(probe_judge_chat(200, dead, strlen(dead), &ev) == PROBE_FAIL, "chat: no content and no reasoning fails");
	free(ev);
	const char *fine = "{\"choices\":[{\"finish_reason\":\"stop\",\"message\":{\"content\":\"zealot alive\"}}]}";
	ok(probe_judge_chat(200, fine, strlen(fine), &ev) == PROBE_PASS && strstr(ev, "zealot alive"),
	   "chat: an answer passes");
	free(ev);
	ok(probe_judge_chat(500, fine, strlen(fine), &ev) == PROBE_FAIL, "chat: HTTP 500 fails");
	free(ev);
	ok(probe_judge_chat(200, "{{{", 3, &ev) == PROBE_FAIL && strstr(ev, "not JSON"), "chat: junk is named");
	free(ev);
}
