/* quote: values written where another reader parses them (a shell word,
 * one line of a unit or a playbook). Pure. */
#ifndef ZEALOT_QUOTE_H
#define ZEALOT_QUOTE_H

#include "../base/util.h"

/* Append s to out as one shell word: single-quoted, each ' as '\''. Safe
 * for any byte string (a NUL ends it). */
void quote_shell(struct sb *out, const char *s);
/* The same, but s bare when every byte is one a shell reads as itself
 * (letters, digits, _ . / - + , = : @ %): for a command line a person reads. */
void quote_shell_word(struct sb *out, const char *s);

/* Append s to out for one line of text (a comment, a description): every
 * control byte (a newline that would start a key, a directive, a command)
 * becomes '?'. */
void quote_one_line(struct sb *out, const char *s);

/* Append s as a unit file's raw value (User=, Description=,
 * EnvironmentFile=: systemd unquotes none of them): `%` doubled (a
 * specifier otherwise, systemd.unit(5)), every control byte '?', so the
 * value never starts a line. */
void quote_unit_raw(struct sb *out, const char *s);

/* Append prefix and s as one word of a unit's word list (ExecStart=,
 * Environment=, BindReadOnlyPaths=, systemd.syntax(7)): `%` doubled; when
 * s is empty or holds a blank, a quote, a backslash, ';' or ':', the word
 * is double-quoted with " and \ escaped; a control byte becomes '?'. The
 * prefix ("-", "VAR=") is written as it is, inside the quotes. */
void quote_unit_word(struct sb *out, const char *prefix, const char *s);

/* Append s as an argument of a unit's command line (ExecStart=, after
 * the executable): as quote_unit_word, and `$` doubled, since systemd
 * expands $NAME and ${NAME} there from the unit's environment
 * (systemd.service(5)). Not for the executable's path, which systemd
 * takes as written: `$$` there names another file. */
void quote_unit_exec_word(struct sb *out, const char *s);

/* Whether s can be a unit's User= line as it stands: a user name (letters,
 * digits, . _ -, not starting with - or ., at most 32 bytes) or a UID. */
int quote_unit_user_ok(const char *s);

/* s as a Prometheus string: double quotes around it, '\\', '"' and a
 * newline escaped. The exposition format's label values and PromQL's
 * string literals both read it. */
void quote_prom(struct sb *out, const char *s);

#endif
