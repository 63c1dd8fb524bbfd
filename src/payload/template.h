/* template: facts read from a chat template's Jinja source, without running
 * it: its size, whether it renders tools and images, and the
 * `reasoning_effort` values it accepts when it restricts them (law A08: a
 * template that raises on other values turns a client's unmapped level into
 * an HTTP 500).
 */
#ifndef ZEALOT_TEMPLATE_H
#define ZEALOT_TEMPLATE_H

#include <stddef.h>

#define TEMPLATE_MAX_EFFORT 16

struct template_facts {
	size_t bytes;
	int tools;	      /* renders a `tools` list */
	int tool_calls;	      /* renders assistant `tool_calls` */
	int images;	      /* renders image content parts */
	int thinking;	      /* mentions enable_thinking or <think> */
	int preserve;	      /* reads preserve_thinking: earlier turns' reasoning kept when set */
	int preserve_default; /* its `| default(...)`: 1 true, 0 false, -1 none stated */
	int video;	      /* renders video content parts */
	int raises;	      /* calls raise_exception */
	int effort_used;      /* reads reasoning_effort at all */
	size_t n_effort;      /* accepted values; 0 = not restricted */
	char *effort[TEMPLATE_MAX_EFFORT];
	char *effort_default;
};

void template_scan(const char *src, size_t n, struct template_facts *out);
void template_facts_release(struct template_facts *f);

#endif
