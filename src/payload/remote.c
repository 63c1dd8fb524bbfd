#include "remote.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "../base/util.h"

int remote_is_url(const char *s)
{
	return s && (strncasecmp(s, "http://", 7) == 0 || strncasecmp(s, "https://", 8) == 0);
}

struct remote_opts remote_opts_defaults(const struct remote_opts *o)
{
	struct remote_opts r = {0};
	if (o)
		r = *o;
	if (r.connect_s <= 0)
		r.connect_s = 15;
	if (r.stall_s <= 0)
		r.stall_s = 30;
	if (r.max_redirects == 0)
		r.max_redirects = 10;
	if (r.deadline_s <= 0)
		r.deadline_s = 120;
	if (r.grace_s <= 0)
		r.grace_s = 10;
	if (r.min_rate <= 0)
		r.min_rate = 128 << 10;
	return r;
}

long remote_header_budget_ms(const struct remote_opts *o, uint64_t bytes, double elapsed_ms)
{
	struct remote_opts r = remote_opts_defaults(o);
	double left = (double)r.deadline_s * 1000.0 - elapsed_ms;
	double want = (double)r.grace_s * 1000.0 + (double)bytes * 1000.0 / (double)r.min_rate;
	double ms = want < left ? want : left;
	return ms < 1.0 ? 0 : (long)ms;
}

/* scheme://host:port, lowercased by curl's parser; NULL when it does not parse. */
static char *origin_of(const char *url)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL, *port = NULL, *out = NULL;
	if (curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK) {
		struct sb b = {0};
		sb_addf(&b, "%s://%s:%s", scheme, host, port);
		for (char *p = b.s; *p; p++)
			if (*p >= 'A' && *p <= 'Z')
				*p = (char)(*p - 'A' + 'a');
		out = sb_detach(&b);
	}
	curl_free(scheme);
	curl_free(host);
	curl_free(port);
	curl_url_cleanup(u);
	return out;
}

int remote_same_origin(const char *a, const char *b)
{
	char *x = origin_of(a), *y = origin_of(b);
	int same = x && y && strcmp(x, y) == 0;
	free(x);
	free(y);
	return same;
}

char *remote_resolve(const char *base, const char *location)
{
	CURLU *u = curl_url();
	char *s = NULL, *out = NULL;
	if (curl_url_set(u, CURLUPART_URL, base, 0) == CURLUE_OK &&
	    curl_url_set(u, CURLUPART_URL, location, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_URL, &s, 0) == CURLUE_OK && remote_is_url(s))
		out = xstrdup(s);
	curl_free(s);
	curl_url_cleanup(u);
	return out;
}

void remote_setup(CURL *h, const char *url, const char *origin_url, const struct remote_opts *o,
		  const char *const *extra, struct curl_slist **hdrs)
{
	struct remote_opts r = remote_opts_defaults(o);
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L); /* by hand: the token must not follow */
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, r.connect_s);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, r.stall_s);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "zealot");
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, NULL); /* payload bytes, not a re-encoding */
	struct curl_slist *l = NULL;
	for (size_t i = 0; extra && extra[i]; i++)
		l = curl_slist_append(l, extra[i]);
	if (r.token && *r.token && remote_same_origin(url, origin_url)) {
		struct sb b = {0};
		sb_addf(&b, "Authorization: Bearer %s", r.token);
		l = curl_slist_append(l, b.s);
		/* the header text is copied by curl; wipe ours */
		memset(b.s, 0, b.len);
		sb_release(&b);
	}
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, l);
	*hdrs = l;
}

const char *remote_status_why(long status)
{
	switch (status) {
	case 401:
	case 403: return "gated or needs a token (TOKEN_FILE, HF_TOKEN_FILE or HF_TOKEN)";
	case 404: return "not found";
	case 410: return "gone";
	case 416: return "range not satisfiable";
	case 429: return "rate limited";
	default: break;
	}
	if (status >= 500)
		return "server error";
	if (status >= 300 && status < 400)
		return "a redirect without a usable Location";
	return "unexpected status";
}

/* A token file: one line, surrounding blanks and the newline stripped; a
 * token with a control byte inside would forge headers and is refused. */
static int read_token(const char *path, char **token, char **err)
{
	char *e = NULL;
	int fd = open_regular(path, &e);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		errorf(err, "token file: %s", e ? e : strerror(errno));
		free(e);
		return -1;
	}
	char buf[8192];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	int bad = ferror(f) || !feof(f);
	fclose(f);
	if (bad)
		return errorf(err, "token file '%s': unreadable or larger than %zu bytes", path, sizeof(buf) - 1);
	buf[n] = '\0';
	char *s = buf;
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	size_t len = strlen(s);
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\n' || s[len - 1] == '\r'))
		len--;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x21 || s[i] == 0x7f) {
			memset(buf, 0, sizeof(buf));
			return errorf(err, "token file '%s': the token contains a blank or control byte", path);
		}
	*token = len ? xstrndup(s, len) : NULL;
	memset(buf, 0, sizeof(buf));
	if (!*token)
		return errorf(err, "token file '%s' is empty", path);
	return 0;
}

int remote_token(const char *token_file, char **token, char **err)
{
	*token = NULL;
	if (token_file && *token_file)
		return read_token(token_file, token, err);
	const char *f = getenv("HF_TOKEN_FILE");
	if (f && *f)
		return read_token(f, token, err);
	const char *t = getenv("HF_TOKEN");
	if (t && *t) {
		for (const char *p = t; *p; p++)
			if ((unsigned char)*p < 0x21 || *p == 0x7f)
				return errorf(err, "HF_TOKEN contains a blank or control byte");
		*token = xstrdup(t);
	}
	return 0;
}

/* The value after a "name:" prefix (any case), leading blanks skipped, or
 * NULL when line is another field. */
static const char *field_value(const char *line, const char *name)
{
	size_t n = strlen(name);
	if (strncasecmp(line, name, n) != 0)
		return NULL;
	const char *v = line + n;
	while (*v == ' ' || *v == '\t')
		v++;
	return v;
}

void remote_header_parse(const char *p, size_t len, struct remote_header *h)
{
	memset(h, 0, sizeof(*h));
	size_t m = len < sizeof(h->line) - 1 ? len : sizeof(h->line) - 1;
	memcpy(h->line, p, m);
	h->line[m] = '\0';
	while (m && (h->line[m - 1] == '\n' || h->line[m - 1] == '\r'))
		h->line[--m] = '\0';
	const char *v = NULL;
	unsigned long long a, b, t;
	h->field = REMOTE_OTHER;
	if (strncmp(h->line, "HTTP/", 5) == 0) {
		const char *sp = strchr(h->line, ' ');
		h->field = REMOTE_STATUS;
		h->status = sp ? strtol(sp + 1, NULL, 10) : 0;
	} else if (m == 0) {
		h->field = REMOTE_END;
	} else if ((v = field_value(h->line, "content-range:"))) {
		if (sscanf(v, " bytes %llu-%llu/%llu", &a, &b, &t) == 3 && b >= a && t > b) {
			h->field = REMOTE_CONTENT_RANGE;
			h->start = a;
			h->end = b;
			h->total = t;
		}
	} else if ((v = field_value(h->line, "content-length:"))) {
		if (sscanf(v, " %llu", &t) == 1) {
			h->field = REMOTE_CONTENT_LENGTH;
			h->total = t;
		}
	} else if ((v = field_value(h->line, "etag:"))) {
		h->field = REMOTE_ETAG;
	} else if ((v = field_value(h->line, "last-modified:"))) {
		h->field = REMOTE_LAST_MODIFIED;
	} else if ((v = field_value(h->line, "accept-ranges:"))) {
		h->field = REMOTE_ACCEPT_RANGES;
		h->flag = strcasestr(v, "bytes") != NULL;
	} else if ((v = field_value(h->line, "content-type:"))) {
		h->field = REMOTE_CONTENT_TYPE;
		h->flag = strcasestr(v, "text/html") != NULL;
	} else if ((v = field_value(h->line, "location:"))) {
		h->field = REMOTE_LOCATION;
	}
	h->value = h->field == REMOTE_STATUS || h->field == REMOTE_END || h->field == REMOTE_OTHER ? NULL : v;
}

static size_t sink_header(char *p, size_t size, size_t n, void *arg)
{
	const struct remote_sink *s = arg;
	struct remote_header h;
	remote_header_parse(p, size * n, &h);
	s->header(s->arg, &h);
	return size * n;
}

static size_t sink_body(char *p, size_t size, size_t n, void *arg)
{
	const struct remote_sink *s = arg;
	return s->body(s->arg, p, size * n);
}

void remote_sink_set(CURL *h, struct remote_sink *s)
{
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, sink_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, s);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, s);
}
