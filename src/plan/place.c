#include "place.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "../payload/ggml_type.h"
#include "vulkan.h"

/* common/common.h: LLM_FFN_EXPS_REGEX, llm_ffn_block_regex */
#define FFN_EXPS_REGEX "\\.ffn_(up|down|gate|gate_up)_(ch|)exps"

void place_release(struct placement *pl)
{
	for (unsigned i = 0; i < pl->n_over; i++)
		regfree(&pl->over[i].re);
	free(pl->over);
	free(pl->layer);
	for (unsigned i = 0; i < pl->n_refused; i++)
		free(pl->refused[i]);
	free(pl->refused);
	memset(pl, 0, sizeof(*pl));
}

/* "a,b,,c" -> the n-th field (0-based) into buf; returns the count. A
 * field too long for buf comes back empty (every caller refuses that). */
static unsigned fields(const char *list, char sep, unsigned want, char *buf, size_t n)
{
	unsigned i = 0;
	const char *p = list;
	for (;;) {
		size_t len = strcspn(p, (char[]){sep, '\0'});
		if (i == want && buf) {
			if (len >= n)
				len = 0;
			memcpy(buf, p, len);
			buf[len] = '\0';
		}
		i++;
		if (!p[len])
			break;
		p += len + 1;
	}
	return i;
}

static int add_dev(struct placement *pl, const char *name, const struct device *prof, uint64_t mib, char **err)
{
	if (pl->n_dev == PLACE_MAX_DEV)
		return errorf(err, "more than %d devices", PLACE_MAX_DEV);
	struct place_dev *d = &pl->dev[pl->n_dev++];
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->profile = prof;
	d->addressable_mib = mib;
	return 0;
}

/* One DEVICES entry: PROFILE or PROFILE:MIB. */
static const struct device *entry_profile(const char *e, uint64_t *mib, char **err)
{
	char name[64];
	size_t n = strcspn(e, ":");
	if (n >= sizeof(name))
		n = sizeof(name) - 1;
	memcpy(name, e, n);
	name[n] = '\0';
	*mib = 0;
	if (e[n] == ':') {
		char *end;
		unsigned long long v = strtoull(e + n + 1, &end, 10);
		if (end == e + n + 1 || *end || v == 0) {
			errorf(err, "DEVICES: '%s': the memory after ':' must be a positive number of MiB", e);
			return NULL;
		}
		*mib = v;
	}
	const struct device *d = device_find(name);
	char hint[320];
	if (!d)
		errorf(err, "DEVICES: '%s' is not a known profile: %s", name,
		       device_unknown_hint(name, hint, sizeof(hint)));
	else if (d->backend == DEVICE_CPU) {
		errorf(err, "DEVICES: 'cpu' is the host, not a device the engine offloads to");
		d = NULL;
	}
	return d;
}

/* RPC servers first, in --rpc order (src/llama.cpp: "add RPC servers at
 * the front of the list to minimize network transfers"); *n_out of them. */
static int rpc_devices(const struct place_request *r, struct placement *pl, unsigned *n_out, char **err)
{
	unsigned n_rpc = 0;
	if (r->rpc && *r->rpc) {
		n_rpc = fields(r->rpc, ',', 99, NULL, 0);
		for (unsigned i = 0; i < n_rpc; i++) {
			char ep[48], name[64];
			fields(r->rpc, ',', i, ep, sizeof(ep));
			const char *colon = strrchr(ep, ':');
			if (!*ep || !colon || colon == ep || !colon[1] ||
			    strspn(colon + 1, "0123456789") != strlen(colon + 1))
				return errorf(err, "RPC: '%s' is not HOST:PORT", ep);
			for (unsigned j = 0; j < i; j++) {
				char prev[48];
				fields(r->rpc, ',', j, prev, sizeof(prev));
				if (strcmp(prev, ep) == 0)
					return errorf(err, "RPC: '%s' is listed twice", ep);
			}
			/* the buffer type's name: RPC<device on that server>[endpoint]; a
			 * CPU rpc-server has one device */
			snprintf(name, sizeof(name), "RPC0[%s]", ep);
			if (add_dev(pl, name, device_find("rpc"), 0, err))
				return -1;
		}
	}
	*n_out = n_rpc;
	return 0;
}

/* TENSOR_SPLIT: proportions per device; none: by free memory. */
static int tensor_split(const struct place_request *r, struct placement *pl, char **err)
{
	if (r->tensor_split && *r->tensor_split) {
		unsigned n = 0;
		const char *p = r->tensor_split;
		while (*p) {
			size_t len = strcspn(p, ",/");
			if (len) {
				char num[32];
				if (len >= sizeof(num))
					return errorf(err, "TENSOR_SPLIT: '%.*s' is not a number", (int)len, p);
				memcpy(num, p, len);
				num[len] = '\0';
				char *end;
				float v = strtof(num, &end);
				if (end == num || *end || !(v >= 0))
					return errorf(err, "TENSOR_SPLIT: '%s' is not a non-negative number", num);
				if (n >= pl->n_dev)
					return errorf(err,
						      "TENSOR_SPLIT: %u or more shares but the engine has %u device%s "
						      "(RPC servers, then DEVICES)",
						      n + 1, pl->n_dev, pl->n_dev == 1 ? "" : "s");
				pl->split[n++] = v;
			}
			p += len;
			p += strspn(p, ",/");
		}
	}
	return 0;
}

int place_devices(const struct place_request *r, const struct device *main, struct placement *pl, char **err)
{
	memset(pl, 0, sizeof(*pl));
	pl->kv_offload = r->kv_offload;
	const char *sm = r->split_mode && *r->split_mode ? r->split_mode : "layer";
	static const char *const modes[] = {[PLACE_SPLIT_LAYER] = "layer",
					    [PLACE_SPLIT_NONE] = "none",
					    [PLACE_SPLIT_ROW] = "row",
					    [PLACE_SPLIT_TENSOR] = "tensor"};
	int mode = name_index(modes, ARRAY_SIZE(modes), sm);
	if (mode < 0)
		return errorf(err, "SPLIT_MODE: '%s' is not one of layer, none, row, tensor", sm);
	pl->split_mode = (enum place_split)mode;

	unsigned n_rpc = 0;
	if (rpc_devices(r, pl, &n_rpc, err))
		return -1;
	pl->n_rpc = n_rpc;

	/* DEVICES: the profiles of every device in the engine's order; else one
	 * rpc per server, then DEVICE when it is a card */
	unsigned n_cuda = 0, n_vk = 0;
	if (r->devices && *r->devices) {
		unsigned n = fields(r->devices, ',', 99, NULL, 0);
		for (unsigned i = 0; i < n; i++) {
			char e[80];
			uint64_t mib;
			fields(r->devices, ',', i, e, sizeof(e));
			const struct device *d = entry_profile(e, &mib, err);
			if (!d)
				return -1;
			int is_rpc = d->backend == DEVICE_RPC;
			if (is_rpc != (i < n_rpc))
				return errorf(err,
					      "DEVICES: entry %u ('%s') must be %s: the engine puts the %u RPC "
					      "server%s first, then the local cards",
					      i + 1, e, i < n_rpc ? "rpc" : "a card profile", n_rpc,
					      n_rpc == 1 ? "" : "s");
			if (is_rpc) {
				pl->dev[i].profile = d;
				pl->dev[i].addressable_mib = mib;
			} else {
				char name[16];
				device_card_name(d, d->backend == DEVICE_VULKAN ? n_vk++ : n_cuda++, name,
						 sizeof(name));
				if (add_dev(pl, name, d, mib, err))
					return -1;
			}
		}
		if (n < n_rpc)
			return errorf(err, "DEVICES: %u entr%s for %u RPC servers: list one rpc profile per server", n,
				      n == 1 ? "y" : "ies", n_rpc);
	} else if (device_is_card(main)) {
		char name[16];
		device_card_name(main, 0, name, sizeof(name));
		if (add_dev(pl, name, main, 0, err))
			return -1;
		n_cuda = 1;
	} else if (main && main->backend == DEVICE_RPC) {
		return errorf(err, "DEVICE: 'rpc' is the profile of an RPC server: list the servers in RPC");
	}
	pl->host_buft = n_cuda + n_vk > 0;

	if (pl->split_mode == PLACE_SPLIT_ROW && n_rpc)
		return errorf(err, "SPLIT_MODE: row needs split buffers, which an RPC device does not have (the engine "
				   "refuses: \"does not support split buffers\")");
	if ((pl->split_mode == PLACE_SPLIT_ROW || pl->split_mode == PLACE_SPLIT_TENSOR) && pl->n_dev)
		return errorf(err, "SPLIT_MODE: %s is not mirrored by zealot yet (split buffers); use layer or none",
			      sm);
	/* split-mode none keeps the main GPU (index 0) only */
	if (pl->split_mode == PLACE_SPLIT_NONE && pl->n_dev > 1)
		pl->n_dev = 1;

	return tensor_split(r, pl, err);
}

/* Patterns std::regex (ECMAScript) reads differently from POSIX ERE. */
static const char *ecmascript_only(const char *pat)
{
	for (const char *p = pat; *p; p++) {
		if (*p == '\\' && p[1]) {
			if (strchr("dDsSwWbB", p[1]))
				return p;
			p++;
			continue;
		}
		if (*p == '(' && p[1] == '?')
			return p;
		if ((*p == '*' || *p == '+' || *p == '?' || *p == '}') && p[1] == '?')
			return p;
		/* a quantifier on a quantifier: an error to ECMAScript ("nothing to
		 * repeat"), and a blow-up for some POSIX engines */
		if ((*p == '*' || *p == '+' || *p == '?' || *p == '}') && (p[1] == '*' || p[1] == '+' || p[1] == '{'))
			return p;
	}
	return NULL;
}

static int add_override(struct placement *pl, const char *pattern, const char *buft, char **err)
{
	if (strlen(pattern) > 256)
		return errorf(err,
			      "OVERRIDE_TENSOR: a pattern of %zu characters: tensor names are short; keep it under 256",
			      strlen(pattern));
	const char *bad = ecmascript_only(pattern);
	if (bad)
		return errorf(err,
			      "OVERRIDE_TENSOR: '%s': '%.2s' means something else to the engine's std::regex "
			      "(ECMAScript) than to POSIX; write it with [0-9], [[:space:]], (a|b) ...",
			      pattern, bad);
	int dev;
	if (strcmp(buft, "CPU") == 0) {
		dev = PLACE_HOST;
	} else {
		dev = -2;
		for (unsigned i = 0; i < pl->n_dev; i++)
			if (strcmp(pl->dev[i].name, buft) == 0)
				dev = (int)i;
		if (dev == -2) {
			struct sb b = {0};
			sb_addf(&b, "CPU");
			for (unsigned i = 0; i < pl->n_dev; i++)
				sb_addf(&b, ", %s", pl->dev[i].name);
			errorf(err, "OVERRIDE_TENSOR: '%s' is not a buffer type the engine has (it has %s)", buft, b.s);
			sb_release(&b);
			return -1;
		}
	}
	pl->over = xreallocarray(pl->over, pl->n_over + 1, sizeof(*pl->over));
	struct place_override *o = &pl->over[pl->n_over];
	int rc = regcomp(&o->re, pattern, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		char msg[128];
		regerror(rc, &o->re, msg, sizeof(msg));
		return errorf(err, "OVERRIDE_TENSOR: '%s' is not a valid pattern: %s", pattern, msg);
	}
	o->dev = dev;
	pl->n_over++;
	return 0;
}

static int parse_overrides(struct placement *pl, const struct place_request *r, char **err)
{
	if (r->override_tensor && *r->override_tensor) {
		unsigned n = fields(r->override_tensor, ',', 999, NULL, 0);
		for (unsigned i = 0; i < n; i++) {
			char e[512];
			fields(r->override_tensor, ',', i, e, sizeof(e));
			char *eq = strchr(e, '=');
			if (!eq)
				return errorf(
				    err, "OVERRIDE_TENSOR: entry %u is not PATTERN=BUFFER (of at most 511 characters)",
				    i + 1);
			*eq = '\0';
			if (add_override(pl, e, eq + 1, err))
				return -1;
		}
	}
	for (uint32_t i = 0; i < r->n_cpu_moe; i++) {
		char pat[96];
		snprintf(pat, sizeof(pat), "blk\\.%u%s", i, FFN_EXPS_REGEX);
		if (add_override(pl, pat, "CPU", err))
			return -1;
	}
	return 0;
}

int place_check(const struct place_request *r, const struct device *main, char **err)
{
	struct placement pl;
	int rc = place_devices(r, main, &pl, err) || parse_overrides(&pl, r, err) ? -1 : 0;
	place_release(&pl);
	return rc;
}

void place_override_hits(const struct placement *pl, const struct gguf *g, unsigned *counts)
{
	memset(counts, 0, pl->n_over * sizeof(*counts));
	for (uint64_t i = 0; i < g->n_tensors; i++)
		for (unsigned k = 0; k < pl->n_over; k++)
			if (regexec(&pl->over[k].re, g->tensors[i].name, 0, NULL, 0) == 0) {
				counts[k]++;
				break;
			}
}

int place_make(const struct place_request *r, const struct device *main, const struct model *m, struct placement *pl,
	       char **err)
{
	if (place_devices(r, main, pl, err))
		goto fail;
	if (parse_overrides(pl, r, err))
		goto fail;
	uint32_t n_all = m->n_layer_all;
	pl->n_layer_all = n_all;
	pl->ngl = r->ngl;
	pl->layer = xcalloc((size_t)n_all + 1, sizeof(*pl->layer));

	/* llama_model_base::load_tensors */
	float splits[PLACE_MAX_DEV];
	int all_zero = 1;
	for (unsigned i = 0; i < pl->n_dev; i++)
		all_zero &= pl->split[i] == 0.0f;
	for (unsigned i = 0; i < pl->n_dev; i++) {
		if (!all_zero) {
			splits[i] = pl->split[i];
		} else {
			/* by free memory: the profile's addressable figure */
			uint64_t mib = pl->dev[i].addressable_mib ? pl->dev[i].addressable_mib
								  : pl->dev[i].profile->addressable_mib;
			if (!mib)
				mib = device_host_available_mib();
			splits[i] = (float)((double)mib * 1024.0 * 1024.0);
		}
	}
	float sum = 0.0f;
	for (unsigned i = 0; i < pl->n_dev; i++) {
		sum += splits[i];
		splits[i] = sum;
	}
	for (unsigned i = 0; i < pl->n_dev; i++)
		splits[i] /= sum;
	int64_t ngl = r->ngl;
	int64_t i_gpu_start = (int64_t)n_all + 1 - ngl;
	if (i_gpu_start < 0)
		i_gpu_start = 0;
	int64_t act = pl->n_dev == 0 ? 0 : (ngl < (int64_t)n_all + 1 ? ngl : (int64_t)n_all + 1);
	for (uint32_t il = 0; il <= n_all; il++) {
		if ((int64_t)il < i_gpu_start || ((int64_t)il - i_gpu_start) >= act) {
			pl->layer[il] = PLACE_HOST;
			continue;
		}
		float x = (float)((int64_t)il - i_gpu_start) / (float)act;
		unsigned g = 0;
		while (g < pl->n_dev && !(x < splits[g])) /* std::upper_bound: first > x */
			g++;
		if (g == pl->n_dev)
			g = pl->n_dev - 1;
		pl->layer[il] = (int)g;
	}
	uint32_t n_off = (uint32_t)(ngl < (int64_t)n_all + 1 ? ngl : n_all + 1);
	pl->offloaded = pl->n_dev ? n_off : 0;

	/* llama_context: pipeline parallelism when every layer is offloaded
	 * across several devices that all have async compute and events (CUDA
	 * and RPC both do) */
	pl->pipeline = pl->n_dev > 1 && ngl > (int64_t)n_all && pl->split_mode == PLACE_SPLIT_LAYER && pl->kv_offload &&
		       pl->n_over == 0;
	return 0;
fail:
	place_release(pl);
	return -1;
}

int64_t place_tensor_layer(const char *name, const struct model *m)
{
	uint32_t n_layer_all = m->n_layer_all;
	if (strncmp(name, "blk.", 4) == 0) {
		char *end;
		unsigned long il = strtoul(name + 4, &end, 10);
		if (end != name + 4 && *end == '.' && il < n_layer_all)
			return (int64_t)il;
	}
	/* wavtokenizer-dec's repeating tensors: posnet.N and convnext.N at
	 * layer N, the conv1d stem at layer 0 (tn(LLM_TENSOR_CONV1D, .., 0)) */
	static const char *const stacks[] = {"posnet.", "convnext."};
	for (size_t i = 0; i < ARRAY_SIZE(stacks); i++) {
		size_t n = strlen(stacks[i]);
		char *end;
		unsigned long il = strncmp(name, stacks[i], n) == 0 ? strtoul(name + n, &end, 10) : n_layer_all;
		if (il < n_layer_all && end != name + n && *end == '.')
			return (int64_t)il;
	}
	if (strncmp(name, "conv1d.", 7) == 0)
		return 0;
	/* the input layer (LLM_TENSOR_LAYER_INPUT) */
	static const char *const input[] = {"token_embd.", "position_embd.", "token_types.", "per_layer_token_embd."};
	for (size_t i = 0; i < ARRAY_SIZE(input); i++)
		if (strncmp(name, input[i], strlen(input[i])) == 0)
			return -1;
	/* LFM2's final norm is named token_embd_norm
	 * (LLM_TENSOR_OUTPUT_NORM_LFM2): an output-layer tensor */
	if (strncmp(m->arch, "lfm2", 4) == 0 && strcmp(name, "token_embd_norm.weight") == 0)
		return n_layer_all;
	/* repeating tensors created once with layer 0's index (gemma4's
	 * per-layer projection: tn(..., "weight", 0)); the embeddings' norm
	 * too (LLM_TENSOR_TOKEN_EMBD_NORM: "do the norms on the first layer") */
	static const char *const first[] = {"per_layer_model_proj.", "per_layer_proj_norm.", "token_embd_norm."};
	for (size_t i = 0; i < ARRAY_SIZE(first); i++)
		if (strncmp(name, first[i], strlen(first[i])) == 0)
			return 0;
	return n_layer_all;
}

int place_weight(const struct placement *pl, const char *name, int64_t layer)
{
	for (unsigned i = 0; i < pl->n_over; i++)
		if (regexec(&pl->over[i].re, name, 0, NULL, 0) == 0)
			return pl->over[i].dev;
	if (layer < 0 || !pl->layer)
		return PLACE_HOST;
	for (unsigned i = 0; i < pl->n_refused; i++)
		if (strcmp(pl->refused[i], name) == 0)
			return PLACE_HOST;
	if (layer > (int64_t)pl->n_layer_all)
		layer = pl->n_layer_all;
	return pl->layer[layer];
}

int place_cache(const struct placement *pl, uint32_t il)
{
	if (!pl->kv_offload || !pl->layer || il >= pl->n_layer_all)
		return PLACE_HOST;
	return pl->layer[il];
}

const char *place_cpu_buft(const struct placement *pl)
{
	if (pl->n_dev && device_is_card(pl->dev[0].profile))
		return device_host_buft(pl->dev[0].profile);
	return "CPU";
}

/* The architectures whose ssm_a is LLM_TENSOR_SSM_A, read by SSM_SCAN
 * (src/models/<arch>.cpp); qwen35's, qwen3next's and kimi's are
 * SSM_A_NOSCAN, read by MUL, which every device runs. */
static const char *const ssm_scan_archs[] = {"mamba",	      "mamba2",	    "jamba",	      "falcon-h1",
					     "granitehybrid", "nemotron_h", "nemotron_h_moe", "plamo2"};

/* Whether layer il's device d refuses t, as weight_buft_supported probes
 * it: SSM_SCAN over s {d_state, head_dim, heads, 3} with A = t, where
 * d_state is A's ne[0], or the payload's when that is 1 (Mamba-2's
 * layout), heads A's ne[1] and head_dim d_inner / heads. */
static int refuses(const struct placement *pl, int d, const struct gguf_tensor *t, const struct model *m)
{
	const struct device *prof = pl->dev[d].profile;
	const struct vulkan_limits *l = prof->backend == DEVICE_VULKAN ? vulkan_limits_of(prof->name) : NULL;
	if (!l)
		return 0;
	const struct ggml_type_info *ti = ggml_type_get(t->type);
	int quant = !ti || ti->blck > 1;
	uint64_t nb1 = ti ? t->ne[0] / ti->blck * ti->size : 0;
	int64_t d_state = t->ne[0] == 1 ? (int64_t)m->ssm_d_state : (int64_t)t->ne[0];
	int64_t heads = t->n_dims > 1 ? (int64_t)t->ne[1] : 1;
	return !vulkan_ssm_scan_ok(l, quant, nb1, d_state, heads ? (int64_t)m->ssm_d_inner / heads : 0);
}

void place_refusals(struct placement *pl, const struct gguf *g, const struct model *m)
{
	int scan = 0;
	for (size_t i = 0; i < ARRAY_SIZE(ssm_scan_archs); i++)
		scan |= strcmp(m->arch, ssm_scan_archs[i]) == 0;
	if (!g || !pl->layer || !scan)
		return;
	for (uint64_t i = 0; i < g->n_tensors; i++) {
		const struct gguf_tensor *t = &g->tensors[i];
		const char *dot = strrchr(t->name, '.');
		int64_t il = place_tensor_layer(t->name, m);
		if (!dot || strcmp(dot, ".ssm_a") != 0 || il < 0 || il >= (int64_t)pl->n_layer_all)
			continue;
		/* an override takes the weight without the probe */
		int over = 0;
		for (unsigned k = 0; k < pl->n_over && !over; k++)
			over = regexec(&pl->over[k].re, t->name, 0, NULL, 0) == 0;
		int d = pl->layer[il];
		if (over || d < 0 || !refuses(pl, d, t, m))
			continue;
		pl->refused = xreallocarray(pl->refused, pl->n_refused + 1, sizeof(*pl->refused));
		pl->refused[pl->n_refused++] = xstrdup(t->name);
	}
}
