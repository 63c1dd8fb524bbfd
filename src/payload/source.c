#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/util.h"

struct source {
	char *name;
	int remote;
	/* a file */
	void *map;
	/* a URL */
	char *url;   /* as written: the origin the token belongs to */
	char *where; /* where the last redirect chain ended */
	struct remote_opts opts;
	uint8_t *buf;
	uint64_t have;
	uint64_t size; /* 0 until known */
	struct remote_stats st;
	double t0; /* mono_ms at the first request: the read's deadline runs from it */
};

struct source *source_open(const char *where, const struct remote_opts *o, char **err)
{
	struct source *s = xcalloc(1, sizeof(*s));
	s->name = xstrdup(where);
	if (remote_is_url(where)) {
		s->remote = 1;
		s->url = xstrdup(where);
		s->where = xstrdup(where);
		s->opts = remote_opts_defaults(o);
		return s;
	}
	int fd = open_regular(where, err);
	if (fd < 0)
		goto fail;
	struct stat st;
	if (fstat(fd, &st) < 0) {
		errorf(err, "cannot stat '%s': %s", where, strerror(errno));
		close(fd);
		goto fail;
	}
	if (st.st_size == 0) {
		errorf(err, "'%s': empty file (not a GGUF payload)", where);
		close(fd);
		goto fail;
	}
	/* Mapping the whole file costs nothing until pages are touched, and
	 * the parser touches only the header. */
	s->map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (s->map == MAP_FAILED) {
		s->map = NULL;
		errorf(err, "cannot map '%s': %s", where, strerror(errno));
		goto fail;
	}
	s->size = (uint64_t)st.st_size;
	s->have = s->size;
	return s;
fail:
	source_free(s);
	return NULL;
}

void source_free(struct source *s)
{
	if (!s)
		return;
	if (s->map)
		munmap(s->map, (size_t)s->size);
	free(s->buf);
	free(s->name);
	free(s->url);
	free(s->where);
	free(s);
}

uint64_t source_size(const struct source *s)
{
	return s->size;
}

const char *source_name(const struct source *s)
{
	return s->name;
}

int source_is_remote(const struct source *s)
{
	return s->remote;
}

struct remote_stats source_stats(const struct source *s)
{
	return s->st;
}

/* One range request's state. */
struct xfer {
	struct source *s;
	CURL *h;
	struct remote_sink sink;
	int started;   /* the first body bytes came: the status is known */
	int keep;      /* a 200 or 206 body: stored; anything else is discarded */
	uint64_t from; /* first byte asked for */
	uint64_t cap;  /* stop after the buffer reaches this many bytes */
	long status;
	int range_ok;	/* a 206 whose Content-Range starts at `from` */
	uint64_t total; /* from Content-Range or Content-Length; 0 unknown */
	char *location;
	int html;
	int stopped; /* we ended the body ourselves at cap */
	char why[160];
};

static void on_header(void *arg, const struct remote_header *h)
{
	struct xfer *x = arg;
	switch (h->field) {
	case REMOTE_STATUS: /* a new response (after a 100 Continue, say): forget the old one */
		x->range_ok = 0;
		x->total = 0;
		x->html = 0;
		free(x->location);
		x->location = NULL;
		break;
	case REMOTE_CONTENT_RANGE:
		if (h->start == x->from) {
			x->range_ok = 1;
			x->total = h->total;
		}
		break;
	case REMOTE_CONTENT_LENGTH:
		if (!x->range_ok)
			x->total = h->total;
		break;
	case REMOTE_LOCATION:
		free(x->location);
		x->location = xstrdup(h->value);
		break;
	case REMOTE_CONTENT_TYPE: x->html = h->flag; break;
	default: break;
	}
}

static size_t on_body(void *arg, const char *p, size_t len)
{
	struct xfer *x = arg;
	struct source *s = x->s;
	if (!x->started) {
		x->started = 1;
		curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &x->status);
		x->keep = x->status == 200 || (x->status == 206 && x->range_ok);
		if (x->status == 200)
			s->have = 0; /* ranges ignored: the body starts at byte 0 */
	}
	if (!x->keep)
		return len;
	if (s->have >= x->cap) {
		x->stopped = 1;
		return 0;
	}
	uint64_t room = x->cap - s->have;
	size_t take = len < room ? len : (size_t)room;
	memcpy(s->buf + s->have, p, take);
	s->have += take;
	s->st.bytes += take;
	if (take < len) {
		x->stopped = 1;
		return 0; /* ends the transfer: the window is full */
	}
	return len;
}

/* A header read past its time (remote.h: deadline_s, grace_s + the bytes
 * at min_rate): what came of [from, to), and the rule. */
static int too_slow(struct source *s, uint64_t from, uint64_t to, char **err)
{
	return errorf(err,
		      "%s: the header read is too slow: %" PRIu64 " of %" PRIu64 " bytes asked came in %.1f s (a "
		      "header read must average %ld KiB/s after %ld s, and end within %ld s)",
		      s->name, s->have >= from ? s->have - from : s->have, to - from, (mono_ms() - s->t0) / 1000.0,
		      s->opts.min_rate >> 10, s->opts.grace_s, s->opts.deadline_s);
}

/* GET [from, to) of the current URL, following redirects by hand. The
 * body lands at s->buf + from (the buffer already holds to bytes). */
static int fetch_range(struct source *s, uint64_t from, uint64_t to, char **err)
{
	if (s->t0 == 0)
		s->t0 = mono_ms();
	for (unsigned hop = 0;; hop++) {
		long budget = remote_header_budget_ms(&s->opts, to - from, mono_ms() - s->t0);
		if (budget == 0)
			return too_slow(s, from, to, err);
		struct xfer x = {.s = s, .from = from, .cap = to};
		x.h = curl_easy_init();
		CURL *h = x.h;
		char range[64];
		snprintf(range, sizeof(range), "Range: bytes=%" PRIu64 "-%" PRIu64, from, to - 1);
		const char *extra[] = {range, NULL};
		struct curl_slist *hdrs = NULL;
		remote_setup(h, s->where, s->url, &s->opts, extra, &hdrs);
		x.sink = (struct remote_sink){on_header, on_body, &x};
		remote_sink_set(h, &x.sink);
		curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, budget);
		uint64_t before = s->have;
		double t_req = mono_ms();
		CURLcode rc = curl_easy_perform(h);
		s->st.requests++;
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &x.status);
		curl_easy_cleanup(h);
		curl_slist_free_all(hdrs);
		int ret = 0;
		if (x.status >= 300 && x.status < 400 && x.location) {
			char *next = remote_resolve(s->where, x.location);
			free(x.location);
			if (!next)
				return errorf(err, "%s: a redirect to an unusable Location", s->name);
			if (hop + 1 >= s->opts.max_redirects) {
				free(next);
				return errorf(err, "%s: more than %u redirects", s->name, s->opts.max_redirects);
			}
			free(s->where);
			s->where = next;
			s->have = before;
			continue;
		}
		free(x.location);
		if (rc == CURLE_OPERATION_TIMEDOUT && mono_ms() - t_req >= (double)budget - 50.0) {
			ret = too_slow(s, before, to, err);
		} else if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && x.stopped)) {
			/* a body that ended early still leaves what came */
			if (x.status == 206 || x.status == 200)
				ret = errorf(err, "%s: transfer failed after %" PRIu64 " bytes: %s", s->name,
					     s->have - before, curl_easy_strerror(rc));
			else
				ret = errorf(err, "%s: %s", s->name, curl_easy_strerror(rc));
		} else if (x.status == 206 && x.range_ok) {
			s->size = x.total;
			if (s->have < to && s->have < s->size)
				ret = errorf(err, "%s: short body (%" PRIu64 " of %" PRIu64 " bytes asked)", s->name,
					     s->have - before, to - before);
		} else if (x.status == 200) {
			/* ranges ignored: the body was the file from byte 0 */
			s->size = x.total ? x.total : s->have;
			if (s->have < to && s->have < s->size)
				ret = errorf(err, "%s: short body (%" PRIu64 " of %" PRIu64 " bytes)", s->name, s->have,
					     s->size);
		} else if (x.status == 206) {
			ret = errorf(err, "%s: a 206 whose Content-Range is not the range asked for", s->name);
		} else if (x.status == 416 && from > 0) {
			ret = errorf(err, "%s: range %" PRIu64 "- not satisfiable: the file is shorter than its header",
				     s->name, from);
		} else {
			ret = errorf(err, "%s: HTTP %ld: %s", s->name, x.status, remote_status_why(x.status));
		}
		if (ret == 0 && x.html && from == 0 && s->have >= 4 && memcmp(s->buf, "GGUF", 4) != 0)
			ret = errorf(err, "%s: the server answered an HTML page, not a GGUF payload", s->name);
		if (ret == 0 && s->size && s->have > s->size)
			s->have = s->size;
		return ret;
	}
}

const uint8_t *source_prefix(struct source *s, uint64_t want, uint64_t *have, char **err)
{
	if (!s->remote) {
		*have = s->have;
		return s->map;
	}
	if (want > SOURCE_MAX_WINDOW)
		want = SOURCE_MAX_WINDOW;
	if (s->size && want > s->size)
		want = s->size;
	if (s->have < want) {
		s->buf = xreallocarray(s->buf, (size_t)want, 1);
		uint64_t from = s->have;
		if (fetch_range(s, from, want, err))
			return NULL;
		if (s->have == 0) {
			errorf(err, "%s: empty body (not a GGUF payload)", s->name);
			return NULL;
		}
	}
	*have = s->have;
	return s->buf;
}
