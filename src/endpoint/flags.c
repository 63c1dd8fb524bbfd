#include "flags.h"

#include <stdio.h>
#include <string.h>

#include "../base/util.h"

static const struct engine_flag *by_spelling(const char *s, size_t n)
{
	for (size_t i = 0; i < engine_flags_n; i++)
		if (word_in_list(engine_flags[i].spellings, s, n))
			return &engine_flags[i];
	return NULL;
}

long flags_spelling(const char *arg, char *buf, size_t cap)
{
	if (arg[0] != '-')
		return -1;
	/* the engine takes `--flag_name` as `--flag-name` (common/arg.cpp);
	 * `--flag=value` names the flag too */
	size_t n = strcspn(arg, "=");
	if (n >= cap)
		return -1;
	memcpy(buf, arg, n);
	buf[n] = '\0';
	if (n > 2 && buf[1] == '-')
		for (size_t i = 2; i < n; i++)
			if (buf[i] == '_')
				buf[i] = '-';
	return (long)n;
}

const struct engine_flag *flags_find(const char *arg)
{
	char buf[96];
	long n = flags_spelling(arg, buf, sizeof(buf));
	return n < 0 ? NULL : by_spelling(buf, (size_t)n);
}

const struct engine_flag *flags_find_env(const char *var)
{
	size_t n = strlen(var);
	for (size_t i = 0; i < engine_flags_n; i++)
		if (engine_flags[i].env && strcmp(engine_flags[i].env, var) == 0)
			return &engine_flags[i];
	/* the negative twin of a flag with a --no- spelling (common_arg::get_env) */
	if (strncmp(var, "LLAMA_ARG_NO_", 13) == 0 && n < 96) {
		char buf[96];
		snprintf(buf, sizeof(buf), "LLAMA_ARG_%s", var + 13);
		const struct engine_flag *f = flags_find_env(buf);
		return f && strstr(f->spellings, "--no-") ? f : NULL;
	}
	return NULL;
}

const struct engine_flag *flags_find_ini(const char *key)
{
	if (strncmp(key, "LLAMA_ARG_", 10) == 0)
		return flags_find_env(key);
	/* the preset's keys are the spellings without their leading dashes,
	 * matched as written (no '_' for '-'): common/preset.cpp */
	char buf[96];
	size_t n = strlen(key);
	if (!n || n + 2 >= sizeof(buf) || key[0] == '-')
		return NULL;
	snprintf(buf, sizeof(buf), "--%s", key);
	const struct engine_flag *f = by_spelling(buf, n + 2);
	return f ? f : by_spelling(buf + 1, n + 1);
}

const char *flags_class_name(enum flag_class c)
{
	static const char *const names[] = {"harmless", "priced", "key", "refused"};
	return (size_t)c < ARRAY_SIZE(names) ? names[c] : "?";
}

/* A word the engine reads as a flag: a dash and not a negative number. */
static int is_flag_word(const char *p)
{
	return p[0] == '-' && p[1] && !(p[1] >= '0' && p[1] <= '9') && p[1] != '.';
}

size_t flags_parse(const char *text, struct flags_word *out, size_t max)
{
	size_t k = 0;
	unsigned owed = 0;     /* values the last flag still takes */
	int after_unknown = 0; /* a word after an unknown flag may be its value */
	const char *p = text;
	char word[64];
	for (size_t m; (m = next_word(&p, word, sizeof(word)));) {
		if (owed) {
			owed--;
			continue;
		}
		struct flags_word w = {{0}, NULL, 0};
		snprintf(w.word, sizeof(w.word), "%s", word);
		if (is_flag_word(word)) {
			/* a word cut at 63 bytes names no flag the table knows */
			w.row = m < 63 ? flags_find(word) : NULL;
			if (w.row && !strchr(word, '='))
				owed = w.row->values;
			after_unknown = !w.row;
		} else if (after_unknown) {
			after_unknown = 0;
			continue;
		} else {
			w.stray = 1;
		}
		if (k < max)
			out[k] = w;
		k++;
	}
	return k;
}
