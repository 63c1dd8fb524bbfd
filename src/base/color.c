/* Colour for the verdicts of human reports: green for what passes (fits,
 * pass, match), red for what refuses or fails (refused, REFUSED, fail,
 * DIFFERS, error), yellow for a warning. Only on a terminal: --color=auto
 * (the default) paints a stream that is a tty, unless NO_COLOR is set to
 * anything (no-color.org) or TERM is dumb; --color=always and
 * --color=never override both. Escapes are SGR sequences only, so
 * cmd_wrap (color_shown_len) can measure a painted line by what it shows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "color.h"

static int mode = -1;		  /* -1 auto, 0 never, 1 always */
static int decided[2] = {-1, -1}; /* stdout, stderr: -1 not yet asked */

int color_when(const char *w)
{
	if (strcmp(w, "auto") == 0)
		mode = -1;
	else if (strcmp(w, "never") == 0)
		mode = 0;
	else if (strcmp(w, "always") == 0)
		mode = 1;
	else
		return -1;
	decided[0] = decided[1] = -1;
	return 0;
}

static int painted(FILE *f)
{
	int i = f == stderr;
	if (decided[i] < 0) {
		const char *no = getenv("NO_COLOR"), *term = getenv("TERM");
		if (mode >= 0)
			decided[i] = mode;
		else
			decided[i] = isatty(fileno(f)) && !(no && *no) && !(term && strcmp(term, "dumb") == 0);
	}
	return decided[i];
}

const char *color_tone(FILE *f, enum color_tone t)
{
	if (!painted(f))
		return "";
	switch (t) {
	case COLOR_GOOD: return "\033[32m";
	case COLOR_BAD: return "\033[1;31m";
	case COLOR_WARN: return "\033[33m";
	case COLOR_END: return "\033[0m";
	}
	return "";
}

const char *color_word(const char *word)
{
	static const struct {
		const char *word;
		enum color_tone tone;
	} words[] = {
	    {"fits", COLOR_GOOD},    {"pass", COLOR_GOOD},	   {"match", COLOR_GOOD},  {"refused", COLOR_BAD},
	    {"REFUSED", COLOR_BAD},  {"fail", COLOR_BAD},	   {"DIFFERS", COLOR_BAD}, {"error", COLOR_BAD},
	    {"warning", COLOR_WARN}, {"inconclusive", COLOR_WARN},
	};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcmp(word, words[i].word) == 0)
			return color_tone(stdout, words[i].tone);
	return "";
}

size_t color_shown_len(const char *s, size_t n)
{
	size_t len = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\033' && i + 1 < n && s[i + 1] == '[') { /* an SGR escape shows nothing */
			i += 2;
			while (i < n && s[i] != 'm')
				i++;
			continue;
		}
		if (((unsigned char)s[i] & 0xC0) != 0x80) /* a UTF-8 sequence shows one column */
			len++;
	}
	return len;
}
