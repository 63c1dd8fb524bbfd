/* remote: what every zealot request for a payload over HTTP obeys, so the
 * header reader (source) and the downloader (fetch) cannot drift apart.
 *
 * - A bearer token is sent only to the origin (scheme, host, port) of the
 *   URL the operator wrote. Redirects are followed by hand, at most
 *   max_redirects of them, and a hop to another origin goes without the
 *   token (Hugging Face sends downloads to a CDN that must never see it).
 * - Every transfer has a connect timeout and a stall timeout (no byte for
 *   stall_s seconds ends it). A download has no overall one: a 20 GB file
 *   takes as long as it takes. A header read (source.c) has two more, so a
 *   server that trickles bytes (2 a second never stalls) cannot hold
 *   inspect, check or plan: each request must end within grace_s plus
 *   what it asks for at min_rate bytes a second, and the whole read, every
 *   request and redirect of it, within deadline_s.
 * - The token never reaches argv, an error message or a log: it lives in
 *   one header of one request.
 */
#ifndef ZEALOT_REMOTE_H
#define ZEALOT_REMOTE_H

#include <curl/curl.h>
#include <stdint.h>

struct remote_opts {
	const char *token;	/* bearer token or NULL; borrowed */
	long connect_s;		/* connect timeout, seconds (0: 15) */
	long stall_s;		/* no byte for this long ends a transfer (0: 30) */
	unsigned max_redirects; /* 0: 10 */
	long deadline_s;	/* a header read's whole time (0: 120) */
	long grace_s;		/* a header read's request: its time before the rate counts (0: 10) */
	long min_rate;		/* a header read's request: bytes a second it must average (0: 128 KiB) */
};

/* A header read's request for `bytes`, begun elapsed_ms into the read:
 * the milliseconds it may take (grace_s + bytes / min_rate, and no more
 * than what is left of deadline_s), or 0 when the deadline has passed. */
long remote_header_budget_ms(const struct remote_opts *o, uint64_t bytes, double elapsed_ms);

/* What a remote read cost: requests made and body bytes received. */
struct remote_stats {
	uint64_t requests;
	uint64_t bytes;
};

/* True for an http:// or https:// URL. */
int remote_is_url(const char *s);

/* True when a and b have the same scheme, host and port. */
int remote_same_origin(const char *a, const char *b);

/* A Location header resolved against the URL that answered it. NULL when
 * it does not parse. Caller frees. */
char *remote_resolve(const char *base, const char *location);

/* Prepare h for a GET of url: timeouts, no automatic redirects, no
 * signals, and the token as `Authorization: Bearer` only when url has the
 * origin of origin_url. extra (may be NULL) are further header lines
 * (Range, If-Range); the list built is returned in *hdrs for the caller to
 * free after the transfer. */
void remote_setup(CURL *h, const char *url, const char *origin_url, const struct remote_opts *o,
		  const char *const *extra, struct curl_slist **hdrs);

/* The operator's reading of an HTTP failure status: 401/403 "gated or
 * needs a token", 404 "not found", 416, 5xx. */
const char *remote_status_why(long status);

/* The token from the environment: $HF_TOKEN_FILE (a file), else $HF_TOKEN.
 * Returns an allocated token or NULL; -1 with *err when HF_TOKEN_FILE names
 * an unreadable file. token_file, when not NULL, is read first (the
 * endpoint's TOKEN_FILE key). */
int remote_token(const char *token_file, char **token, char **err);

/* The defaults for anything left zero in o. */
struct remote_opts remote_opts_defaults(const struct remote_opts *o);

/* One line of a response's headers, as curl's header callback hands it
 * over (CRLF included), read the one way the header reader and the
 * downloader both need. */
enum remote_field {
	REMOTE_OTHER,	       /* a line zealot does not read (or one that does not parse) */
	REMOTE_STATUS,	       /* "HTTP/1.1 206 ...": a new response begins (after a 1xx, a redirect) */
	REMOTE_END,	       /* the blank line that ends a response's headers */
	REMOTE_CONTENT_RANGE,  /* "bytes A-B/T" with A <= B < T: start, end, total */
	REMOTE_CONTENT_LENGTH, /* total */
	REMOTE_ETAG,	       /* value */
	REMOTE_LAST_MODIFIED,  /* value */
	REMOTE_ACCEPT_RANGES,  /* flag: the server takes byte ranges */
	REMOTE_CONTENT_TYPE,   /* flag: text/html (a login page, not a payload) */
	REMOTE_LOCATION,       /* value */
};

struct remote_header {
	enum remote_field field;
	long status;		    /* REMOTE_STATUS: the code, 0 when unreadable */
	uint64_t start, end, total; /* REMOTE_CONTENT_RANGE, REMOTE_CONTENT_LENGTH (total) */
	int flag;
	const char *value; /* into line: the field's value, leading blanks skipped */
	char line[8192];   /* the line, cut to fit, without its CR LF */
};

/* Read one header line of len bytes at p into h. */
void remote_header_parse(const char *p, size_t len, struct remote_header *h);

/* What a transfer does with each header line (parsed by
 * remote_header_parse) and each chunk of its body (it returns the bytes it
 * took: fewer ends the transfer). */
struct remote_sink {
	void (*header)(void *arg, const struct remote_header *h);
	size_t (*body)(void *arg, const char *p, size_t len);
	void *arg;
};
/* Hand h's header lines and body to s, which outlives the transfer. */
void remote_sink_set(CURL *h, struct remote_sink *s);

#endif
