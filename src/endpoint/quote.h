/* quote: values written where another reader parses them (a shell word,
 * one line of a unit or a playbook). Pure. */
#ifndef ZEALOT_QUOTE_H
#define ZEALOT_QUOTE_H

#include "../base/util.h"

/* Append s to out as one shell word: single-quoted, each ' as '\''. Safe
 * for any byte string (a NUL ends it). */
void quote_shell(struct sb *out, const char *s);

/* Append s to out for one line of text (a comment, a description): every
 * control byte (a newline that would start a key, a directive, a command)
 * becomes '?'. */
void quote_one_line(struct sb *out, const char *s);

#endif
