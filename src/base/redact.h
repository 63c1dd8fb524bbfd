/* redact: the one place that decides what is a secret in text zealot
 * prints, writes or records (messages, JSON, history rows, emitted files).
 *
 *   - a variable, key or flag whose name holds KEY, TOKEN, PASSWORD,
 *     PASSWD, SECRET or CREDENTIAL (any case), unless it names a file
 *     (ends in _FILE / -file / _PATH): its value;
 *   - a URL's userinfo (scheme://user:password@host, or a token as the
 *     user): the whole userinfo; but for ssh:// a user alone (ssh takes
 *     no secret there), so a fleet's hosts stay readable;
 *   - a presigned URL's signature: the value of a query parameter (after
 *     '?' or '&') named sig, Signature, X-Amz-Signature, X-Amz-Credential
 *     or X-Goog-* (any case), up to the next '&' or '#'.
 * Each becomes REDACT_MARK. Pure.
 */
#ifndef ZEALOT_REDACT_H
#define ZEALOT_REDACT_H

#define REDACT_MARK "<redacted>"

/* Whether a variable/key/flag name holds a secret value. */
int redact_secret_name(const char *name, unsigned long n);

/* A copy of s with every secret above replaced: URL userinfo anywhere,
 * NAME=VALUE and --flag VALUE / --flag=VALUE pairs whose name is secret.
 * NULL stays NULL. Caller frees. */
char *redact_text(const char *s);

/* A copy of value, or REDACT_MARK when name is secret; URL userinfo
 * redacted either way. Caller frees. */
char *redact_value(const char *name, const char *value);

#endif
