/* The chat template's preserve_thinking and video parts (issue 33 item
 * 10): inspect reports whether a template keeps earlier turns' reasoning
 * (and its default) and whether it renders video content parts. */
#include <string.h>

#include "payload/template.h"
#include "tap.h"

void test_template_parts(void)
{
	struct template_facts f;
	const char *t1 =
	    "{%- set preserve_thinking = preserve_thinking | default(false) -%}"
	    "{%- if message.thinking is defined and preserve_thinking -%}{{ message.thinking }}{%- endif -%}";
	template_scan(t1, strlen(t1), &f);
	ok(f.preserve && f.preserve_default == 0 && !f.video, "preserve_thinking read, its default false");
	template_facts_release(&f);

	const char *t2 = "{% if preserve_thinking | default(true) %}<think>{% endif %}"
			 "{%- elif 'video' in item or item.type == 'video' %}<|video_pad|>";
	template_scan(t2, strlen(t2), &f);
	ok(f.preserve && f.preserve_default == 1, "preserve_thinking defaulting true");
	ok(f.video && f.thinking, "video content parts rendered");
	template_facts_release(&f);

	const char *t3 = "{% if preserve_thinking %}x{% endif %}";
	template_scan(t3, strlen(t3), &f);
	ok(f.preserve && f.preserve_default == -1, "preserve_thinking read with no default stated");
	template_facts_release(&f);

	const char *t4 = "{{ messages }}<think>{% if item.type == 'image' %}{% endif %}";
	template_scan(t4, strlen(t4), &f);
	ok(!f.preserve && f.preserve_default == -1 && !f.video && f.images, "neither: no preserve_thinking, no video");
	template_facts_release(&f);
}
