/* util: allocation that cannot fail, a growable string buffer, error strings.
 *
 * Allocation failure aborts with a message (tmux's xmalloc): zealot's inputs
 * are bounded before anything is allocated, so running out of memory is a
 * host problem, not an input problem, and there is nothing to recover.
 */
#ifndef ZEALOT_UTIL_H
#define ZEALOT_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xreallocarray(void *p, size_t count, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* A growable, always NUL-terminated string. Zero-initialise or sb_init();
 * sb_release() frees the contents and leaves an empty buffer. */
struct sb {
	char *s;
	size_t len;
	size_t cap;
};

void sb_init(struct sb *b);
void sb_release(struct sb *b);
void sb_grow(struct sb *b, size_t extra);
void sb_add(struct sb *b, const char *s, size_t n);
void sb_adds(struct sb *b, const char *s);
void sb_addc(struct sb *b, char c);
void sb_addf(struct sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vaddf(struct sb *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Append s as a JSON string literal, quotes included. */
void sb_add_json_str(struct sb *b, const char *s, size_t n);
/* Hand the string to the caller (who frees it) and reset the buffer. */
char *sb_detach(struct sb *b);
/* A copy of the buffer's last line, the characters of trail stripped from
 * its end first (a program's last words: "\n\r", "\n "). */
char *sb_last_line(const struct sb *b, const char *trail);

/* A formatted, allocated string. */
char *xvstrf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* The same from arguments: a new string, printf's way. */
char *xstrf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The directory part of a path: "." for a bare name, "/" for a file in
 * the root. Allocated. */
char *path_dir(const char *path);

/* Set *err (when err is not NULL) to a formatted, allocated message and
 * return -1, so library code can say `return errorf(err, "...")`. */
int errorf(char **err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* fd again blocking, once an open that O_NONBLOCK kept from hanging on a
 * FIFO is done (open_regular, the owned-file opens); returns fd. */
int fd_blocking(int fd);

/* Open path read-only, refusing anything but a regular file before a read
 * can block: a FIFO opened plainly waits for a writer forever, a device
 * reads without end. Returns the fd (blocking, O_CLOEXEC), or -1 with
 * *err: "cannot open 'P': why", or "cannot read 'P': it is not a regular
 * file (a FIFO)" (both start "cannot": an I/O failure, exit 3); errno is
 * ENOENT for a missing file (zerr_of_errno tells it), EINVAL for one that is
 * not regular. */
int open_regular(const char *path, char **err);

/* Parse a whole decimal unsigned integer (no sign, no spaces, no suffix).
 * Returns 0 and sets *out, or -1 when s is not such a number or overflows. */
int parse_u64(const char *s, uint64_t *out);
int parse_i64(const char *s, int64_t *out);
int parse_double(const char *s, double *out);

/* Whether word (n bytes) is one of the blank-separated words of list (a
 * flag's spellings, a key's flags); a NULL list holds none. */
int word_in_list(const char *list, const char *word, size_t n);
/* The next blank-separated (space, tab) word of *p, copied into word (cut
 * to cap - 1 bytes); *p moves past it. Its length before any cut, or 0 at
 * the end (*p NULL or blank to its end). */
size_t next_word(const char **p, char *word, size_t cap);

/* The index of s among names[0 .. n) (a word naming an enum's value, the
 * enum in the names' order), or -1. */
int name_index(const char *const *names, size_t n, const char *s);

/* Levenshtein distance between two short names (keys, options), for a
 * did-you-mean; strings over 64 bytes are 99 apart. */
size_t edit_distance(const char *a, const char *b);

/* The search behind every did-you-mean: near_start(want, max_edits), then
 * near_try with each candidate; .best is the first of the closest ones at
 * most max_edits away, or NULL. */
struct near {
	const char *want, *best;
	size_t best_d;
};
struct near near_start(const char *want, size_t max_edits);
void near_try(struct near *n, const char *candidate);

/* zealot's state directory (the store, the pin stamps): $ZEALOT_STATE_DIR,
 * else as root /var/lib/zealot, else $XDG_STATE_HOME/zealot, else
 * $HOME/.local/state/zealot (HOME unset: the passwd entry's home; never
 * /tmp). A path only: whoever uses it holds it to dir_private (file.h).
 * Allocated. */
char *state_dir(void);

/* The monotonic clock, for durations (never dates): seconds, milliseconds. */
double mono_s(void);
double mono_ms(void);

/* The executable a command name runs, found the way execvp finds it: a
 * name with a '/' as it is; a bare name in each $PATH entry in turn (an
 * empty entry is the current directory; no PATH: /usr/local/bin:/usr/bin:
 * /bin). NULL when no entry holds an executable of that name. Allocated. */
char *path_which(const char *name);

/* v with a comma every three digits ("200,704"), into buf of n bytes
 * (cut to fit); returns buf. */
const char *fmt_commas(uint64_t v, char *buf, size_t n);

/* MiB as every human report prints it: two decimals (printf's rounding,
 * as the engine's), a comma every three integer digits ("22,543.86",
 * "-484.98"); plus: a '+' before a value that is not 0.00. Into buf of n bytes
 * (cut to fit); returns buf. */
const char *fmt_mib(double mib, int plus, char *buf, size_t n);
/* fmt_mib into a buffer of the enclosing block (a compound literal): for
 * printf arguments, e.g. printf("%11s", FMT_MIB(v)). */
#define FMT_MIB(v)	fmt_mib((v), 0, (char[48]){0}, 48)
#define FMT_MIB_PLUS(v) fmt_mib((v), 1, (char[48]){0}, 48)

#endif
