/* color: the tones human reports paint their verdicts in, only where a
 * person reads them: a terminal, unless NO_COLOR says no (no-color.org) or
 * TERM is dumb; color_when() overrides (zealot --color=WHEN). Nothing here
 * prints: it hands out SGR escapes (or "") for src/cmd/ to print.
 */
#ifndef ZEALOT_COLOR_H
#define ZEALOT_COLOR_H

#include <stddef.h>
#include <stdio.h>

enum color_tone { COLOR_GOOD, COLOR_BAD, COLOR_WARN, COLOR_END };

/* WHEN: auto (a tty without NO_COLOR), always or never; -1 for any other
 * word. */
int color_when(const char *when);
/* The escape that starts tone t on f, or "" when f is not painted. */
const char *color_tone(FILE *f, enum color_tone t);
/* The escape for a verdict word on stdout (fits, refused, pass, fail,
 * error, warning ...), "" for any other word: printf("%s%-8s%s",
 * color_word(w), w, color_tone(stdout, COLOR_END)) keeps the column. */
const char *color_word(const char *word);
/* The columns the n bytes at s show: colour escapes count nothing, a
 * UTF-8 sequence one column. */
size_t color_shown_len(const char *s, size_t n);

#endif
