#include "endpoint.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../base/file.h"
#include "../base/util.h"

const struct key_def endpoint_keys[] = {
    {"RUNTIME", KEY_PATH, "llama-server", NULL, NULL, "the llama-server binary (a bare name is looked up in PATH)"},
    {"MODEL_FILE", KEY_PATH, NULL, NULL, NULL,
     "the payload GGUF (required); relative paths are relative to the endpoint file"},
    {"MODEL_BYTES", KEY_PINS, NULL, "no byte pin", NULL,
     "pinned size of MODEL_FILE in bytes (a split payload: one per shard, comma-separated, in shard order)"},
    {"MODEL_SHA256", KEY_SHA256, NULL, "no hash pin", NULL,
     "pinned SHA-256 of MODEL_FILE (a split payload: one per shard, comma-separated, in shard order)"},
    {"MODEL_URL", KEY_STRING, NULL, "no URL", NULL, "where MODEL_FILE is fetched from"},
    {"MMPROJ_FILE", KEY_PATH, NULL, "text only: no projector", NULL, "the multimodal projector GGUF"},
    {"MMPROJ_BYTES", KEY_PINS, NULL, "no byte pin", NULL, "pinned size of MMPROJ_FILE"},
    {"MMPROJ_SHA256", KEY_SHA256, NULL, "no hash pin", NULL, "pinned SHA-256 of MMPROJ_FILE"},
    {"MMPROJ_URL", KEY_STRING, NULL, "no URL", NULL, "where MMPROJ_FILE is fetched from"},
    {"LORA_FILE", KEY_PATH, NULL, "no adapter", NULL, "a LoRA adapter GGUF applied at load"},
    {"LORA_SCALE", KEY_NUMBER, "1", NULL, NULL, "the adapter's scale (--lora-scaled FILE:SCALE)"},
    {"LORA_BYTES", KEY_PINS, NULL, "no byte pin", NULL, "pinned size of LORA_FILE"},
    {"LORA_SHA256", KEY_SHA256, NULL, "no hash pin", NULL, "pinned SHA-256 of LORA_FILE"},
    {"LORA_URL", KEY_STRING, NULL, "no URL", NULL, "where LORA_FILE is fetched from"},
    {"TOKEN_FILE", KEY_PATH, NULL, "no token", NULL,
     "a file holding the bearer token for *_URL (sent only to the URL's own host; else HF_TOKEN_FILE or HF_TOKEN)"},
    {"ALIAS", KEY_STRING, NULL, NULL, NULL, "the served model id (default: the endpoint's name)"},
    {"BIND_ADDR", KEY_STRING, "127.0.0.1", NULL, NULL, "the address the engine listens on"},
    {"LISTEN_PORT", KEY_UINT, "8080", NULL, NULL, "the port the engine listens on"},
    {"API_KEY_FILE", KEY_PATH, NULL, "no API key", NULL, "a file holding the API key (the key never reaches argv)"},
    {"USER", KEY_STRING, NULL, "root (no User= line)", NULL,
     "the unit's User=: the engine needs no root, only read access to the payloads (unset: root)"},
    {"CTX_SIZE", KEY_UINT, NULL, NULL, NULL, "the total KV pool in tokens (required; divided across PARALLEL slots)"},
    {"PARALLEL", KEY_UINT, "1", NULL, NULL, "slots: concurrent conversations, each with CTX_SIZE/PARALLEL tokens"},
    {"KV_UNIFIED", KEY_BOOL, "0", NULL, NULL, "one KV stream shared by all slots instead of one per slot"},
    {"CACHE_TYPE_K", KEY_TYPE, "f16", NULL, NULL, "K cache type"},
    {"CACHE_TYPE_V", KEY_TYPE, "f16", NULL, NULL, "V cache type (quantized types need FLASH_ATTN=on)"},
    {"FLASH_ATTN", KEY_ENUM, "on", NULL, "on|off|auto", "flash attention"},
    {"BATCH_SIZE", KEY_UINT, "2048", NULL, NULL, "logical batch size"},
    {"UBATCH_SIZE", KEY_UINT, "512", NULL, NULL, "physical batch size (a prefill knob; sizes the compute buffers)"},
    {"REPACK", KEY_BOOL, "1", NULL, NULL,
     "CPU backend: extra buffers (AMX, CPU_REPACK) may take eligible weights (0: --no-repack, neither)"},
    {"CPU_FEATURES", KEY_STRING, NULL, "this host's", NULL,
     "the serving host's CPU features the plan assumes (e.g. avx2,avx512,avx512_vnni,amx_int8; none; default: "
     "read from this host)"},
    {"NGL", KEY_UINT, "99", NULL, NULL,
     "layers offloaded to the devices (--n-gpu-layers; block count + 1 offloads the output layer too)"},
    {"N_CPU_MOE", KEY_UINT, "0", NULL, NULL,
     "keep the experts of the first N layers on the CPU (--n-cpu-moe: blk.i.ffn_*_exps=CPU for i < N)"},
    {"OVERRIDE_TENSOR", KEY_STRING, NULL, "no override", NULL,
     "PATTERN=BUFFER,... (--override-tensor): the first pattern found in a tensor's name places it on BUFFER "
     "(CPU, CUDA0, RPC0[host:port]); POSIX extended regex, see README"},
    {"KV_OFFLOAD", KEY_BOOL, "1", NULL, NULL,
     "KV cache and recurrent state on the layers' devices (0: --no-kv-offload, all on the CPU)"},
    {"SPLIT_MODE", KEY_ENUM, "layer", NULL, "layer|none|row|tensor",
     "--split-mode: layer splits layers and caches across devices; none uses the first device only"},
    {"TENSOR_SPLIT", KEY_STRING, NULL, "by free memory", NULL,
     "--tensor-split: each device's share of the offloaded layers, in device order (e.g. 1,2)"},
    {"RPC", KEY_STRING, NULL, "no RPC servers", NULL,
     "--rpc HOST:PORT,...: ggml-rpc-server devices, placed before the local cards (RPC0[HOST:PORT] ...)"},
    {"DEVICES", KEY_STRING, NULL, "RPC servers then DEVICE", NULL,
     "device profiles in the engine's order (one 'rpc' per RPC server, then the cards: CUDA0, CUDA1 ...); "
     "PROFILE:MIB overrides a device's memory"},
    {"JINJA", KEY_BOOL, "1", NULL, NULL, "use the payload's Jinja chat template (tools need it)"},
    {"REASONING", KEY_ENUM, "auto", "no flag", "on|off|auto", "--reasoning"},
    {"REASONING_FORMAT", KEY_ENUM, "deepseek", "no flag", "none|deepseek|deepseek-legacy|auto", "--reasoning-format"},
    {"PRESENCE_PENALTY", KEY_NUMBER, NULL, "no flag", NULL, "--presence-penalty (no GGUF key carries it, law C07)"},
    {"SPEC_TYPE", KEY_ENUM, "none", NULL, "none|draft-mtp|ngram-mod|draft-mtp,ngram-mod|ngram-simple",
     "speculative decoding; none strips every --spec-* flag (law S05)"},
    {"SPEC_DRAFT_N_MAX", KEY_UINT, "3", NULL, NULL, "draft depth (also the recurrent rollback planes, law M04)"},
    {"SPEC_DRAFT_N_MIN", KEY_UINT, "0", NULL, NULL, "minimum draft tokens"},
    {"SPEC_DRAFT_P_MIN", KEY_NUMBER, "0", NULL, NULL, "minimum draft probability"},
    {"SPEC_DRAFT_TYPE_K", KEY_TYPE, "f16", NULL, NULL, "the draft context's K cache type"},
    {"SPEC_DRAFT_TYPE_V", KEY_TYPE, "f16", NULL, NULL, "the draft context's V cache type"},
    {"METRICS", KEY_BOOL, "1", NULL, NULL, "--metrics (0 makes /metrics answer 501, law C04)"},
    {"VERBOSITY", KEY_UINT, "4", NULL, NULL, "--log-verbosity (4 prints the boot ledger, law C05)"},
    {"DEVICE", KEY_STRING, "cpu", NULL, NULL, "device profile for the fit gate (zealot plan --help lists them)"},
    {"CUDA_FA_QUANTS", KEY_STRING, NULL, "the pinned engine's f16-f16;q4_0-q4_0;q8_0-q8_0;bf16-bf16", NULL,
     "a CUDA runtime's flash-attention K/V pairs when its CMakeCache.txt is not readable (law S14): all, or "
     "pairs like f16-q8_0;q8_0-q8_0"},
    {"CUDA_FA_SCRATCH", KEY_BOOL, "1", NULL, NULL,
     "a CUDA runtime's flash attention reserves f16 copies of a quantized K/V in the compute buffer (the pinned "
     "engine; 0: a build before upstream PR #23907)"},
    {"ADDRESSABLE_MIB", KEY_UINT, NULL, "the profile's figure", NULL,
     "memory the driver really leaves, overriding the profile (law M01)"},
    {"SLACK_MIB", KEY_UINT, "1024", NULL, NULL, "free memory every plan must keep (law M09)"},
    {"HOST", KEY_STRING, NULL, NULL, NULL,
     "the ssh destination the endpoint runs on: [user@]host or ssh://[user@]host[:port], resolved through the "
     "ssh config (unset: this host; zealot fleet)"},
    {"GPU", KEY_UINT, NULL, NULL, NULL,
     "the card index on that host: the unit's Environment=CUDA_VISIBLE_DEVICES=N (DEVICE profiles that card; "
     "unset: every card)"},
    {"COMPACTION_HUB", KEY_STRING, NULL, "no compaction model", NULL,
     "the name of the fleet endpoint this one's clients send compaction to (the harness's compactionModel)"},
    {"HOST_BW_GBS", KEY_NUMBER, NULL, "the cpu profile's 51 GB/s", NULL,
     "the host's memory bandwidth in GB/s, for the decode rate of what sits on the host (experts, layers, KV)"},
    {"EXTRA_ARGS", KEY_STRING, NULL, "none", NULL, "further engine arguments, appended last (split on blanks)"},
};
const size_t endpoint_n_keys = ARRAY_SIZE(endpoint_keys);

const struct key_def *endpoint_key(const char *name)
{
	for (size_t i = 0; i < endpoint_n_keys; i++)
		if (strcmp(endpoint_keys[i].name, name) == 0)
			return &endpoint_keys[i];
	return NULL;
}

static size_t key_index(const char *name)
{
	const struct key_def *k = endpoint_key(name);
	return k ? (size_t)(k - endpoint_keys) : endpoint_n_keys;
}

/* A misspelling (small edit distance) or a rearrangement of the same words
 * (KV_CACHE_TYPE for CACHE_TYPE_K) both suggest. */
const char *endpoint_suggest(const char *unknown)
{
	const char *best = NULL;
	size_t best_d = 99;
	for (size_t i = 0; i < endpoint_n_keys; i++) {
		size_t d = edit_distance(unknown, endpoint_keys[i].name);
		if (d < best_d) {
			best_d = d;
			best = endpoint_keys[i].name;
		}
	}
	if (best && best_d <= 3)
		return best;
	/* word overlap: the most shared `_`-separated words, at least two */
	size_t best_w = 1;
	best = NULL;
	for (size_t i = 0; i < endpoint_n_keys; i++) {
		size_t shared = 0;
		const char *u = unknown;
		while (*u) {
			size_t n = strcspn(u, "_");
			const char *k = endpoint_keys[i].name;
			while (*k) {
				size_t m = strcspn(k, "_");
				if (m == n && strncasecmp(u, k, n) == 0) {
					shared++;
					break;
				}
				k += m + (k[m] == '_');
			}
			u += n + (u[n] == '_');
		}
		if (shared > best_w) {
			best_w = shared;
			best = endpoint_keys[i].name;
		}
	}
	return best;
}

static int unknown_key(char **err, const char *where, const char *key)
{
	const char *s = endpoint_suggest(key);
	if (s)
		return errorf(err, "%sunknown key '%s' (did you mean %s?) (law C01)", where, key, s);
	return errorf(err, "%sunknown key '%s' (law C01; 'zealot check --keys' lists them)", where, key);
}

static char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *b = slash ? slash + 1 : path;
	size_t n = strlen(b);
	if (n > 4 && strcmp(b + n - 4, ".env") == 0)
		n -= 4;
	return xstrndup(b, n);
}

static int is_key_start(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static int is_key_char(char c)
{
	return is_key_start(c) || (c >= '0' && c <= '9');
}

/* Unquote a value in place semantics; returns allocated string or NULL
 * with *why set. */
static char *unquote(const char *v, size_t n, const char **why)
{
	if (n == 0 || (v[0] != '"' && v[0] != '\''))
		return xstrndup(v, n);
	char q = v[0];
	struct sb b = {0};
	size_t i;
	for (i = 1; i < n; i++) {
		char c = v[i];
		if (c == q)
			break;
		if (q == '"' && c == '\\' && i + 1 < n) {
			char e = v[i + 1];
			if (e == '"' || e == '\\' || e == '$' || e == '`') {
				sb_addc(&b, e);
				i++;
				continue;
			}
			if (e == 'n') {
				sb_addc(&b, '\n');
				i++;
				continue;
			}
		}
		sb_addc(&b, c);
	}
	if (i >= n) {
		sb_release(&b);
		*why = "unterminated quote";
		return NULL;
	}
	if (i + 1 != n) {
		sb_release(&b);
		*why = "text after the closing quote";
		return NULL;
	}
	return sb_detach(&b);
}

struct endpoint *endpoint_parse(const char *buf, size_t len, const char *path, char **err)
{
	struct endpoint *ep = xcalloc(1, sizeof(*ep));
	ep->path = xstrdup(path);
	ep->name = base_name(path);
	ep->dir = path_dir(path);
	ep->e = xcalloc(endpoint_n_keys, sizeof(*ep->e));
	for (size_t i = 0; i < endpoint_n_keys; i++)
		ep->e[i].def = &endpoint_keys[i];

	const char *p = buf, *end = buf + len;
	int lineno = 0;
	struct sb logical = {0};
	int start_line = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		lineno++;
		size_t n = (size_t)(le - p);
		if (n && p[n - 1] == '\r')
			n--;
		if (memchr(p, '\0', n)) {
			errorf(err, "%s:%d: NUL byte in line", path, lineno);
			goto fail;
		}
		if (!logical.len)
			start_line = lineno;
		/* continuation: a trailing backslash joins the next line */
		if (n && p[n - 1] == '\\') {
			sb_add(&logical, p, n - 1);
			p = nl ? nl + 1 : end;
			if (p < end)
				continue;
		} else {
			sb_add(&logical, p, n);
			p = nl ? nl + 1 : end;
		}
		const char *s = logical.s ? logical.s : "";
		size_t sl = logical.len;
		while (sl && (*s == ' ' || *s == '\t')) {
			s++;
			sl--;
		}
		while (sl && (s[sl - 1] == ' ' || s[sl - 1] == '\t'))
			sl--;
		if (sl == 0 || *s == '#' || *s == ';') {
			logical.len = 0;
			continue;
		}
		if (!is_key_start(*s)) {
			errorf(err, "%s:%d: expected KEY=VALUE", path, start_line);
			goto fail;
		}
		size_t kn = 0;
		while (kn < sl && is_key_char(s[kn]))
			kn++;
		size_t eq = kn;
		while (eq < sl && (s[eq] == ' ' || s[eq] == '\t'))
			eq++;
		if (eq >= sl || s[eq] != '=') {
			errorf(err, "%s:%d: expected '=' after '%.*s'", path, start_line, (int)kn, s);
			goto fail;
		}
		char *key = xstrndup(s, kn);
		const char *v = s + eq + 1;
		size_t vn = sl - eq - 1;
		while (vn && (*v == ' ' || *v == '\t')) {
			v++;
			vn--;
		}
		size_t idx = key_index(key);
		if (idx == endpoint_n_keys) {
			char where[512];
			snprintf(where, sizeof(where), "%s:%d: ", path, start_line);
			unknown_key(err, where, key);
			free(key);
			goto fail;
		}
		if (ep->e[idx].line) {
			errorf(err, "%s:%d: %s is already set on line %d", path, start_line, key, ep->e[idx].line);
			free(key);
			goto fail;
		}
		const char *why = NULL;
		char *value = unquote(v, vn, &why);
		if (!value) {
			errorf(err, "%s:%d: %s: %s", path, start_line, key, why);
			free(key);
			goto fail;
		}
		ep->e[idx].value = value;
		ep->e[idx].line = start_line;
		free(key);
		logical.len = 0;
	}
	sb_release(&logical);
	return ep;
fail:
	sb_release(&logical);
	endpoint_free(ep);
	return NULL;
}

/* Endpoint files are small; a cap keeps a wrong path (a payload, /dev/zero)
 * from being read whole. */
#define ENDPOINT_MAX_BYTES (1 << 20)

struct endpoint *endpoint_load(const char *path, enum zerr *kind, char **err)
{
	size_t n = 0;
	char *buf = read_file(path, ENDPOINT_MAX_BYTES + 1, READ_TRUNCATE, &n, kind, err);
	if (!buf)
		return NULL;
	if (n > ENDPOINT_MAX_BYTES) {
		free(buf);
		zerr_set(kind, Z_USAGE);
		errorf(err, "'%s' is larger than %d bytes: not an endpoint file", path, ENDPOINT_MAX_BYTES);
		return NULL;
	}
	struct endpoint *ep = endpoint_parse(buf, n, path, err);
	free(buf);
	if (!ep)
		zerr_set(kind, Z_USAGE);
	return ep;
}

void endpoint_free(struct endpoint *ep)
{
	if (!ep)
		return;
	for (size_t i = 0; ep->e && i < endpoint_n_keys; i++)
		free(ep->e[i].value);
	free(ep->e);
	free(ep->path);
	free(ep->name);
	free(ep->dir);
	free(ep);
}

int endpoint_set(struct endpoint *ep, const char *kv, char **err)
{
	const char *eq = strchr(kv, '=');
	if (!eq)
		return errorf(err, "--set '%s': expected KEY=VALUE", kv);
	char *key = xstrndup(kv, (size_t)(eq - kv));
	size_t idx = key_index(key);
	if (idx == endpoint_n_keys) {
		unknown_key(err, "--set: ", key);
		free(key);
		return -1;
	}
	free(key);
	free(ep->e[idx].value);
	ep->e[idx].value = xstrdup(eq + 1);
	ep->e[idx].line = -1; /* from the command line */
	return 0;
}

const struct endpoint_entry *endpoint_entry(const struct endpoint *ep, const char *name)
{
	size_t idx = key_index(name);
	return idx < endpoint_n_keys ? &ep->e[idx] : NULL;
}

const char *endpoint_value(const struct endpoint *ep, const char *name)
{
	const struct endpoint_entry *e = endpoint_entry(ep, name);
	if (!e)
		return NULL;
	if (e->value)
		return e->value;
	if (strcmp(name, "ALIAS") == 0)
		return ep->name;
	return e->def->def;
}

int endpoint_is_empty(const struct endpoint *ep, const char *name)
{
	const struct endpoint_entry *e = endpoint_entry(ep, name);
	return e && e->value && !*e->value;
}

char *endpoint_where(const struct endpoint *ep, const char *name)
{
	const struct endpoint_entry *e = endpoint_entry(ep, name);
	struct sb b = {0};
	if (e && e->line > 0)
		sb_addf(&b, "%s:%d: %s", ep->path, e->line, name);
	else if (e && e->line < 0)
		sb_addf(&b, "--set %s", name);
	else
		sb_addf(&b, "%s: %s (default)", ep->path, name);
	return sb_detach(&b);
}

static int value_err(const struct endpoint *ep, const char *name, char **err, const char *what)
{
	char *w = endpoint_where(ep, name);
	const char *v = endpoint_value(ep, name);
	errorf(err, "%s: '%s' is not %s", w, v ? v : "", what);
	free(w);
	return -1;
}

static const char *need(const struct endpoint *ep, const char *name, char **err)
{
	const char *v = endpoint_value(ep, name);
	if (!v) {
		errorf(err, "%s: %s is not set", ep->path, name);
		return NULL;
	}
	if (!*v) {
		char *w = endpoint_where(ep, name);
		errorf(err, "%s: empty value%s", w, endpoint_key(name)->optout ? "" : " (this key has no opt-out)");
		free(w);
		return NULL;
	}
	return v;
}

int endpoint_uint(const struct endpoint *ep, const char *name, uint64_t *out, char **err)
{
	const char *v = need(ep, name, err);
	if (!v)
		return -1;
	if (parse_u64(v, out))
		return value_err(ep, name, err, "a whole number");
	return 0;
}

int endpoint_number(const struct endpoint *ep, const char *name, double *out, char **err)
{
	const char *v = need(ep, name, err);
	if (!v)
		return -1;
	if (parse_double(v, out))
		return value_err(ep, name, err, "a number");
	return 0;
}

int endpoint_bool(const struct endpoint *ep, const char *name, int *out, char **err)
{
	const char *v = need(ep, name, err);
	if (!v)
		return -1;
	static const char *yes[] = {"1", "on", "true", "yes"};
	static const char *no[] = {"0", "off", "false", "no"};
	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (strcasecmp(v, yes[i]) == 0) {
			*out = 1;
			return 0;
		}
		if (strcasecmp(v, no[i]) == 0) {
			*out = 0;
			return 0;
		}
	}
	return value_err(ep, name, err, "a boolean (0/1, on/off, true/false, yes/no)");
}

char *endpoint_path(const struct endpoint *ep, const char *name)
{
	const char *v = endpoint_value(ep, name);
	if (!v || !*v)
		return NULL;
	if (v[0] == '/' || (strcmp(name, "RUNTIME") == 0 && !strchr(v, '/')))
		return xstrdup(v);
	struct sb b = {0};
	sb_addf(&b, "%s/%s", ep->dir, v);
	return sb_detach(&b);
}
