/* safe: a string zealot did not write (a process's argv, a server's
 * answer, a file name) as one line that a terminal, a log reader or a
 * JSON encoder takes as text and nothing else.
 *
 * Valid UTF-8 passes as it is, except what a terminal acts on or what
 * breaks the line: a C0 control or DEL becomes \n, \r, \t or \xNN, a C1
 * control (U+0080..U+009F), a line or paragraph separator (U+2028,
 * U+2029) and a bidirectional override or isolate (U+200E, U+200F,
 * U+061C, U+202A..U+202E, U+2066..U+2069) become \uXXXX; a byte that is
 * not part of valid UTF-8 (an overlong form, a surrogate, a stray
 * continuation byte, past U+10FFFF) becomes \xNN. Pure.
 */
#ifndef ZEALOT_SAFE_H
#define ZEALOT_SAFE_H

#include "util.h"

/* Append s, made safe, to out. */
void safe_line(struct sb *out, const char *s);

/* s made safe in tmp (emptied first); returns tmp's text ("" for NULL). */
const char *safe_str(const char *s, struct sb *tmp);

/* Whether s is valid UTF-8 (no overlong form, surrogate or code point
 * past U+10FFFF): what a JSON string or a YAML document may carry. */
int safe_utf8(const char *s);

/* s as a JSON string value: itself when valid UTF-8, else made safe
 * (a JSON encoder refuses invalid UTF-8). NULL stays JSON null. */
struct json_t *safe_json(const char *s);

#endif
