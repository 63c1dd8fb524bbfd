/* fetch_one: verify a payload file, or download it into FILE.part and
 * move it into place once it verifies. See fetch.h for the contract. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../base/crypto_lazy.h"
#include "../base/fault.h"
#include "../base/file.h"
#include "../base/util.h"
#include "../payload/pin.h"
#include "fetch_int.h"

#define STATE_EVERY (4u << 20)	/* the state is saved every this many bytes a connection writes */
#define KICK_EVERY  (32u << 20) /* the writeback of the dirty pages starts every this many bytes */
#ifndef DURABLE_EVERY
#define DURABLE_EVERY (64u << 20) /* the .part is made durable every this many bytes (0: never) */
#endif

/* --- one download ------------------------------------------------------ */

enum verdict {
	GO_ON,
	SEG_FULL,  /* the segment has all its bytes: this connection stops */
	RESTART,   /* the file changed or ranges are ignored: from byte 0 */
	FATAL,	   /* nothing a retry would change (d->why) */
	MISMATCH,  /* the server's size is not the pinned size */
	REDIRECT,  /* follow Location */
	TRANSIENT, /* a 5xx, 408 or 429: the attempt ends, progress kept */
};

struct conn {
	struct dl *d;
	CURL *h;
	struct remote_sink sink;
	struct curl_slist *hdrs;
	unsigned seg;
	char *url;
	unsigned hops;
	uint64_t from; /* the first byte asked for */
	int ranged;
	/* the response */
	long status;
	int decided;
	enum verdict v;
	uint64_t cr_start, cr_end, cr_total, clen;
	int has_cr, has_clen, html, ranges;
	char etag[256], lastmod[128];
	char linked[65]; /* X-Linked-Etag as a sha256, or "" */
	char *location;
	/* the body */
	uint8_t *buf; /* the slot being filled */
	size_t blen;  /* its bytes */
	/* its writes in flight, in file order from jhead: a ring, so the
	 * connection receives on while the disk takes the slots before */
	struct wjob job[INFLIGHT];
	uint8_t *ibuf[INFLIGHT]; /* their slots */
	uint64_t jseq[INFLIGHT]; /* their places in the download's order of posting */
	unsigned jhead, jn;
	size_t inflight;  /* their bytes: not on disk until each write has landed */
	uint64_t unsaved; /* bytes written since the state was last saved */
	int io_errno;
};

struct dl {
	const struct fetch_file *f;
	const struct fetch_opts *o;
	char *part, *statef;
	int fd, sfd; /* the .part, its state */
	struct state st;
	struct hasher hs;
	struct syncer sy;
	struct writer wr;
	unsigned writes;		    /* writes in flight, every connection's (INFLIGHT at most) */
	uint64_t posted;		    /* writes posted so far */
	uint64_t since_kick, since_durable; /* bytes written since the last kick, checkpoint */
	CURLM *multi;
	struct conn *conns[MAX_SEGS];
	unsigned nconn;
	int want_split;
	int no_split; /* ranges failed once this run: one connection from now on */
	unsigned connections;
	uint64_t parallel_min;
	int restart;
	int fatal;
	int mismatch;
	char why[512];
	/* the SHA-256 the server states for the file (X-Linked-Etag, else a
	 * strong ETag of 64 hex digits), and which header said it */
	char pub[65];
	const char *pub_from;
	uint64_t received; /* body bytes this run */
	uint64_t requests;
	double t0;
};

static uint64_t seg_end(const struct dl *d, const struct seg *s)
{
	return s->end ? s->end : d->st.size;
}

static uint64_t on_disk(const struct dl *d)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < d->st.n; i++)
		n += d->st.s[i].done;
	return n;
}

/* Bytes [0, n) are all on disk: every segment before the first gap. */
static uint64_t contiguous(const struct dl *d)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < d->st.n; i++) {
		const struct seg *s = &d->st.s[i];
		n = s->start + s->done;
		if (!s->end || s->start + s->done < s->end)
			break;
	}
	return n;
}

static int complete(const struct dl *d)
{
	if (!d->st.size)
		return 0;
	for (unsigned i = 0; i < d->st.n; i++)
		if (d->st.s[i].start + d->st.s[i].done < seg_end(d, &d->st.s[i]))
			return 0;
	return 1;
}

static void emit(struct dl *d, enum fetch_event_kind k, const char *why)
{
	if (!d->o->event)
		return;
	double dt = mono_s() - d->t0;
	struct fetch_event e = {k,
				d->f,
				on_disk(d),
				d->st.size,
				d->hs.ctx ? fetch_hasher_hashed(&d->hs) : 0,
				dt > 0 ? (double)d->received / dt : 0,
				why};
	d->o->event(&e, d->o->arg);
}

static void why(struct dl *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void why(struct dl *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->why, sizeof(d->why), fmt, ap);
	va_end(ap);
}

/* Save the state, claiming as durable what the last checkpoint made so. */
static void save(struct dl *d)
{
	if (d->sy.running)
		fetch_syncer_apply(&d->sy, &d->st);
	fetch_state_save(d->sfd, &d->st);
}

/* n more bytes are written: start their writeback every KICK_EVERY, and
 * make them durable every DURABLE_EVERY (both by the syncer's thread). */
static void written(struct dl *d, size_t n)
{
	d->since_kick += n;
	d->since_durable += n;
	if (DURABLE_EVERY && d->since_durable >= DURABLE_EVERY) {
		fetch_syncer_want(&d->sy, &d->st);
		d->since_durable = d->since_kick = 0;
	} else if (d->since_kick >= KICK_EVERY) {
		fetch_syncer_kick(&d->sy);
		d->since_kick = 0;
	}
}

/* c's oldest write in flight has landed (waiting for it if need be):
 * its bytes are counted as on disk, its slot goes to the hash (which
 * keeps it when it needs those bytes next). 0, or -1 with c->io_errno:
 * after a write that failed, none behind it is counted (the segment's
 * bytes on disk stay one run from its start). The state is saved every
 * STATE_EVERY bytes (a kill loses at most that much progress per
 * connection, never a byte's identity: what is on disk past the state is
 * fetched again). */
static int land_one(struct conn *c)
{
	struct dl *d = c->d;
	struct seg *s = &d->st.s[c->seg];
	struct wjob *j = &c->job[c->jhead];
	uint8_t *buf = c->ibuf[c->jhead];
	fetch_writer_wait(&d->wr, j);
	c->jhead = (c->jhead + 1) % INFLIGHT;
	c->jn--;
	d->writes--;
	c->inflight -= j->len;
	if (!c->io_errno)
		s->done += j->wrote; /* what was written stays counted */
	if (!c->io_errno && j->err)
		c->io_errno = j->err;
	if (c->io_errno) {
		fetch_hasher_unslot(&d->hs, buf);
		return -1;
	}
	c->unsaved += j->wrote;
	written(d, j->wrote);
	if (!fetch_hasher_give(&d->hs, buf, j->off, j->len, contiguous(d)))
		fetch_hasher_unslot(&d->hs, buf);
	if (c->unsaved >= STATE_EVERY) {
		save(d);
		c->unsaved = 0;
		fault_point("fetch", "chunk"); /* a chunk is on disk and in the state */
	}
	return 0;
}

/* Every write of c in flight has landed: 0, or -1 with c->io_errno. */
static int landed(struct conn *c)
{
	while (c->jn)
		land_one(c);
	return c->io_errno ? -1 : 0;
}

/* The connection whose write in flight was posted first: the writer's
 * next to land (it writes in the order posted), or NULL. */
static struct conn *oldest(struct dl *d)
{
	struct conn *o = NULL;
	for (unsigned i = 0; i < MAX_SEGS; i++) {
		struct conn *c = d->conns[i];
		if (c && c->jn && (!o || c->jseq[c->jhead] < o->jseq[o->jhead]))
			o = c;
	}
	return o;
}

/* Hand what c gathered in its slot to the writer (c goes on with another
 * slot), once a place among the download's INFLIGHT writes in flight is
 * free (the oldest, whoever's, lands first): 0, or -1 with c->io_errno. */
static int flush(struct conn *c)
{
	struct dl *d = c->d;
	if (d->writes >= INFLIGHT) {
		struct conn *o = oldest(d);
		if (o)
			land_one(o);
	}
	if (c->io_errno)
		return -1;
	struct seg *s = &d->st.s[c->seg];
	size_t n = c->blen;
	uint64_t at = s->start + s->done + c->inflight;
	c->blen = 0;
	if (!n)
		return 0;
	/* every slot skips the page cache: the hash hashed its bytes as they
	 * came, takes them from the slot, or reads them back from the disk
	 * with O_DIRECT (a later range of a split download) */
	unsigned k = (c->jhead + c->jn) % INFLIGHT;
	c->job[k] = (struct wjob){.buf = c->buf, .off = at, .len = n, .direct = 1};
	c->ibuf[k] = c->buf;
	c->jseq[k] = d->posted++;
	c->jn++;
	d->writes++;
	c->inflight += n;
	c->buf = NULL;
	fetch_writer_post(&d->wr, &c->job[k]);
	return 0;
}

/* c's write failed (c->io_errno): say so, and the attempt is over. */
static void write_failed(struct dl *d, const struct conn *c)
{
	if (c->io_errno == ENOSPC || c->io_errno == EDQUOT)
		why(d,
		    "the disk is full writing '%s': it is kept (%" PRIu64
		    " bytes); free space and run fetch again to resume",
		    d->part, on_disk(d));
	else
		why(d, "cannot write '%s': %s", d->part, strerror(c->io_errno));
	d->fatal = 1;
}

/* Count the writes that have landed meanwhile (a stalled connection
 * fills no next slot to count them). One that failed ends the attempt
 * at once (fatal): waiting for the connection's next body callback would
 * wait out a stalled server's --stall-timeout first. */
static void collect(struct dl *d)
{
	for (unsigned i = 0; i < MAX_SEGS; i++) {
		struct conn *c = d->conns[i];
		while (c && c->jn && !c->io_errno && fetch_writer_done(&d->wr, &c->job[c->jhead]))
			land_one(c);
		if (c && c->io_errno && !d->fatal)
			write_failed(d, c);
	}
}

/* c's transfer ends: what it gathered is written when it is the
 * payload's, and every write of it has landed. */
static void drain(struct conn *c)
{
	if (c->blen && c->v == GO_ON && !c->io_errno)
		flush(c);
	landed(c);
}

static void copy_value(char *dst, size_t n, const char *v)
{
	while (*v == ' ' || *v == '\t')
		v++;
	size_t len = strlen(v);
	if (len >= n)
		len = 0; /* a validator this long is not one we can send back */
	memcpy(dst, v, len);
	dst[len] = '\0';
}

/* A header value that is a SHA-256: 64 hex digits, quoted or not, never
 * a weak validator. Lowercase into out; 0, or -1 when it is not one. */
static int sha256_value(const char *v, char out[65])
{
	while (*v == ' ' || *v == '\t')
		v++;
	if (strncmp(v, "W/", 2) == 0)
		return -1;
	int quoted = *v == '"';
	v += quoted;
	for (unsigned i = 0; i < 64; i++) {
		char ch = v[i];
		if (ch >= 'A' && ch <= 'F')
			ch = (char)(ch - 'A' + 'a');
		if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f')))
			return -1;
		out[i] = ch;
	}
	const char *rest = v + 64 + (quoted && v[64] == '"');
	if (quoted != (v[64] == '"'))
		return -1;
	while (*rest == ' ' || *rest == '\t')
		rest++;
	if (*rest)
		return -1;
	out[64] = '\0';
	return 0;
}

/* The publisher's checksum, as this response states it: X-Linked-Etag
 * (a Hugging Face resolve's redirect names the LFS object's SHA-256) on
 * any response, else a strong ETag of 64 hex digits on the payload's own
 * answer. X-Linked-Etag, once seen, is not overridden by an ETag. */
static void note_publisher(struct conn *c)
{
	struct dl *d = c->d;
	char v[65];
	if (c->linked[0]) {
		memcpy(d->pub, c->linked, sizeof(d->pub));
		d->pub_from = "X-Linked-Etag";
	} else if ((c->status == 200 || c->status == 206) && c->etag[0] && sha256_value(c->etag, v) == 0 &&
		   !(d->pub_from && strcmp(d->pub_from, "X-Linked-Etag") == 0)) {
		memcpy(d->pub, v, sizeof(d->pub));
		d->pub_from = "ETag";
	}
}

/* The response is all there: judge it before its body. */
static enum verdict decide(struct conn *c)
{
	struct dl *d = c->d;
	struct state *st = &d->st;
	struct seg *s = &st->s[c->seg];
	if (c->status >= 300 && c->status < 400 && c->location)
		return REDIRECT;
	if (c->status == 416) {
		why(d, "the server cannot serve bytes %" PRIu64 "- (416): the file changed", c->from);
		return RESTART;
	}
	if (c->status != 200 && c->status != 206) {
		why(d, "HTTP %ld from %s: %s", c->status, c->url, remote_status_why(c->status));
		if (c->status >= 500 || c->status == 429 || c->status == 408)
			return TRANSIENT;
		return FATAL;
	}
	if (c->html) {
		why(d,
		    "%s answered an HTML page (HTTP %ld, text/html), not a GGUF payload: a login, error or "
		    "gate page?",
		    c->url, c->status);
		return FATAL;
	}
	uint64_t total = c->status == 206 ? c->cr_total : c->has_clen ? c->clen : 0;
	if (d->f->has_sha && d->pub[0] && strcmp(d->pub, d->f->sha) != 0) {
		why(d, "the server states SHA-256 %s (%s), %s_SHA256 pins %s: it serves another file", d->pub,
		    d->pub_from, d->f->kind, d->f->sha);
		return MISMATCH;
	}
	if (c->status == 200 && c->ranged) {
		why(d, "the server answered 200 to a range request (it ignores ranges, or the file changed)");
		return RESTART;
	}
	if (c->status == 206) {
		if (!c->ranged || !c->has_cr || c->cr_start != c->from) {
			why(d, "a 206 whose Content-Range is not the range asked for");
			return RESTART;
		}
		if ((st->etag[0] && c->etag[0] && strcmp(st->etag, c->etag) != 0) ||
		    (!st->etag[0] && st->lastmod[0] && c->lastmod[0] && strcmp(st->lastmod, c->lastmod) != 0)) {
			why(d, "the server's validator changed (%s -> %s): the file changed upstream",
			    st->etag[0] ? st->etag : st->lastmod, st->etag[0] ? c->etag : c->lastmod);
			return RESTART;
		}
		if (st->size && total != st->size) {
			why(d, "the file's size changed upstream (%" PRIu64 " -> %" PRIu64 ")", st->size, total);
			return RESTART;
		}
		if (!st->size)
			st->size = total; /* the first answer had no length; this one says it */
	}
	if (c->status == 200) {
		/* a fresh start: learn the file */
		st->size = total;
		snprintf(st->etag, sizeof(st->etag), "%s", strncmp(c->etag, "W/", 2) == 0 ? "" : c->etag);
		snprintf(st->lastmod, sizeof(st->lastmod), "%s", c->lastmod);
		s->end = 0;
		if (total && !d->no_split && d->connections > 1 && total >= d->parallel_min && c->ranges &&
		    (st->etag[0] || st->lastmod[0]))
			d->want_split = 1;
	}
	if (d->f->has_bytes && st->size && st->size != d->f->bytes) {
		why(d, "the server offers %" PRIu64 " bytes, %s_BYTES pins %" PRIu64, st->size, d->f->kind,
		    d->f->bytes);
		return MISMATCH;
	}
	save(d);
	return GO_ON;
}

static void on_header(void *arg, const struct remote_header *h)
{
	struct conn *c = arg;
	switch (h->field) {
	case REMOTE_STATUS:
		c->has_cr = c->has_clen = c->html = c->ranges = 0;
		c->etag[0] = c->lastmod[0] = c->linked[0] = '\0';
		free(c->location);
		c->location = NULL;
		c->status = h->status;
		break;
	case REMOTE_END: /* this response's headers are all there (an interim 1xx goes on) */
		if (c->status >= 200 && !c->decided) {
			c->decided = 1;
			note_publisher(c);
			c->v = decide(c);
		}
		break;
	case REMOTE_CONTENT_RANGE:
		c->has_cr = 1;
		c->cr_start = h->start;
		c->cr_end = h->end;
		c->cr_total = h->total;
		break;
	case REMOTE_CONTENT_LENGTH:
		c->has_clen = 1;
		c->clen = h->total;
		break;
	case REMOTE_ETAG: copy_value(c->etag, sizeof(c->etag), h->value); break;
	case REMOTE_LAST_MODIFIED: copy_value(c->lastmod, sizeof(c->lastmod), h->value); break;
	case REMOTE_ACCEPT_RANGES: c->ranges = h->flag; break;
	case REMOTE_CONTENT_TYPE: c->html = h->flag; break;
	case REMOTE_LOCATION:
		free(c->location);
		c->location = xstrdup(h->value);
		break;
	case REMOTE_OTHER:
		if (strncasecmp(h->line, "x-linked-etag:", 14) == 0 && sha256_value(h->line + 14, c->linked) != 0)
			c->linked[0] = '\0';
		break;
	default: break;
	}
}

/* The bytes of a slot that begins at off: it ends on a DIO_ALIGN
 * boundary, so the next begins on one and is written with O_DIRECT. One
 * that begins off a boundary (a resume at such a byte) ends at the next,
 * so only those bytes go through the page cache (write_job), not a
 * whole slot. */
static size_t slot_cap(uint64_t off)
{
	size_t head = (size_t)(off % DIO_ALIGN);
	return head ? DIO_ALIGN - head : SLOT;
}

static size_t on_body(void *arg, const char *p, size_t len)
{
	struct conn *c = arg;
	struct dl *d = c->d;
	if (c->v == REDIRECT || (c->status != 200 && c->status != 206))
		return len; /* a redirect's or an error's body: not the payload */
	if (c->v != GO_ON || c->io_errno)
		return 0; /* a write that failed (seen by collect) ends the transfer */
	struct seg *s = &d->st.s[c->seg];
	/* the payload starts with the GGUF magic; an error page does not */
	if (s->start + s->done + c->inflight + c->blen == 0 && len >= 1) {
		size_t k = len < 4 ? len : 4;
		if (memcmp(p, "GGUF", k) != 0) {
			why(d, "%s answered bytes that are not a GGUF payload (they begin '%.*s')", c->url, (int)k, p);
			c->v = FATAL;
			return 0;
		}
	}
	size_t took = 0;
	while (took < len) {
		uint64_t end = seg_end(d, s);
		uint64_t pos = s->start + s->done + c->inflight + c->blen;
		if (end && pos >= end) {
			c->v = SEG_FULL; /* this connection ran into the next segment */
			break;
		}
		size_t cap = slot_cap(pos - c->blen);
		size_t room = cap - c->blen;
		size_t take = len - took < room ? len - took : room;
		if (end && take > end - pos)
			take = (size_t)(end - pos);
		fetch_hasher_feed(&d->hs, (const uint8_t *)p + took, pos, take);
		if (!c->buf)
			c->buf = fetch_hasher_slot(&d->hs);
		memcpy(c->buf + c->blen, p + took, take);
		c->blen += take;
		took += take;
		d->received += take;
		if (c->blen == cap && flush(c))
			return 0;
	}
	if (c->v == SEG_FULL) {
		if (flush(c))
			return 0;
		return 0;
	}
	return len;
}

static void conn_free(struct conn *c)
{
	if (!c)
		return;
	if (c->h) {
		curl_multi_remove_handle(c->d->multi, c->h);
		curl_easy_cleanup(c->h);
	}
	landed(c); /* its slot is the writer's until then */
	curl_slist_free_all(c->hdrs);
	free(c->url);
	free(c->location);
	fetch_hasher_unslot(&c->d->hs, c->buf);
	free(c);
}

/* Start a request for what segment i still needs, at url. */
static void conn_start(struct dl *d, unsigned i, const char *url, unsigned hops)
{
	struct seg *s = &d->st.s[i];
	struct conn *c = xcalloc(1, sizeof(*c));
	c->d = d;
	c->seg = i;
	c->url = xstrdup(url);
	c->hops = hops;
	c->from = s->start + s->done;
	c->ranged = c->from > 0 || s->end != 0;
	char range[96], ifr[300];
	const char *extra[3] = {NULL, NULL, NULL};
	if (c->ranged) {
		if (s->end)
			snprintf(range, sizeof(range), "Range: bytes=%" PRIu64 "-%" PRIu64, c->from, s->end - 1);
		else
			snprintf(range, sizeof(range), "Range: bytes=%" PRIu64 "-", c->from);
		snprintf(ifr, sizeof(ifr), "If-Range: %s", d->st.etag[0] ? d->st.etag : d->st.lastmod);
		extra[0] = range;
		extra[1] = ifr;
	}
	c->h = curl_easy_init();
	remote_setup(c->h, url, d->f->url, &d->o->net, extra, &c->hdrs);
	c->sink = (struct remote_sink){on_header, on_body, c};
	remote_sink_set(c->h, &c->sink);
	curl_easy_setopt(c->h, CURLOPT_PRIVATE, c);
	/* a large receive buffer: fewer callbacks and recv calls than with
	 * curl's 16 KiB; 512 KiB took less CPU per GiB than 64 or 128 KiB
	 * (docs/running.md, "Measured"; larger ones, up to curl's 10 MB,
	 * were not tried) */
	curl_easy_setopt(c->h, CURLOPT_BUFFERSIZE, 512L * 1024);
	curl_multi_add_handle(d->multi, c->h);
	d->conns[i] = c;
	d->nconn++;
	d->requests++;
}

/* The first response says the file is large and ranges work: cut the
 * rest into segments and fetch them side by side. */
static void split(struct dl *d, const char *url)
{
	struct state *st = &d->st;
	uint64_t size = st->size;
	unsigned n = d->connections;
	if (n > MAX_SEGS)
		n = MAX_SEGS;
	/* cut on SLOT boundaries: every segment's slots are DIO_ALIGN-aligned */
	uint64_t per = ((size + n - 1) / n + SLOT - 1) / SLOT * SLOT;
	/* segment 0 keeps its connection and ends at the first cut */
	if (st->s[0].done + (d->conns[0] ? d->conns[0]->inflight + d->conns[0]->blen : 0) >= per)
		return;
	st->s[0].end = per;
	st->n = 1;
	for (unsigned i = 1; i < n && i * per < size; i++) {
		st->s[i] = (struct seg){i * per, (i + 1) * per < size ? (i + 1) * per : size, 0, 0};
		st->n = i + 1;
	}
	save(d);
	for (unsigned i = 1; i < st->n; i++)
		conn_start(d, i, url, 0);
	char msg[64];
	snprintf(msg, sizeof(msg), "%u connections", st->n);
	emit(d, FETCH_EV_CONNECTIONS, msg);
}

/* One attempt: a connection per unfinished segment until each ends.
 * Returns 0 when the attempt ended (complete or not), -1 for fatal. */
static int attempt(struct dl *d)
{
	d->multi = curl_multi_init();
	d->want_split = 0;
	d->restart = 0;
	d->nconn = 0;
	memset(d->conns, 0, sizeof(d->conns));
	for (unsigned i = 0; i < d->st.n; i++)
		if (!d->st.size || d->st.s[i].start + d->st.s[i].done < seg_end(d, &d->st.s[i]))
			conn_start(d, i, d->f->url, 0);
	double last = 0;
	int running = 1;
	while (running) {
		curl_multi_perform(d->multi, &running);
		CURLMsg *m;
		int left;
		while ((m = curl_multi_info_read(d->multi, &left))) {
			if (m->msg != CURLMSG_DONE)
				continue;
			char *pv = NULL;
			curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, &pv);
			struct conn *c = (struct conn *)(void *)pv;
			CURLcode rc = m->data.result;
			drain(c);
			unsigned i = c->seg;
			struct seg *s = &d->st.s[i];
			d->conns[i] = NULL;
			if (c->v == REDIRECT) {
				char *next = remote_resolve(c->url, c->location);
				unsigned hops = c->hops + 1;
				if (!next) {
					why(d, "%s redirected to an unusable Location", c->url);
					d->fatal = 1;
				} else if (hops > remote_opts_defaults(&d->o->net).max_redirects) {
					why(d, "%s: more than %u redirects", d->f->url,
					    remote_opts_defaults(&d->o->net).max_redirects);
					d->fatal = 1;
				} else {
					conn_free(c);
					c = NULL;
					conn_start(d, i, next, hops);
					running = 1;
				}
				free(next);
				if (c)
					conn_free(c);
				continue;
			}
			if (c->io_errno) {
				write_failed(d, c);
			} else if (c->v == FATAL) {
				d->fatal = 1;
			} else if (c->v == MISMATCH) {
				d->mismatch = 1;
			} else if (c->v == RESTART) {
				d->restart = 1;
			} else if (c->v == TRANSIENT) {
				/* transient server status: the attempt ends, progress kept */
			} else if (rc != CURLE_OK && c->v != SEG_FULL) {
				why(d, "%s", curl_easy_strerror(rc));
			} else if (c->v == GO_ON && rc == CURLE_OK && !s->end && d->st.size == 0) {
				/* no length was given: the body's end is the file's end */
				d->st.size = s->start + s->done;
			} else if (c->v == GO_ON && rc == CURLE_OK && s->start + s->done < seg_end(d, s)) {
				why(d, "short body: the connection closed at byte %" PRIu64 " of %" PRIu64,
				    s->start + s->done, seg_end(d, s));
			}
			conn_free(c);
			if (d->fatal || d->restart || d->mismatch) {
				for (unsigned j = 0; j < MAX_SEGS; j++) {
					conn_free(d->conns[j]);
					d->conns[j] = NULL;
				}
				running = 0;
				break;
			}
		}
		if (d->fatal || d->restart || d->mismatch)
			break;
		if (d->want_split) {
			d->want_split = 0;
			split(d, d->conns[0] ? d->conns[0]->url : d->f->url);
			running = 1;
		}
		collect(d);
		if (d->fatal)
			break;
		double t = mono_s();
		if (t - last >= 0.25) {
			emit(d, FETCH_EV_PROGRESS, NULL);
			last = t;
		}
		if (running)
			curl_multi_poll(d->multi, NULL, 0, 100, NULL);
	}
	for (unsigned j = 0; j < MAX_SEGS; j++) {
		if (d->conns[j])
			drain(d->conns[j]);
		conn_free(d->conns[j]);
		d->conns[j] = NULL;
	}
	curl_multi_cleanup(d->multi);
	d->multi = NULL;
	save(d);
	return d->fatal ? -1 : 0;
}

/* The .part open on fd again with flags | O_DIRECT (through
 * /proc/self/fd, so the very file open_own vetted, never a path that may
 * have changed), or -1 where the file system or /proc does not allow it:
 * those writes, or reads, then go through the page cache. */
static int fd_direct(int fd, int flags)
{
	char path[64];
	struct stat a, b;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	int dfd = open(path, flags | O_DIRECT | O_CLOEXEC | O_NOCTTY);
	if (dfd >= 0 && (fstat(fd, &a) != 0 || fstat(dfd, &b) != 0 || a.st_ino != b.st_ino || a.st_dev != b.st_dev)) {
		close(dfd);
		dfd = -1;
	}
	return dfd;
}

/* The hash, the syncer and the writer run while the .part is written. */
static void threads_start(struct dl *d)
{
	fetch_syncer_start(&d->sy, d->fd);
	fetch_hasher_start(&d->hs, d->fd, fd_direct(d->fd, O_RDONLY));
	fetch_writer_start(&d->wr, d->fd, fd_direct(d->fd, O_WRONLY));
	d->since_kick = d->since_durable = 0;
}

/* Stop both; with hex, finish the hash first: 0, or -1 as
 * fetch_hasher_end. */
static int threads_end(struct dl *d, char hex[65])
{
	fetch_writer_end(&d->wr);
	int rc = fetch_hasher_end(&d->hs, hex);
	fetch_syncer_end(&d->sy);
	return rc;
}

/* Truncate the .part to nothing and save a state that claims nothing,
 * made durable before any new byte is written: after a power cut, a
 * state of the bytes there before could otherwise claim new ones. 0, or
 * -1 with errno. */
static int truncated(struct dl *d)
{
	if (ftruncate(d->fd, 0) != 0)
		return -1;
	fetch_state_reset(&d->st);
	save(d);
	return fsync(d->sfd);
}

/* Truncate the .part and forget every byte (and the hash of them). */
static int discard(struct dl *d, const char *reason)
{
	threads_end(d, NULL);
	int rc = truncated(d);
	threads_start(d);
	if (rc == 0)
		emit(d, FETCH_EV_RESTART, reason);
	return rc;
}

/* Download f->url into f->path. */
/* The whole file is there and hashed: kept aside as .rejected when it
 * does not match its pins (1), else fsynced and renamed into place (0);
 * -1 with *err. */
static int settle(struct dl *d, struct fetch_result *r, char **err)
{
	if (d->pub[0]) {
		memcpy(r->publisher, d->pub, sizeof(r->publisher));
		r->publisher_from = d->pub_from;
	}
	if ((d->f->has_bytes && r->bytes != d->f->bytes) || (d->f->has_sha && strcmp(r->sha, d->f->sha) != 0) ||
	    (d->pub[0] && strcmp(r->sha, d->pub) != 0)) {
		struct sb rej = {0};
		sb_addf(&rej, "%s.rejected", d->f->path);
		r->rejected = sb_detach(&rej);
		close(d->fd);
		d->fd = -1;
		if (rename(d->part, r->rejected) != 0) {
			errorf(err, "cannot rename '%s' to '%s': %s", d->part, r->rejected, strerror(errno));
			return -1;
		}
		unlink(d->statef);
		r->status = FETCH_MISMATCH;
		return 1;
	}
	if (fsync(d->fd) != 0) {
		errorf(err, "cannot fsync '%s': %s", d->part, strerror(errno));
		return -1;
	}
	close(d->fd);
	d->fd = -1;
	fault_point("fetch", "before-rename");
	if (rename(d->part, d->f->path) != 0) {
		errorf(err, "cannot rename '%s' to '%s': %s", d->part, d->f->path, strerror(errno));
		return -1;
	}
	fsync_parent(d->f->path);
	fault_point("fetch", "after-rename");
	unlink(d->statef);
	pin_stamp_put(d->f->path, d->o->stamp_dir, r->sha);
	r->status = FETCH_DOWNLOADED;
	return 0;
}

static int download(const struct fetch_file *f, const struct fetch_opts *o, struct fetch_result *r, char **err)
{
	struct dl d = {0};
	d.f = f;
	d.o = o;
	d.t0 = mono_s();
	d.connections = o->connections ? o->connections : 4;
	d.parallel_min = o->parallel_min ? o->parallel_min : 64u << 20;
	struct sb b = {0};
	sb_addf(&b, "%s.part", f->path);
	d.part = sb_detach(&b);
	sb_addf(&b, "%s.part.state", f->path);
	d.statef = sb_detach(&b);
	d.st.url = f->url;
	int rc = -1;
	/* the .part and its state: this user's own regular files or nothing
	 * (a symbolic link or another user's file planted there is refused,
	 * never written through) */
	d.fd = open_own(d.part, O_RDWR | O_CREAT, 0644, err);
	d.sfd = d.fd >= 0 ? open_own(d.statef, O_RDWR | O_CREAT, 0600, err) : -1;
	if (d.sfd < 0)
		goto out;
	struct stat st;
	fstat(d.fd, &st);
	int resumed = fetch_state_load(d.statef, &d.st) == 0;
	if (resumed && (uint64_t)st.st_size < contiguous(&d)) {
		resumed = 0; /* the .part is shorter than its state claims */
	}
	if (!resumed) {
		if (st.st_size > 0)
			emit(&d, FETCH_EV_RESTART, "the .part has no usable state: starting from byte 0");
		if (truncated(&d)) {
			errorf(err, "cannot truncate '%s': %s", d.part, strerror(errno));
			goto out;
		}
	}
	if (crypto_lazy_error()) {
		errorf(err, "cannot hash '%s': %s", d.part, crypto_lazy_error());
		goto out;
	}
	threads_start(&d);
	/* the bytes already there are hashed from disk while the rest comes */
	fetch_hasher_ready(&d.hs, contiguous(&d));
	emit(&d, FETCH_EV_START, resumed ? "resumed" : NULL);
	unsigned idle = 0, tries = 0;
	unsigned attempts = o->attempts ? o->attempts : 6;
	unsigned delay = o->retry_ms ? o->retry_ms : 250;
	while (!complete(&d)) {
		uint64_t before = on_disk(&d);
		d.why[0] = '\0';
		if (attempt(&d) < 0) {
			errorf(err, "%s", d.why);
			goto out_hash;
		}
		if (d.mismatch) {
			errorf(err, "%s", d.why);
			rc = 1;
			unlink(d.part);
			unlink(d.statef);
			r->status = FETCH_MISMATCH;
			goto out_hash;
		}
		if (d.restart) {
			if (++tries > 2 * attempts) {
				errorf(err, "%s: restarted %u times: %s", f->url, tries - 1, d.why);
				goto out_hash;
			}
			/* ranges failed: the rest of this run uses one plain
			 * connection, which needs no range to succeed */
			d.no_split = 1;
			if (discard(&d, d.why)) {
				errorf(err, "cannot truncate '%s': %s", d.part, strerror(errno));
				goto out_hash;
			}
			continue;
		}
		if (complete(&d))
			break;
		idle = on_disk(&d) > before ? 0 : idle + 1;
		if (idle >= attempts) {
			errorf(err, "%s: %s (%u attempts without progress; '%s' is kept: run fetch again to resume)",
			       f->url, d.why[0] ? d.why : "the transfer ended early", idle, d.part);
			goto out_hash;
		}
		emit(&d, FETCH_EV_RETRY, d.why[0] ? d.why : "the transfer ended early");
		unsigned ms = idle ? delay << (idle - 1) : delay / 4;
		if (ms > 5000)
			ms = 5000;
		usleep(ms * 1000u);
	}
	fetch_hasher_ready(&d.hs, d.st.size);
	emit(&d, FETCH_EV_PROGRESS, NULL);
	r->bytes = d.st.size;
	if (threads_end(&d, r->sha)) {
		errorf(err, "cannot read '%s' back to hash it", d.part);
		goto out;
	}
	r->transferred = d.received;
	r->requests = d.requests;
	rc = settle(&d, r, err);
	goto out;
out_hash:
	threads_end(&d, NULL);
	r->transferred = d.received;
	r->requests = d.requests;
	if (on_disk(&d) == 0 && r->status != FETCH_MISMATCH) {
		/* nothing worth resuming (an error page, a refusal) */
		unlink(d.part);
		unlink(d.statef);
	}
out:
	if (d.fd >= 0)
		close(d.fd);
	if (d.sfd >= 0)
		close(d.sfd);
	free(d.part);
	free(d.statef);
	return rc;
}

/* What is on disk decides: returns 0, 1 or -1 as fetch_one does, or 2
 * when f is to be downloaded. */
static int judge_disk(const struct fetch_file *f, int verify_only, int force, const struct fetch_opts *o,
		      struct fetch_result *r, char **err)
{
	memset(r, 0, sizeof(*r));
	struct stat st;
	int exists = stat(f->path, &st) == 0;
	if (exists && !S_ISREG(st.st_mode)) {
		r->status = FETCH_FAILED;
		return errorf(err, "'%s' is not a regular file", f->path);
	}
	if (exists) {
		r->bytes = (uint64_t)st.st_size;
		int bytes_ok = !f->has_bytes || r->bytes == f->bytes;
		/* a wrong size needs no hash to say so, unless asked for */
		if (bytes_ok || !force) {
			char *e = NULL;
			if (pin_sha256(f->path, o->stamp_dir, r->sha, &r->cached, NULL, NULL, &e)) {
				r->status = FETCH_FAILED;
				errorf(err, "%s", e);
				free(e);
				return -1;
			}
		}
		int sha_ok = !f->has_sha || strcmp(r->sha, f->sha) == 0;
		if (bytes_ok && sha_ok) {
			r->status = f->has_bytes || f->has_sha ? FETCH_VERIFIED : FETCH_UNPINNED;
			if (r->status == FETCH_VERIFIED || verify_only || !force)
				return 0;
		} else if (verify_only || !force) {
			r->status = FETCH_MISMATCH;
			return 1;
		}
	} else if (verify_only) {
		r->status = FETCH_MISSING;
		return 1;
	}
	if (!f->url) {
		r->status = FETCH_FAILED;
		return errorf(err, "'%s' is missing and %s_URL is not set: nothing to fetch it from", f->path, f->kind);
	}
	return 2;
}

/* As root, the directory a download writes into must be root's own and
 * writable by no one else (dir_trusted): whoever else can write there can
 * plant a symbolic link at FILE.part or FILE.part.state before the fetch
 * and have root write where it points, or swap a directory on the way. */
static int root_dir_refused(const struct fetch_file *f, char **err)
{
	if (geteuid() != 0)
		return 0;
	char *dir = path_dir(f->path), *why = NULL;
	int rc = 0;
	if (dir_trusted(dir, &why))
		rc = errorf(err,
			    "refusing to download '%s' as root into a directory others can change: %s (fetch as the "
			    "user who owns it, or make it root's own: chown root, chmod go-w)",
			    f->path, why);
	free(why);
	free(dir);
	return rc;
}

static int same_file(int had, const struct stat *a, const struct stat *b)
{
	return had ? a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size &&
			 a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec
		   : 0;
}

int fetch_one(const struct fetch_file *f, int verify_only, int force, const struct fetch_opts *o,
	      struct fetch_result *r, char **err)
{
	struct stat before, after;
	int had = stat(f->path, &before) == 0;
	int rc = judge_disk(f, verify_only, force, o, r, err);
	if (rc != 2)
		return rc;
	struct fetch_lock lk = {0};
	if (root_dir_refused(f, err) || fetch_lock_take(f, &lk, err)) {
		r->status = FETCH_FAILED;
		return -1;
	}
	/* another fetch may have moved the file into place between the look
	 * above and the lock: judge again what is there now */
	int has = stat(f->path, &after) == 0;
	if ((has || had) && !same_file(had && has, &before, &after)) {
		fetch_result_release(r);
		rc = judge_disk(f, verify_only, force, o, r, err);
		if (rc != 2) {
			fetch_lock_drop(&lk);
			return rc;
		}
	}
	struct fetch_result got = {0};
	rc = download(f, o, &got, err);
	fetch_lock_drop(&lk);
	if (rc < 0 && got.status != FETCH_MISMATCH)
		got.status = FETCH_FAILED;
	fetch_result_release(r);
	*r = got;
	return rc;
}

void fetch_result_release(struct fetch_result *r)
{
	free(r->rejected);
	r->rejected = NULL;
}
