#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/redact.h"
#include "../base/util.h"
#include "cmd.h"

int cmd_fail(int code, const char *fmt, ...)
{
	va_list ap;
	struct sb b = {0};
	va_start(ap, fmt);
	sb_vaddf(&b, fmt, ap);
	va_end(ap);
	/* no message prints a secret (a URL's password, an API key) */
	char *safe = redact_text(b.s ? b.s : "");
	fprintf(stderr, "zealot: %s\n", safe);
	free(safe);
	sb_release(&b);
	return code;
}

int cmd_is_help(const char *arg)
{
	return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

const char *cmd_commas(uint64_t v, char *buf, size_t n)
{
	return fmt_commas(v, buf, n);
}

void cmd_wrap(FILE *f, const char *head, size_t indent, const char *text)
{
	size_t col = strlen(head);
	fputs(head, f);
	const char *p = text;
	while (*p) {
		size_t word = strcspn(p, " ");
		/* a word that would cross the edge starts a new line, unless the
		 * line holds nothing yet (a word longer than a line is kept whole) */
		if (col > indent && col + 1 + word > CMD_WIDTH) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		} else if (p != text) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, word, f);
		col += word;
		p += word;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

double cmd_mib(uint64_t bytes)
{
	return (double)bytes / (1024.0 * 1024.0);
}

char *cmd_read_key(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char line[1024];
	char *key = NULL;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] && line[0] != '#') {
			key = xstrdup(line);
			break;
		}
	}
	fclose(f);
	return key;
}
