#include "quote.h"

#include <string.h>

void quote_shell(struct sb *out, const char *s)
{
	sb_addc(out, '\'');
	for (const char *p = s; *p; p++) {
		if (*p == '\'')
			sb_adds(out, "'\\''");
		else
			sb_addc(out, *p);
	}
	sb_addc(out, '\'');
}

void quote_shell_word(struct sb *out, const char *s)
{
	if (*s && s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./-+,=:@%")] == '\0')
		sb_adds(out, s);
	else
		quote_shell(out, s);
}

void quote_one_line(struct sb *out, const char *s)
{
	for (const char *p = s; *p; p++)
		sb_addc(out, (unsigned char)*p < 0x20 || *p == 0x7f ? '?' : *p);
}

/* One character in a unit file: % doubled (systemd's specifier), a
 * control character as '?'. */
static void unit_char(struct sb *out, char c)
{
	if (c == '%')
		sb_adds(out, "%%");
	else
		sb_addc(out, (unsigned char)c < 0x20 || c == 0x7f ? '?' : c);
}

void quote_unit_raw(struct sb *out, const char *s)
{
	for (const char *p = s; *p; p++)
		unit_char(out, *p);
}

void quote_unit_word(struct sb *out, const char *prefix, const char *s)
{
	int quote = !*s || strpbrk(s, " \t\"'\\;:") != NULL;
	if (quote)
		sb_addc(out, '"');
	quote_unit_raw(out, prefix);
	for (const char *p = s; *p; p++) {
		if (*p == '"' || *p == '\\')
			sb_addc(out, '\\');
		unit_char(out, *p);
	}
	if (quote)
		sb_addc(out, '"');
}

void quote_unit_exec_word(struct sb *out, const char *s)
{
	struct sb d = {0};
	sb_adds(&d, "");
	for (const char *p = s; *p; p++) {
		if (*p == '$')
			sb_addc(&d, '$');
		sb_addc(&d, *p);
	}
	quote_unit_word(out, "", d.s);
	sb_release(&d);
}

int quote_unit_user_ok(const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-");
	return *s && !s[n] && n <= 32 && s[0] != '-' && s[0] != '.';
}

void quote_prom(struct sb *out, const char *s)
{
	sb_addc(out, '"');
	for (const char *p = s; *p; p++) {
		if (*p == '\\' || *p == '"')
			sb_addc(out, '\\');
		if (*p == '\n')
			sb_adds(out, "\\n");
		else
			sb_addc(out, *p);
	}
	sb_addc(out, '"');
}
