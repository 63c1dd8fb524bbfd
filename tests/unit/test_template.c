#include <string.h>

#include "payload/template.h"
#include "tap.h"

void test_template(void)
{
	struct template_facts f;
	const char *t1 =
	    "{%- if reasoning_effort not in ['xhigh', 'medium', \"low\"] %}{{ raise_exception('no') }}"
	    "{% endif %}{% set e = reasoning_effort | default('xhigh') %}{% for tool in tools %}{% endfor %}";
	template_scan(t1, strlen(t1), &f);
	ok(f.n_effort == 3 && strcmp(f.effort[0], "xhigh") == 0 && strcmp(f.effort[2], "low") == 0,
	   "reasoning_effort values read from a not-in list");
	ok(f.effort_default && strcmp(f.effort_default, "xhigh") == 0, "default effort read");
	ok(f.raises && f.tools && !f.images, "raises/tools/images flags");
	template_facts_release(&f);

	const char *t2 = "{% if reasoning_effort in ('high','low') %}x{% endif %}<think>";
	template_scan(t2, strlen(t2), &f);
	ok(f.n_effort == 2 && strcmp(f.effort[1], "low") == 0 && f.thinking, "tuple form read");
	template_facts_release(&f);

	const char *t3 = "{{ messages }} {{ reasoning_effort }}";
	template_scan(t3, strlen(t3), &f);
	ok(f.effort_used && f.n_effort == 0, "used but unrestricted");
	template_facts_release(&f);

	const char *t4 = "{% if reasoning_effort in ['a', 'b";
	template_scan(t4, strlen(t4), &f);
	ok(f.n_effort == 1, "unterminated list handled");
	template_facts_release(&f);
}
