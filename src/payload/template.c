#include "template.h"

#include <stdlib.h>
#include <string.h>

#include "../base/util.h"

static const char *find(const char *s, const char *end, const char *needle)
{
	size_t n = strlen(needle);
	for (const char *p = s; p + n <= end; p++)
		if (memcmp(p, needle, n) == 0)
			return p;
	return NULL;
}

static int has(const char *s, size_t n, const char *needle)
{
	return find(s, s + n, needle) != NULL;
}

/* End of the Jinja tag that contains p: the next "%}" or "}}". */
static const char *tag_end(const char *p, const char *end)
{
	const char *a = find(p, end, "%}");
	const char *b = find(p, end, "}}");
	if (!a)
		return b ? b : end;
	if (!b)
		return a;
	return a < b ? a : b;
}

static void add_effort(struct template_facts *f, const char *s, size_t n)
{
	for (size_t i = 0; i < f->n_effort; i++)
		if (strlen(f->effort[i]) == n && memcmp(f->effort[i], s, n) == 0)
			return;
	if (f->n_effort < TEMPLATE_MAX_EFFORT)
		f->effort[f->n_effort++] = xstrndup(s, n);
}

/* Parse the quoted strings of a list literal starting at p ('[' or '('). */
static void read_list(struct template_facts *f, const char *p, const char *end)
{
	char close = *p == '[' ? ']' : ')';
	for (p++; p < end && *p != close; p++) {
		if (*p != '\'' && *p != '"')
			continue;
		char q = *p;
		const char *s = ++p;
		while (p < end && *p != q)
			p++;
		if (p >= end)
			return;
		add_effort(f, s, (size_t)(p - s));
	}
}

void template_scan(const char *src, size_t n, struct template_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->bytes = n;
	const char *end = src + n;
	f->tools = has(src, n, "tools");
	f->tool_calls = has(src, n, "tool_calls") || has(src, n, "tool_call");
	f->images = has(src, n, "image");
	f->thinking = has(src, n, "enable_thinking") || has(src, n, "<think>");
	f->raises = has(src, n, "raise_exception");
	f->video = has(src, n, "video");
	f->preserve_default = -1;
	for (const char *p = src; (p = find(p, end, "preserve_thinking")) != NULL; p += 17) {
		f->preserve = 1;
		const char *te = tag_end(p, end), *d = find(p, te, "default(");
		if (d && f->preserve_default < 0)
			f->preserve_default = find(d, te, "true") || find(d, te, "True") ? 1 : 0;
	}
	for (const char *p = src; (p = find(p, end, "reasoning_effort")) != NULL; p += 16) {
		f->effort_used = 1;
		const char *te = tag_end(p, end);
		const char *q = p + 16;
		while (q < te && (*q == ' ' || *q == '\t'))
			q++;
		/* `reasoning_effort in [...]` or `reasoning_effort not in [...]` */
		if (te - q > 4 && memcmp(q, "not ", 4) == 0) {
			q += 4;
			while (q < te && *q == ' ')
				q++;
		}
		if (te - q > 3 && memcmp(q, "in ", 3) == 0) {
			q += 3;
			while (q < te && *q == ' ')
				q++;
			if (q < te && (*q == '[' || *q == '('))
				read_list(f, q, te);
		}
		/* `reasoning_effort | default('x')` */
		const char *d = find(p, te, "default(");
		if (d && !f->effort_default) {
			d += 8;
			if (d < te && (*d == '\'' || *d == '"')) {
				char qc = *d++;
				const char *s = d;
				while (d < te && *d != qc)
					d++;
				if (d < te)
					f->effort_default = xstrndup(s, (size_t)(d - s));
			}
		}
	}
}

void template_facts_release(struct template_facts *f)
{
	for (size_t i = 0; i < f->n_effort; i++)
		free(f->effort[i]);
	free(f->effort_default);
	memset(f, 0, sizeof(*f));
}
