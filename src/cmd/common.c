#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/color.h"
#include "../base/redact.h"
#include "../base/util.h"
#include "../endpoint/endpoint.h"
#include "../payload/remote.h"
#include "../plan/device.h"
#include "cmd.h"
#include "options.h"

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

int cmd_exit(enum zerr kind)
{
	switch (kind) {
	case ZE_OK: return EXIT_OK;
	case ZE_REFUSED: return EXIT_NO;
	case ZE_USAGE: return EXIT_USAGE;
	case ZE_NOTFOUND:
	case ZE_IO: return EXIT_IO;
	}
	return EXIT_IO;
}

struct endpoint *cmd_load_endpoint(const char *path, const struct opt_list *sets, int *rc, char **err)
{
	enum zerr kind;
	struct endpoint *ep = endpoint_load(path, &kind, err);
	if (!ep) {
		*rc = cmd_exit(kind);
		return NULL;
	}
	if (cmd_apply_sets(ep, sets, err)) {
		endpoint_free(ep);
		*rc = EXIT_USAGE;
		return NULL;
	}
	return ep;
}

int cmd_apply_device(struct endpoint *ep, const char *device, char **err)
{
	char hint[320];
	if (!device)
		return 0;
	if (!device_find(device))
		return errorf(err, "--device: '%s' is not a known profile: %s", device,
			      device_unknown_hint(device, hint, sizeof(hint)));
	struct sb kv = {0};
	sb_addf(&kv, "DEVICE=%s", device);
	int rc = endpoint_set(ep, kv.s, err);
	sb_release(&kv);
	return rc;
}

int cmd_is_payload(const char *path)
{
	if (remote_is_url(path))
		return 1;
	/* never blocks: a FIFO or a device is no payload (the loader names it) */
	char magic[4];
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	int gguf =
	    fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && read(fd, magic, 4) == 4 && memcmp(magic, "GGUF", 4) == 0;
	close(fd);
	return gguf;
}

/* s as a double-quoted endpoint value (\" \\ \$ \` escaped) */
static void add_quoted(struct sb *b, const char *key, const char *s, size_t n)
{
	sb_addf(b, "%s=\"", key);
	for (size_t i = 0; i < n; i++) {
		if (strchr("\"\\$`", s[i]))
			sb_addc(b, '\\');
		sb_addc(b, s[i]);
	}
	sb_adds(b, "\"\n");
}

/* The endpoint a bare payload stands for: MODEL_FILE (a URL: MODEL_URL,
 * and MODEL_FILE its file name, read by range requests while it is not
 * here) and CTX_SIZE 4096 unless --set gives one. */
static struct endpoint *payload_endpoint(const char *path, const struct opt_list *sets, char **err)
{
	struct sb b = {0};
	int url = remote_is_url(path), ctx = 0;
	for (unsigned i = 0; sets && i < sets->n; i++)
		ctx |= strncmp(sets->v[i], "CTX_SIZE=", 9) == 0;
	if (url) {
		const char *name = strrchr(path, '/') + 1;
		size_t n = strcspn(name, "?#");
		add_quoted(&b, "MODEL_URL", path, strlen(path));
		add_quoted(&b, "MODEL_FILE", n ? name : "model.gguf", n ? n : strlen("model.gguf"));
	} else {
		char *abs = realpath(path, NULL);
		add_quoted(&b, "MODEL_FILE", abs ? abs : path, strlen(abs ? abs : path));
		free(abs);
	}
	if (!ctx)
		sb_adds(&b, "CTX_SIZE=4096\n");
	struct endpoint *ep = endpoint_parse(b.s, b.len, path, err);
	sb_release(&b);
	return ep;
}

struct endpoint *cmd_load_target(const char *cmd, const char *path, const struct opt_list *sets, int *rc, char **err)
{
	if (!cmd_is_payload(path))
		return cmd_load_endpoint(path, sets, rc, err);
	struct endpoint *ep = payload_endpoint(path, sets, err);
	if (!ep) {
		*rc = EXIT_USAGE;
		return NULL;
	}
	if (cmd_apply_sets(ep, sets, err)) {
		endpoint_free(ep);
		*rc = EXIT_USAGE;
		return NULL;
	}
	fprintf(stderr, "zealot: %s: %s is a payload, not an endpoint file: as MODEL_%s=%s, CTX_SIZE=%s%s\n", cmd, path,
		remote_is_url(path) ? "URL" : "FILE", path, endpoint_value(ep, K_CTX_SIZE),
		endpoint_entry(ep, K_CTX_SIZE)->line > 0 ? " (--set CTX_SIZE=N for another)" : "");
	return ep;
}

int cmd_apply_sets(struct endpoint *ep, const struct opt_list *sets, char **err)
{
	for (unsigned i = 0; sets && i < sets->n; i++)
		if (endpoint_set(ep, sets->v[i], err))
			return -1;
	return 0;
}

int cmd_is_help(const char *arg)
{
	return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

const char *cmd_commas(uint64_t v, char *buf, size_t n)
{
	return fmt_commas(v, buf, n);
}

unsigned cmd_width(void)
{
	static unsigned w;
	if (w)
		return w;
	w = 100;
	if (!isatty(STDOUT_FILENO))
		return w;
	const char *c = getenv("COLUMNS");
	char *end;
	unsigned long v = c && *c ? strtoul(c, &end, 10) : 0;
	struct winsize ws;
	if (c && *c && !*end && v)
		w = (unsigned)(v > 1000 ? 1000 : v);
	else if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col)
		w = ws.ws_col;
	if (w < 60)
		w = 60;
	return w;
}

void cmd_wrap(FILE *f, const char *head, size_t indent, const char *text)
{
	size_t col = color_shown_len(head, strlen(head));
	fputs(head, f);
	const char *p = text;
	while (*p) {
		size_t bytes = strcspn(p, " "), word = color_shown_len(p, bytes);
		/* a word that would cross the edge starts a new line, unless the
		 * line holds nothing yet (a word longer than a line is kept whole) */
		if (col > indent && col + 1 + word > CMD_WIDTH) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		} else if (p != text) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, bytes, f);
		col += word;
		p += bytes;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

double cmd_mib(uint64_t bytes)
{
	return (double)bytes / (1024.0 * 1024.0);
}

void cmd_print_json(json_t *o, int digits)
{
	char *raw = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | (digits ? JSON_REAL_PRECISION(digits) : 0));
	char *s = redact_text(raw);
	free(raw);
	puts(s);
	free(s);
}

void cmd_devices(FILE *f)
{
	fprintf(f, "devices:\n");
	for (unsigned i = 0; i < device_n_profiles; i++) {
		const struct device *d = &device_profiles[i];
		if (d->backend == DEVICE_CPU)
			fprintf(f, "  %-14s %s\n", d->name, d->note);
		else
			fprintf(f, "  %-14s %6llu MiB advertised, %6llu addressable, %4u GB/s\n", d->name,
				(unsigned long long)d->advertised_mib, (unsigned long long)d->addressable_mib,
				d->bandwidth_gbs);
	}
}

/* c run as name ("plan", "fleet plan"). */
static int dispatch_as(const struct command *c, const char *name, int argc, char **argv)
{
	/* --color between a command and its subcommand (fleet --color=never
	 * plan DIR), as before and after them */
	for (int cw; c->subs && argc > 1 && (cw = opt_color_word(argv[1], name));) {
		if (cw == EXIT_USAGE)
			return EXIT_USAGE;
		argv[1] = argv[0];
		argv++;
		argc--;
	}
	for (size_t i = 0; c->subs && argc >= 2 && c->subs[i]; i++)
		if (strcmp(argv[1], c->subs[i]->name) == 0) {
			char sub[64];
			snprintf(sub, sizeof(sub), "%s %s", name, c->subs[i]->name);
			return dispatch_as(c->subs[i], sub, argc - 1, argv + 1);
		}
	struct opt_args args;
	int rc = opt_parse(name, c->help, c->opts, argc, argv, &args);
	if (rc >= 0)
		return rc; /* --help printed, or a usage error */
	rc = c->run(&args);
	opt_release(c->opts, &args);
	return rc;
}

int cmd_dispatch(const struct command *c, int argc, char **argv)
{
	return dispatch_as(c, c->name, argc, argv);
}

int cmd_end(const char *name, int rc, char *err)
{
	if (err)
		cmd_fail(rc, "%s: %s", name, err);
	free(err);
	return rc;
}

json_t *cmd_remote_json(int remote, const struct remote_stats *rs)
{
	if (!remote)
		return json_null();
	return json_pack("{s:I,s:I}", "requests", (json_int_t)rs->requests, "bytes", (json_int_t)rs->bytes);
}
