#include "http.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void init_once(void)
{
	static int done;
	if (!done) {
		curl_global_init(CURL_GLOBAL_DEFAULT);
		done = 1;
	}
}

static size_t on_data(char *p, size_t size, size_t n, void *arg)
{
	struct http_response *r = arg;
	size_t bytes = size * n;
	if (r->body.len + bytes > HTTP_MAX_BODY)
		return 0; /* abort: an answer this large is not an engine's */
	sb_add(&r->body, p, bytes);
	return bytes;
}

static const char *route_model;

void http_route_model(const char *model)
{
	route_model = model;
}

static CURL *make(const struct http_client *c, const char *method, const char *path, const char *body,
		  struct http_response *r, struct curl_slist **hdrs)
{
	init_once();
	memset(r, 0, sizeof(*r));
	sb_init(&r->body);
	CURL *h = curl_easy_init();
	if (!h)
		return NULL;
	struct sb url = {0};
	sb_addf(&url, "%s%s", c->base, path);
	if (route_model && strcmp(method, "GET") == 0)
		sb_addf(&url, "%smodel=%s", strchr(path, '?') ? "&" : "?", route_model);
	curl_easy_setopt(h, CURLOPT_URL, url.s);
	sb_release(&url);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, c->timeout_ms > 0 ? c->timeout_ms : 30000L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	*hdrs = curl_slist_append(NULL, "Content-Type: application/json");
	if (c->api_key) {
		struct sb a = {0};
		sb_addf(&a, "Authorization: Bearer %s", c->api_key);
		*hdrs = curl_slist_append(*hdrs, a.s);
		sb_release(&a);
	}
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, *hdrs);
	if (strcmp(method, "POST") == 0) {
		curl_easy_setopt(h, CURLOPT_POST, 1L);
		struct sb b = {0};
		if (route_model && body && body[0] == '{' && !strstr(body, "\"model\""))
			sb_addf(&b, "{\"model\":\"%s\"%s%s", route_model,
				body[1 + strspn(body + 1, " \n")] == '}' ? "" : ",", body + 1);
		curl_easy_setopt(h, CURLOPT_COPYPOSTFIELDS, b.s ? b.s : body ? body : "");
		sb_release(&b);
	}
	return h;
}

static void finish(CURL *h, CURLcode rc, struct http_response *r)
{
	if (rc == CURLE_OK) {
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r->status);
	} else {
		snprintf(r->error, sizeof(r->error), "%s",
			 rc == CURLE_WRITE_ERROR ? "the answer exceeded 32 MiB" : curl_easy_strerror(rc));
		r->status = 0;
	}
	double t = 0;
	curl_easy_getinfo(h, CURLINFO_TOTAL_TIME, &t);
	r->seconds = t;
}

int http_request(const struct http_client *c, const char *method, const char *path, const char *body,
		 struct http_response *r)
{
	struct curl_slist *hdrs = NULL;
	CURL *h = make(c, method, path, body, r, &hdrs);
	if (!h) {
		snprintf(r->error, sizeof(r->error), "cannot create an HTTP handle");
		return -1;
	}
	CURLcode rc = curl_easy_perform(h);
	finish(h, rc, r);
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(h);
	return r->status ? 0 : -1;
}

void http_response_release(struct http_response *r)
{
	sb_release(&r->body);
}

int http_parallel(const struct http_client *c, const char *path, char *const *bodies, size_t n, struct http_response *r)
{
	init_once();
	CURLM *m = curl_multi_init();
	CURL **h = xcalloc(n, sizeof(*h));
	struct curl_slist **hdrs = xcalloc(n, sizeof(*hdrs));
	for (size_t i = 0; i < n; i++) {
		h[i] = make(c, "POST", path, bodies[i], &r[i], &hdrs[i]);
		if (h[i])
			curl_multi_add_handle(m, h[i]);
	}
	int running = 1;
	while (running) {
		curl_multi_perform(m, &running);
		if (running)
			curl_multi_poll(m, NULL, 0, 100, NULL);
	}
	CURLMsg *msg;
	int left;
	while ((msg = curl_multi_info_read(m, &left))) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		for (size_t i = 0; i < n; i++)
			if (h[i] == msg->easy_handle)
				finish(h[i], msg->data.result, &r[i]);
	}
	for (size_t i = 0; i < n; i++) {
		if (h[i]) {
			curl_multi_remove_handle(m, h[i]);
			curl_easy_cleanup(h[i]);
		}
		curl_slist_free_all(hdrs[i]);
	}
	curl_multi_cleanup(m);
	free(h);
	free(hdrs);
	return 0;
}
