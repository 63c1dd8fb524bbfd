#include "laws.h"

#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/file.h"
#include "../base/util.h"
#include "../endpoint/argv.h"
#include "../endpoint/flags.h"
#include "../endpoint/host.h"
#include "../endpoint/quote.h"
#include "../endpoint/url.h"
#include "../payload/archs.h"
#include "../payload/gguf_diff.h"
#include "../payload/loader.h"
#include "../payload/payload.h"
#include "../payload/split.h"
#include "../plan/cand.h"
#include "../plan/graph/graph.h"
#include "../plan/vulkan.h"
#include "law_util.h"
#include "runtime.h"

const char *severity_name(enum severity s)
{
	return s == SEV_ERROR ? "error" : s == SEV_WARNING ? "warning" : "info";
}

void law_vadd(struct findings *out, const char *law, enum severity sev, const struct endpoint *ep, enum key_id key,
	      const char *fix, const char *fmt, va_list ap)
{
	out->v = xreallocarray(out->v, out->n + 1, sizeof(*out->v));
	struct finding *f = &out->v[out->n++];
	f->law = law;
	f->sev = sev;
	f->key = key < NO_KEY ? key_name(key) : NULL;
	const struct endpoint_entry *e = ep && key < NO_KEY ? endpoint_entry(ep, key) : NULL;
	f->line = e ? e->line : 0;
	f->reason = xvstrf(fmt, ap);
	f->fix = xstrdup(fix ? fix : "");
}

void findings_add(struct findings *out, const char *law, enum severity sev, const struct endpoint *ep, enum key_id key,
		  const char *fix, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	law_vadd(out, law, sev, ep, key, fix, fmt, ap);
	va_end(ap);
}

void findings_release(struct findings *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].reason);
		free(f->v[i].fix);
	}
	free(f->v);
	f->v = NULL;
	f->n = 0;
}

size_t findings_errors(const struct findings *f)
{
	size_t n = 0;
	for (size_t i = 0; i < f->n; i++)
		n += f->v[i].sev == SEV_ERROR;
	return n;
}

static int u64(const struct endpoint *ep, enum key_id key, uint64_t *out)
{
	return endpoint_uint(ep, key, out, NULL);
}

/* C02: set-but-empty where the key documents no opt-out. */
static void law_c02(const struct endpoint *ep, struct findings *out)
{
	for (size_t i = 0; i < keys_count(); i++) {
		const struct key_def *k = keys_at(i);
		if (endpoint_is_empty(ep, k->id) && !k->optout)
			add(out, "C02", SEV_ERROR, ep, k->id,
			    k->def ? "give it a value, or remove the line to take the default"
				   : "give it a value: the key has no default, so removing the line does not help",
			    "%s is set but empty, and empty is no opt-out for this key (default: %s)", k->name,
			    k->def ? k->def : "none");
	}
}

/* Every value must parse as its type, and a number must lie in its key's
 * range: the table's one parse (keys.h), the same plan, solve and argv
 * use. A number out of range is its key's law (the engine's int32 limit
 * is no syntax error); any other bad value is C02. */
static void law_values(const struct endpoint *ep, struct findings *out)
{
	for (size_t i = 0; i < keys_count(); i++) {
		const struct key_def *k = keys_at(i);
		const char *v = endpoint_value(ep, k->id);
		if (!v || !*v)
			continue;
		char *err = NULL;
		if (key_check_value(k, v, &err)) {
			uint64_t u;
			double d;
			int range = (k->kind == KEY_UINT && parse_u64(v, &u) == 0) ||
				    (k->kind == KEY_NUMBER && parse_double(v, &d) == 0);
			add(out, range ? k->law : "C02", SEV_ERROR, ep, k->id,
			    range ? "give a value within the range" : "correct the value", "%s", err ? err : "invalid");
		}
		free(err);
	}
}

/* C09: a flag a key owns is set by that key and nowhere else: not in
 * EXTRA_ARGS (the engine takes the last of two, so EXTRA_ARGS would
 * override what zealot judged), and never an API key on the command line
 * (it would sit in /proc/PID/cmdline). LLAMA_ARG_* lines never reach here:
 * the parser refuses them with C09. */
/* C09's fix: the key line to write, with the value EXTRA_ARGS gave the
 * flag (--flag=V, or the word after it unless that is another flag). */
static void gated_fix(const struct endpoint *ep, const struct endpoint_gate *g, char *fix, size_t n)
{
	const char *x = val(ep, K_EXTRA_ARGS), *eq = strchr(g->word, '=');
	char flag[64], v[64] = "";
	snprintf(flag, sizeof(flag), "%.*s", (int)(eq ? (size_t)(eq - g->word) : strlen(g->word)), g->word);
	if (eq)
		snprintf(v, sizeof(v), "%s", eq + 1);
	const char *p = strstr(x, g->word);
	if (!eq && g->owner->kind == KEY_BOOL) /* a switch: on, or its off flag */
		snprintf(v, sizeof(v), "%s", g->owner->flag_off && strcmp(flag, g->owner->flag_off) == 0 ? "0" : "1");
	else if (!eq && p) {
		p += strlen(g->word);
		p += strspn(p, " \t");
		size_t m = strcspn(p, " \t");
		if (m && *p != '-')
			snprintf(v, sizeof(v), "%.*s", (int)(m < 63 ? m : 63), p);
	}
	if (*v && !eq && g->owner->kind == KEY_BOOL)
		snprintf(fix, n, "write the line %s=%s and drop %s from EXTRA_ARGS", g->owner->name, v, flag);
	else if (*v)
		snprintf(fix, n, "write the line %s=%s and drop '%s%s%s' from EXTRA_ARGS", g->owner->name, v, flag,
			 eq ? "=" : " ", v);
	else
		snprintf(fix, n,
			 "write the line %s=VALUE (zealot check --keys: its values) and drop %s from EXTRA_ARGS",
			 g->owner->name, flag);
}

static void law_gated(const struct endpoint *ep, struct findings *out)
{
	struct endpoint_gate g[16];
	size_t n = endpoint_gated_extra(ep, g, ARRAY_SIZE(g));
	for (size_t i = 0; i < n && i < ARRAY_SIZE(g); i++) {
		if (g[i].owner->id == K_API_KEY_FILE)
			add(out, "C09", SEV_ERROR, ep, K_EXTRA_ARGS,
			    "put the key in a file and name it with API_KEY_FILE",
			    "EXTRA_ARGS names %s: an API key travels only by file (--api-key-file, API_KEY_FILE), "
			    "never "
			    "on the command line",
			    g[i].word);
		else {
			char fix[256];
			gated_fix(ep, &g[i], fix, sizeof(fix));
			add(out, "C09", SEV_ERROR, ep, K_EXTRA_ARGS, fix,
			    "EXTRA_ARGS names %s, a flag %s owns: zealot renders it from %s and judges that value",
			    g[i].word, g[i].owner->name, g[i].owner->name);
		}
	}
}

/* C11 and each refused flag's own law: EXTRA_ARGS read as the engine reads
 * its argv, every flag classified by the pinned engine's table
 * (endpoint/flags.h). A key's flag is law_gated's (C09); a priced or
 * harmless one passes; a word that is no flag of the pinned engine, or no
 * flag's value, is refused: zealot cannot say what it changes. */
static void law_extra_flags(const struct endpoint *ep, struct findings *out)
{
	struct flags_word w[64];
	size_t n = flags_parse(endpoint_value_of(ep, K_EXTRA_ARGS), w, ARRAY_SIZE(w));
	for (size_t i = 0; i < n && i < ARRAY_SIZE(w); i++) {
		const struct engine_flag *f = w[i].row;
		if (w[i].stray)
			add(out, "C11", SEV_ERROR, ep, K_EXTRA_ARGS, "drop the word, or give it the flag it belongs to",
			    "EXTRA_ARGS word '%s' is neither a flag nor a flag's value: the engine refuses it",
			    w[i].word);
		else if (!f)
			add(out, "C11", SEV_ERROR, ep, K_EXTRA_ARGS,
			    "drop it: EXTRA_ARGS carries only flags of the pinned engine's table",
			    "EXTRA_ARGS names %s, no flag of the pinned engine (%s): zealot cannot say what it changes",
			    w[i].word, engine_flags_source);
		else if (f->cls == FLAG_REFUSED)
			add(out, f->arg, SEV_ERROR, ep, K_EXTRA_ARGS, "drop the flag",
			    "EXTRA_ARGS names %s: %s (law %s)", w[i].word, f->why, f->arg);
	}
}

/* C02: the fleet keys. HOST must read as an ssh destination and nothing
 * else (it reaches ssh's command line); COMPACTION_HUB names an endpoint, so
 * it is a file name without its .env. */
static void law_fleet(const struct endpoint *ep, struct findings *out)
{
	const char *host = val(ep, K_HOST);
	if (host && *host) {
		struct host_dest h;
		char *err = NULL;
		if (host_parse(host, &h, &err))
			add(out, "C02", SEV_ERROR, ep, K_HOST, "write [user@]host or ssh://[user@]host[:port]", "%s",
			    err);
		else
			host_free(&h);
		free(err);
	}
	const char *hub = val(ep, K_COMPACTION_HUB);
	if (hub && *hub) {
		size_t n = strspn(hub, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-");
		if (hub[n] || hub[0] == '-' || hub[0] == '.')
			add(out, "C02", SEV_ERROR, ep, K_COMPACTION_HUB, "name the hub's endpoint file without .env",
			    "'%s' is not an endpoint name (letters, digits, . _ -)", hub);
	}
	uint64_t gpu;
	if (!u64(ep, K_GPU, &gpu) && gpu > 255)
		add(out, "C02", SEV_ERROR, ep, K_GPU, "give the card's index (nvidia-smi -L)",
		    "GPU %llu: a card index is 0..255", (unsigned long long)gpu);
	const struct device *dev = device_find(val(ep, K_DEVICE));
	if (!u64(ep, K_GPU, &gpu) && dev && dev->backend == DEVICE_CPU && !*val(ep, K_DEVICES))
		add(out, "C02", SEV_WARNING, ep, K_GPU, "set DEVICE to the card's profile, or remove GPU",
		    "GPU=%llu on DEVICE=cpu: the engine uses no card, and the plan prices none",
		    (unsigned long long)gpu);
}

/* C13: ggml-vulkan's device list (ggml_vk_instance_init) without
 * GGML_VK_VISIBLE_DEVICES takes the discrete and integrated GPUs, else the
 * first device that is not CPU-type, else none: a CPU-type device such as
 * lavapipe is used only when that variable lists it, which GPU= sets. */
static void law_vk_cpu_type(const struct endpoint *ep, struct findings *out)
{
	const struct device *dev = device_find(val(ep, K_DEVICE));
	const struct vulkan_limits *l = dev && dev->backend == DEVICE_VULKAN ? vulkan_limits_of(dev->name) : NULL;
	if (l && l->cpu_type && !*val(ep, K_GPU)) {
		add(out, "C13", SEV_ERROR, ep, K_DEVICE,
		    "set GPU to its Vulkan index (vulkaninfo --summary; 0 on a host with no other Vulkan device)",
		    "DEVICE=%s without GPU: ggml-vulkan skips a CPU-type device unless GGML_VK_VISIBLE_DEVICES lists "
		    "it; the engine takes another GPU if the host has one, else none ('no usable GPU found, "
		    "--gpu-layers option will be ignored') and keeps weights, KV and compute on the CPU, where the "
		    "plan prices Vulkan0",
		    dev->name);
		return;
	}
	/* DEVICES: a CPU-type device among several Vulkan ones needs a list
	 * in GGML_VK_VISIBLE_DEVICES (0,0 for lavapipe twice), which GPU's one
	 * index cannot write */
	char list[256];
	snprintf(list, sizeof(list), "%s", val(ep, K_DEVICES));
	int n_vk = 0, cpu_type = 0;
	for (char *sv = NULL, *w = strtok_r(list, ",", &sv); w; w = strtok_r(NULL, ",", &sv)) {
		w[strcspn(w, ":")] = '\0';
		const struct device *d = device_find(w);
		const struct vulkan_limits *dl = d && d->backend == DEVICE_VULKAN ? vulkan_limits_of(d->name) : NULL;
		n_vk += d && d->backend == DEVICE_VULKAN;
		cpu_type |= dl && dl->cpu_type;
	}
	if (cpu_type && (n_vk > 1 || !*val(ep, K_GPU)))
		add(out, "C13", SEV_ERROR, ep, K_DEVICES,
		    "serve one CPU-type device with DEVICE and GPU; several need GGML_VK_VISIBLE_DEVICES=0,0 ..., "
		    "which "
		    "zealot does not write",
		    "DEVICES lists a CPU-type Vulkan device%s: the engine sees it only through "
		    "GGML_VK_VISIBLE_DEVICES, "
		    "and GPU writes one index there, so the engine has %s of the plan's devices",
		    n_vk > 1 ? " among several" : " without GPU", *val(ep, K_GPU) ? "one" : "none");
}

/* C02: USER becomes the unit's User= line, which takes a user name or a
 * UID and nothing else (no quoting, no second word). */
static void law_user(const struct endpoint *ep, struct findings *out)
{
	const char *u = val(ep, K_USER);
	if (!u || !*u)
		return;
	if (!quote_unit_user_ok(u))
		add(out, "C02", SEV_ERROR, ep, K_USER,
		    "name a user of the serving host (letters, digits, . _ -) or a UID",
		    "USER '%s' is not a user name: it becomes the unit's User= line", u);
}

/* C02: the placement keys name devices, buffers, shares and patterns the
 * engine has (place.c refuses what it would refuse or zealot cannot
 * mirror); the finding names the key at fault. */
static void law_placement(const struct endpoint *ep, struct findings *out)
{
	static const enum key_id keys[] = {K_OVERRIDE_TENSOR, K_TENSOR_SPLIT, K_SPLIT_MODE, K_DEVICES, K_DEVICE, K_RPC};
	struct place_request r = {0};
	uint64_t v;
	r.ngl = u64(ep, K_NGL, &v) ? 0 : (uint32_t)v;
	r.n_cpu_moe = u64(ep, K_N_CPU_MOE, &v) || v > 4096 ? 0 : (uint32_t)v;
	r.override_tensor = endpoint_value(ep, K_OVERRIDE_TENSOR);
	r.tensor_split = endpoint_value(ep, K_TENSOR_SPLIT);
	r.split_mode = endpoint_value(ep, K_SPLIT_MODE);
	r.rpc = endpoint_value(ep, K_RPC);
	r.devices = endpoint_value(ep, K_DEVICES);
	r.kv_offload = 1;
	const struct device *main = device_find(val(ep, K_DEVICE));
	if (!main) {
		char hint[320];
		add(out, "C02", SEV_ERROR, ep, K_DEVICE, device_unknown_hint(val(ep, K_DEVICE), hint, sizeof(hint)),
		    "DEVICE '%s' is not a known profile", val(ep, K_DEVICE));
		return;
	}
	char *err = NULL;
	if (place_check(&r, main, &err)) {
		enum key_id key = K_DEVICES;
		for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
			if (strncmp(err, key_name(keys[i]), strlen(key_name(keys[i]))) == 0 &&
			    err[strlen(key_name(keys[i]))] == ':') {
				key = keys[i];
				break;
			}
		add(out, "C02", SEV_ERROR, ep, key, "correct the value (README: Placement across devices)", "%s", err);
	}
	free(err);
	if (*val(ep, K_DEVICES) && main->backend != DEVICE_CPU)
		add(out, "C02", SEV_ERROR, ep, K_DEVICES, "leave DEVICE at cpu, or drop DEVICES",
		    "DEVICES lists every device and DEVICE names the card %s too: one of them would be ignored",
		    main->name);
}

static void law_cache_types(const struct endpoint *ep, struct findings *out)
{
	static const enum key_id keys[] = {K_CACHE_TYPE_K, K_CACHE_TYPE_V, K_SPEC_DRAFT_TYPE_K, K_SPEC_DRAFT_TYPE_V};
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		const char *v = val(ep, keys[i]);
		if (*v && !shape_cache_type(v))
			add(out, "S04", SEV_ERROR, ep, keys[i],
			    "use one of f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1",
			    "%s=%s is not a KV cache type the engine accepts (there is no fp8: q8_0 is the 8-bit "
			    "class)",
			    key_name(keys[i]), v);
	}
}

/* Every breach of the shape laws (plan/shape_laws.h), as findings. */
static void add_breaches(const struct endpoint *ep, const struct model *m, const struct plan_shape *s,
			 const struct cand_limits *l, unsigned which, struct findings *out)
{
	struct shape_breach b[16];
	size_t n = shape_laws(m, s, l, which, b, ARRAY_SIZE(b));
	for (size_t i = 0; i < n && i < ARRAY_SIZE(b); i++)
		add(out, b[i].law, SEV_ERROR, ep, b[i].key, b[i].fix, "%s", b[i].reason);
}

/* S20: a drafter model and SPEC_TYPE=draft-simple (or draft-eagle3,
 * draft-dflash: S22) come together. */
static void law_drafter_pair(const struct endpoint *ep, const char *spec, struct findings *out)
{
	const char *f = val(ep, K_SPEC_DRAFT_MODEL_FILE);
	int simple = strstr(spec, "draft-simple") || strstr(spec, "draft-eagle3") || strstr(spec, "draft-dflash");
	if (simple && !*f)
		add(out, "S20", SEV_ERROR, ep, K_SPEC_TYPE, "set SPEC_DRAFT_MODEL_FILE to the drafter GGUF",
		    "SPEC_TYPE=%s names a drafter model, and no SPEC_DRAFT_MODEL_FILE gives it one", spec);
	if (!simple && *f && strcmp(spec, "none") != 0 && !strstr(spec, "draft-mtp")) /* draft-mtp: S21 */
		add(out, "S20", SEV_ERROR, ep, K_SPEC_DRAFT_MODEL_FILE, "set SPEC_TYPE=draft-simple, or remove it",
		    "SPEC_DRAFT_MODEL_FILE is set while SPEC_TYPE=%s: the engine would load it as that drafter's "
		    "model",
		    spec);
}

/* S20: the drafter's vocabulary is its target's, as the engine demands. */
static void law_drafter_vocab(const struct endpoint *ep, const struct shape_ctx *c, struct findings *out)
{
	char why[192];
	if (c->draft && c->model && gguf_vocab_incompatible(c->model->g, c->draft->g, why, sizeof(why)))
		add(out, "S20", SEV_ERROR, ep, K_SPEC_DRAFT_MODEL_FILE, "use a drafter with the target's tokenizer",
		    "the engine refuses this drafter beside this target (common_speculative_are_compatible): %s; "
		    "it then serves without drafting, the drafter's memory held for nothing",
		    why);
}

/* S21: a gemma4-assistant drafts as draft-mtp beside a gemma4 target, and
 * draft-mtp takes no other drafter file (the engine's MTP driver feeds it
 * the target's hidden state and shares the target's last two layers' KV,
 * src/llama-model.cpp create_memory) */
static void law_drafter_assistant(const struct endpoint *ep, const struct shape_ctx *c, struct findings *out)
{
	if (!c->draft_census || !c->census)
		return;
	const struct model *d = c->draft_census->model, *t = c->census->model;
	int mtp = strstr(val(ep, K_SPEC_TYPE), "draft-mtp") != NULL;
	int assist = strcmp(d->arch, "gemma4-assistant") == 0;
	uint64_t out_w = 0;
	const struct gguf_kv *kv = gguf_findf(c->draft->g, "%s.embedding_length_out", d->arch);
	if (mtp && !assist)
		add(out, "S21", SEV_ERROR, ep, K_SPEC_DRAFT_MODEL_FILE,
		    "use a gemma4-assistant drafter, or SPEC_TYPE=draft-simple",
		    "SPEC_TYPE=draft-mtp with a drafter file runs only a gemma4-assistant; this one is '%s'", d->arch);
	else if (assist && !mtp)
		add(out, "S21", SEV_ERROR, ep, K_SPEC_TYPE, "set SPEC_TYPE=draft-mtp",
		    "a gemma4-assistant drafter runs only as draft-mtp (it reads its target's hidden state)");
	else if (assist && strcmp(t->arch, "gemma4") != 0)
		add(out, "S21", SEV_ERROR, ep, K_SPEC_DRAFT_MODEL_FILE, "serve it beside its gemma4 target",
		    "a gemma4-assistant drafts only beside a gemma4 target (it shares the target's KV cache); the "
		    "target is '%s'",
		    t->arch);
	else if (assist && (!kv || gguf_kv_u64(kv, &out_w) || out_w != t->n_embd))
		add(out, "S21", SEV_ERROR, ep, K_SPEC_DRAFT_MODEL_FILE, "use the assistant made for this target",
		    "the assistant reads a hidden state of %llu (embedding_length_out), its target's is %u",
		    (unsigned long long)out_w, t->n_embd);
}

/* S22: an eagle3 or dflash drafter runs as its own SPEC_TYPE beside a
 * target that gives it what it reads (common/speculative.cpp,
 * src/models/eagle3.cpp, src/models/dflash.cpp). */
static const char *hidden_drafter_why(const struct shape_ctx *c, const char *spec, char *buf, size_t n)
{
	const struct model *d = c->draft_census->model, *t = c->census->model;
	int e3 = strcmp(d->arch, "eagle3") == 0, df = strcmp(d->arch, "dflash") == 0;
	int want_e3 = strstr(spec, "draft-eagle3") != NULL, want_df = strstr(spec, "draft-dflash") != NULL;
	/* common/speculative.cpp's words when the type meets another drafter */
	static const char *const type_why[][3] = {{"draft-eagle3", "eagle3", "draft model is not eagle3"},
						  {"draft-dflash", "dflash", "DFlash model has no target_layer_ids"}};
	for (size_t i = 0; i < ARRAY_SIZE(type_why); i++)
		if (strstr(spec, type_why[i][0]) && strcmp(d->arch, type_why[i][1]) != 0)
			return snprintf(buf, n, "%s runs only a%s %s drafter (\"%s\"); this one is '%s'",
					type_why[i][0], i ? "" : "n", type_why[i][1], type_why[i][2], d->arch),
			       buf;
	if ((e3 && !want_e3) || (df && !want_df))
		return snprintf(buf, n,
				"a %s drafter reads its target's hidden states and runs only as "
				"SPEC_TYPE=draft-%s (another context has no ctx_other: \"%s requires ctx_other to be "
				"set\")",
				d->arch, d->arch, d->arch),
		       buf;
	if (!e3 && !df)
		return NULL;
	if (gr_records_layer_inp(t->arch) == 0)
		return snprintf(buf, n,
				"the target's graph ('%s') records no layer inputs for it to read (the engine "
				"asserts \"layer input tensor is null\")",
				t->arch),
		       buf;
	const struct gguf_kv *kv = gguf_findf(c->draft->g, "%s.target_layers", d->arch);
	for (uint64_t i = 0; kv && i < kv->arr_n; i++) {
		uint64_t id = 0;
		if (gguf_arr_u64(kv, i, &id) == 0 && id > t->n_layer_all)
			return snprintf(buf, n,
					"it reads target layer %llu, and the target has %u (\"target layer id "
					"exceeds target n_layer\")",
					(unsigned long long)id, t->n_layer_all),
			       buf;
	}
	uint64_t w = d->n_embd;
	const struct gguf_kv *hs = e3 ? gguf_findf(c->draft->g, "eagle3.target_hidden_size") : NULL;
	if (hs && gguf_kv_u64(hs, &w) == 0 && w != t->n_embd)
		return snprintf(buf, n,
				"its fc fuses target layers %llu wide (target_hidden_size), the target's "
				"are %u (ggml_can_mul_mat fails)",
				(unsigned long long)w, t->n_embd),
		       buf;
	if (d->n_embd != t->n_embd && !gguf_tensor_find(c->draft->g, "output.weight"))
		return snprintf(buf, n,
				"it projects its %u-wide state through the target's output (it has no "
				"output.weight), whose rows are %u wide (ggml_can_mul_mat fails)",
				d->n_embd, t->n_embd),
		       buf;
	return NULL;
}

static void law_drafter_hidden(const struct endpoint *ep, const struct shape_ctx *c, struct findings *out)
{
	char why[320];
	if (!c->draft_census || !c->census || !c->draft)
		return;
	if (hidden_drafter_why(c, val(ep, K_SPEC_TYPE), why, sizeof(why)))
		add(out, "S22", SEV_ERROR, ep, K_SPEC_DRAFT_MODEL_FILE,
		    "serve the eagle3 or dflash drafter made for this target as its own SPEC_TYPE", "%s", why);
}

static void law_shape(const struct endpoint *ep, struct findings *out)
{
	uint64_t par = 1;
	if (!endpoint_value(ep, K_CTX_SIZE))
		add(out, "S01", SEV_ERROR, ep, K_CTX_SIZE, "set CTX_SIZE to the pool: slots x the per-slot window",
		    "CTX_SIZE is not set: the engine would size the pool itself (--fit maximises the total and shrinks "
		    "each slot)");
	if (u64(ep, K_PARALLEL, &par) == 0 && par > 1 && (extra_has(ep, "--fit") || extra_has(ep, "-fit")) &&
	    (strstr(val(ep, K_EXTRA_ARGS), "fit on") || strstr(val(ep, K_EXTRA_ARGS), "fit=on")))
		add(out, "S01", SEV_ERROR, ep, K_EXTRA_ARGS, "remove --fit from EXTRA_ARGS; zealot passes --fit off",
		    "--fit with PARALLEL %llu maximises the total pool and shrinks each slot", (unsigned long long)par);
	/* the shape laws the values alone decide (plan/shape_laws.h); a value
	 * that does not read is law_values' finding */
	struct plan_shape s;
	struct plan_extras x;
	struct cand_limits l;
	if (shape_read(ep, &s, &x, &l, NULL) == 0)
		add_breaches(ep, NULL, &s, &l, SHAPE_LAWS_STATIC, out);
	/* speculative flags move as a set (S05) */
	const char *spec = val(ep, K_SPEC_TYPE);
	if (extra_has(ep, "--spec-type") || extra_has(ep, "--spec-draft-n-max") ||
	    extra_has(ep, "--spec-draft-n-min") || extra_has(ep, "--spec-draft-p-min") ||
	    extra_has(ep, "--draft-max") || extra_has(ep, "--model-draft"))
		add(out, "S05", SEV_ERROR, ep, K_EXTRA_ARGS, "use the SPEC_* keys; zealot renders the set whole",
		    "speculative flags in EXTRA_ARGS make half a set (half a set has segfaulted at load)");
	if (strcmp(spec, "none") == 0) {
		static const enum key_id keys[] = {K_SPEC_DRAFT_N_MAX,	K_SPEC_DRAFT_N_MIN,  K_SPEC_DRAFT_P_MIN,
						   K_SPEC_DRAFT_TYPE_K, K_SPEC_DRAFT_TYPE_V, K_SPEC_DRAFT_MODEL_FILE};
		for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
			if (endpoint_entry(ep, keys[i])->value)
				add(out, "S05", SEV_WARNING, ep, keys[i], "remove it, or arm a drafter with SPEC_TYPE",
				    "%s is set while SPEC_TYPE=none strips every --spec-* flag: the value reaches "
				    "nothing",
				    key_name(keys[i]));
	}
	law_drafter_pair(ep, spec, out);
	int n_ctx_drafters = 0;
	static const char *const context_drafters[] = {"draft-mtp", "draft-simple", "draft-eagle3", "draft-dflash",
						       "draft-dspark"};
	for (size_t i = 0; i < ARRAY_SIZE(context_drafters); i++)
		n_ctx_drafters += strstr(spec, context_drafters[i]) != NULL;
	if (n_ctx_drafters > 1)
		add(out, "S07", SEV_ERROR, ep, K_SPEC_TYPE,
		    "keep one context-backed drafter (draft-mtp,ngram-mod is the legal pair)",
		    "SPEC_TYPE=%s names two context-backed drafters; they cannot share a process", spec);
	/* defaults that keep the endpoint observable */
	int metrics = 1;
	char *err = NULL;
	if (endpoint_bool(ep, K_METRICS, &metrics, &err) == 0 && !metrics)
		add(out, "C04", SEV_WARNING, ep, K_METRICS, "remove METRICS=0 unless nothing scrapes this endpoint",
		    "without --metrics the engine answers /metrics with 501, which monitoring reads as DOWN while "
		    "/health says 200");
	free(err);
	uint64_t verbosity = 4;
	if (u64(ep, K_VERBOSITY, &verbosity) == 0 && verbosity != 4)
		add(out, "C05", SEV_WARNING, ep, K_VERBOSITY, "keep VERBOSITY=4", "verbosity %llu %s",
		    (unsigned long long)verbosity,
		    verbosity < 4 ? "cannot prove the KV, draft and state sizes (no boot ledger)"
				  : "floods the journal");
	const char *bind = val(ep, K_BIND_ADDR);
	char *key_file = endpoint_path(ep, K_API_KEY_FILE);
	int has_key = key_file != NULL;
	free(key_file);
	if (strcmp(bind, "127.0.0.1") != 0 && strcmp(bind, "localhost") != 0 && strcmp(bind, "::1") != 0 &&
	    strncmp(bind, "127.", 4) != 0 && !has_key)
		add(out, "S13", SEV_WARNING, ep, K_BIND_ADDR, "set API_KEY_FILE, or bind to 127.0.0.1",
		    "BIND_ADDR=%s with no API key exposes the endpoint to the network", bind);
}

/* C03 for a split payload: every shard must be there and belong (its
 * split.no and split.count, the tensor total), or the engine fails at load. */
static void law_shards(const struct endpoint *ep, enum key_id key, const char *path, const char *fix,
		       struct findings *out)
{
	size_t plen;
	unsigned no, n;
	if (split_name_parse(path, &plen, &no, &n) || n < 2)
		return;
	for (unsigned k = 1; k <= n; k++) {
		char *s = split_shard_name(path, k, n);
		struct stat st;
		if (stat(s, &st) != 0) {
			add(out, "C03", SEV_ERROR, ep, key, fix,
			    "%s: shard %u of %u '%s' does not exist: the engine would fail at load", key_name(key), k,
			    n, s);
			free(s);
			return;
		}
		free(s);
	}
	char *err = NULL;
	struct gguf_file *f = payload_open(path, NULL, NULL, &err);
	if (!f)
		add(out, "C03", SEV_ERROR, ep, key, "fetch the payload's shards again (zealot fetch verifies them)",
		    "%s: %s", key_name(key), err);
	free(err);
	gguf_close(f);
}

/* Can the engine read the file at p: as USER when one is set (the unit's
 * User=; checked by the mode bits and the user's primary group), else as
 * this process. Else 0, and the fix in why: its mode, owner and who reads. */
static int readable_by(const struct stat *st, const char *p, const char *user, char *why, size_t n)
{
	int ok;
	struct passwd *pw = user && *user ? getpwnam(user) : NULL;
	if (pw)
		ok = pw->pw_uid == 0 || (pw->pw_uid == st->st_uid && (st->st_mode & S_IRUSR)) ||
		     (pw->pw_gid == st->st_gid && (st->st_mode & S_IRGRP)) || (st->st_mode & S_IROTH);
	else
		ok = access(p, R_OK) == 0;
	if (ok)
		return 1;
	struct passwd *o = getpwuid(st->st_uid);
	struct group *g = getgrgid(st->st_gid);
	char owner[96];
	snprintf(owner, sizeof(owner), "%s:%s", o ? o->pw_name : "?", g ? g->gr_name : "?");
	snprintf(why, n, "it is mode %04o, owner %s; %s: chmod o+r, or chown it to %s", (unsigned)(st->st_mode & 07777),
		 owner, pw ? "the unit runs as USER" : "this user cannot read it",
		 pw ? pw->pw_name : "the user that reads it (USER= names the unit's)");
	return 0;
}

static void law_files(const struct endpoint *ep, struct findings *out)
{
	static const enum key_id keys[] = {K_MODEL_FILE, K_MMPROJ_FILE, K_LORA_FILE, K_API_KEY_FILE,
					   K_SPEC_DRAFT_MODEL_FILE};
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		char *p = endpoint_path(ep, keys[i]);
		if (!p) {
			/* set but empty is C02's, one finding for one line */
			if (i == 0 && !endpoint_is_empty(ep, K_MODEL_FILE))
				add(out, "C03", SEV_ERROR, ep, K_MODEL_FILE, "set MODEL_FILE to the payload",
				    "MODEL_FILE is not set");
			continue;
		}
		struct stat st;
		/* MODEL_FILE has no opt-out: its fix never says empty (C02) */
		const char *fix =
		    endpoint_has_url(ep, keys[i])
			? "run `zealot fetch` (the endpoint names its URL), or correct the path"
		    : i == 0 ? "correct the path, or name the payload's URL in MODEL_URL and run `zealot fetch`"
			     : "fetch the file, or correct the path (or opt out with an empty value)";
		char why[320];
		if (stat(p, &st) != 0)
			add(out, "C03", SEV_ERROR, ep, keys[i], fix,
			    "%s '%s' does not exist: a refusal, never a half-load", key_name(keys[i]), p);
		else if (!S_ISREG(st.st_mode))
			add(out, "C03", SEV_ERROR, ep, keys[i], "point it at a regular file",
			    "%s '%s' is not a regular file (%s)", key_name(keys[i]), p,
			    S_ISFIFO(st.st_mode)  ? "a FIFO"
			    : S_ISCHR(st.st_mode) ? "a character device"
			    : S_ISDIR(st.st_mode) ? "a directory"
			    : S_ISBLK(st.st_mode) ? "a block device"
						  : "a socket");
		else if (!readable_by(&st, p, val(ep, K_USER), why, sizeof(why)))
			add(out, "C03", SEV_ERROR, ep, keys[i], why, "%s '%s' is not readable by %s", key_name(keys[i]),
			    p, *val(ep, K_USER) ? "USER" : "this user");
		else if (keys[i] != K_API_KEY_FILE)
			law_shards(ep, keys[i], p, fix, out);
		free(p);
	}
}

static int tensors_mostly(const struct gguf *g, uint32_t type)
{
	uint64_t hit = 0, all = 0;
	for (uint64_t i = 0; i < g->n_tensors; i++) {
		if (g->tensors[i].n_dims < 2)
			continue;
		all++;
		hit += g->tensors[i].type == type;
	}
	return all && hit * 2 > all;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* S15: whether the runtime knows the architecture is read from its source
 * tree (src/llama-arch.cpp beside the build), never from the binary. */
/* S15 without the runtime's source tree: the pinned engine's own list
 * (payload/archs.c, generated from its llama-arch.cpp). */
static void law_pinned_arch(const struct endpoint *ep, const char *arch, struct findings *out)
{
	if (archs_known(arch))
		return;
	add(out, "S15", SEV_ERROR, ep, K_MODEL_FILE,
	    "serve it with a runtime whose source names the architecture (RUNTIME in its build tree is read)",
	    "the pinned engine knows no architecture '%s' (%zu names in %s): it refuses to load this payload", arch,
	    archs_engine_count, archs_engine_source);
}

static void law_runtime_arch(const struct endpoint *ep, const char *arch, struct findings *out)
{
	const char *rt = val(ep, K_RUNTIME);
	char *path = strchr(rt, '/') ? endpoint_path(ep, K_RUNTIME) : NULL;
	char *slash = path ? strrchr(path, '/') : NULL;
	if (!slash) {
		free(path);
		law_pinned_arch(ep, arch, out);
		return;
	}
	*slash = '\0';
	static const char *const rel[] = {"/../../src/llama-arch.cpp", "/../../src/src/llama-arch.cpp",
					  "/../src/llama-arch.cpp"};
	for (size_t i = 0; i < ARRAY_SIZE(rel); i++) {
		struct sb f = {0};
		sb_addf(&f, "%s%s", path, rel[i]);
		FILE *fp = fopen(f.s, "r");
		if (!fp) {
			sb_release(&f);
			continue;
		}
		struct sb want = {0};
		sb_addf(&want, "\"%s\"", arch);
		char line[1024];
		int found = 0;
		while (!found && fgets(line, sizeof(line), fp))
			found = strstr(line, want.s) != NULL;
		fclose(fp);
		if (!found)
			add(out, "S15", SEV_ERROR, ep, K_RUNTIME,
			    "point RUNTIME at a build whose source names the architecture",
			    "the runtime's source tree (%s) names no architecture '%s': it cannot load this payload",
			    f.s, arch);
		sb_release(&want);
		sb_release(&f);
		free(path);
		return;
	}
	free(path);
	law_pinned_arch(ep, arch, out);
}

/* C07: the general.sampling.* keys the engine reads from a GGUF (llama.cpp's
 * LLM_KV_GENERAL_SAMPLING_*). Any other sampler the payload states is
 * dropped, unless the endpoint passes it on argv: only then is it warned
 * (a payload that states none, or only these, is no finding). */
static int sampler_read(const char *k)
{
	static const char *const read[] = {"sequence",	      "top_k",	       "top_p",	       "min_p",
					   "xtc_probability", "xtc_threshold", "temp",	       "penalty_last_n",
					   "penalty_repeat",  "mirostat",      "mirostat_tau", "mirostat_eta"};
	for (size_t i = 0; i < ARRAY_SIZE(read); i++)
		if (strcmp(k, read[i]) == 0)
			return 1;
	return 0;
}

static void law_sampling(const struct endpoint *ep, const struct census *cs, struct findings *out)
{
	for (size_t i = 0; i < cs->n_sampling; i++) {
		const char *k = cs->sampling[i].key;
		double v = cs->sampling[i].value;
		char fix[160];
		if (sampler_read(k))
			continue;
		if (strcmp(k, "presence_penalty") == 0) {
			/* set, or set empty: the endpoint decided */
			if (endpoint_entry(ep, K_PRESENCE_PENALTY)->value)
				continue;
			snprintf(fix, sizeof(fix),
				 "write PRESENCE_PENALTY=%g (the payload's value), or PRESENCE_PENALTY= to drop it "
				 "knowingly",
				 v);
			add(out, "C07", SEV_WARNING, ep, K_PRESENCE_PENALTY, fix,
			    "the payload states presence_penalty %g (general.sampling.presence_penalty), which the "
			    "engine does not read from a GGUF: without PRESENCE_PENALTY no request gets it",
			    v);
		} else if (strcmp(k, "frequency_penalty") == 0) {
			if (extra_has(ep, "--frequency-penalty"))
				continue;
			snprintf(fix, sizeof(fix), "add --frequency-penalty %g to EXTRA_ARGS, or send it per request",
				 v);
			add(out, "C07", SEV_WARNING, ep, K_EXTRA_ARGS, fix,
			    "the payload states frequency_penalty %g (general.sampling.frequency_penalty), which the "
			    "engine does not read from a GGUF: no request gets it",
			    v);
		} else {
			add(out, "C07", SEV_INFO, ep, NO_KEY, "send it per request if the model needs it",
			    "the payload states general.sampling.%s %g, a key the engine does not read", k, v);
		}
	}
}

static void law_payload(const struct endpoint *ep, const struct shape_ctx *c, const struct laws_evidence *ev,
			struct findings *out)
{
	if (!c || !c->census || !c->census->model)
		return;
	law_runtime_arch(ep, c->census->model->arch, out);
	const char *unserved = archs_unserved(c->census->model->arch); /* S18 */
	if (unserved)
		add(out, "S18", SEV_ERROR, ep, K_MODEL_FILE,
		    "serve it the way its engine tool does, or serve another model",
		    "llama-server cannot serve '%s' as a model: %s", c->census->model->arch, unserved);
	char *lerr = NULL; /* S17: a shape the engine's loader refuses */
	if (c->model && loader_check(c->model->g, c->census->model, &lerr))
		add(out, "S17", SEV_ERROR, ep, K_MODEL_FILE, "re-convert or fetch a payload whose tensors match it",
		    "%s", lerr);
	free(lerr);
	char ubuf[512]; /* S17: an architecture whose attention shapes zealot does not mirror, said */
	const char *unm = c->model ? loader_unmirrored(c->model->g, c->census->model, ubuf, sizeof(ubuf)) : NULL;
	if (unm)
		add(out, "S17", SEV_INFO, ep, K_MODEL_FILE, "the engine's loader alone judges these shapes", "%s", unm);
	if (c->model)
		law_amx(ep, c, ev, out);
	const struct census *cs = c->census;
	const struct model *m = cs->model;
	const struct plan_shape *s = &c->shape;
	law_sampling(ep, cs, out);
	/* S02, S04, S06: the shape laws against the payload (plan/shape_laws.h) */
	struct cand_limits l;
	if (cand_limits(ep, m, NULL, &l, NULL) == 0)
		add_breaches(ep, m, s, &l, SHAPE_LAWS_PAYLOAD, out);
	/* S07: ngram-mod on a recurrent model disables state rollback */
	if (strstr(val(ep, K_SPEC_TYPE), "ngram-mod") && m->n_kind[LAYER_RECURRENT])
		add(out, "S07", SEV_WARNING, ep, K_SPEC_TYPE, "drop ngram-mod on hybrid models",
		    "ngram-mod on a recurrent (hybrid) model disables state rollback: rejected drafts degrade output "
		    "silently");
	/* S10: custom types and vendor transforms lock the payload to a runtime */
	for (size_t i = 0; i < cs->n_types; i++)
		if (!cs->types[i].name)
			add(out, "S10", SEV_WARNING, ep, K_MODEL_FILE, "pin RUNTIME to the build that defines the type",
			    "the payload has %llu tensors of custom ggml type %u: a stock build refuses it",
			    (unsigned long long)cs->types[i].count, cs->types[i].type);
	for (size_t i = 0; i < cs->n_families; i++)
		add(out, "S10", SEV_WARNING, ep, K_MODEL_FILE, "pin RUNTIME to a build that reads these keys",
		    "vendor metadata %s.* (%llu keys): a loader that ignores a transform dequantizes wrongly and "
		    "silently",
		    cs->families[i].prefix, (unsigned long long)cs->families[i].keys);
	law_drafter_vocab(ep, c, out);
	law_drafter_assistant(ep, c, out);
	law_drafter_hidden(ep, c, out);
	/* S11: BF16 projector under concurrency */
	if (c->projector && s->parallel > 1 && tensors_mostly(c->projector->g, 30))
		add(out, "S11", SEV_WARNING, ep, K_MMPROJ_FILE, "use the Q8_0 projector",
		    "a BF16 projector can crash the engine under concurrent image requests; PARALLEL is %u",
		    s->parallel);
	/* S12: adapter provenance and reach */
	if (c->lora) {
		char *err = NULL;
		struct census *lc = census_take(c->lora->g, &err);
		free(err);
		if (lc && !lc->is_adapter)
			add(out, "S12", SEV_ERROR, ep, K_LORA_FILE, "point LORA_FILE at an adapter",
			    "LORA_FILE is not an adapter");
		if (lc && lc->touches_token_embd)
			add(out, "S12", SEV_ERROR, ep, K_LORA_FILE,
			    "use an adapter that leaves the embedding untouched",
			    "the adapter touches token_embd: a crash, not a degradation");
		const struct gguf_kv *la = gguf_find(c->lora->g, "general.architecture");
		if (la && la->type == GGUF_STRING &&
		    (la->v.s.n != strlen(m->arch) || memcmp(la->v.s.p, m->arch, la->v.s.n)))
			add(out, "S12", SEV_ERROR, ep, K_LORA_FILE, "use an adapter for this architecture",
			    "the adapter is for %.*s, the payload is %s", (int)la->v.s.n, la->v.s.p, m->arch);
		if (lc && lc->adapter_base && strcmp(base_name(lc->adapter_base), base_name(c->model_path)) != 0)
			add(out, "S12", SEV_WARNING, ep, K_LORA_FILE,
			    "prove its effect with a behaviour probe, not the card",
			    "the adapter was fitted against %s, not %s: the loader matches tensor names, not hashes",
			    lc->adapter_base, base_name(c->model_path));
		census_free(lc);
	}
	/* C02: placement keys that take nothing from this payload */
	if (s->place.n_cpu_moe && !m->n_expert)
		add(out, "C02", SEV_WARNING, ep, K_N_CPU_MOE, "remove it: the payload is dense",
		    "N_CPU_MOE=%u, but the payload has no experts: nothing moves", s->place.n_cpu_moe);
	else if (s->place.n_cpu_moe > m->n_layer_all)
		add(out, "C02", SEV_WARNING, ep, K_N_CPU_MOE, "lower it to the block count",
		    "N_CPU_MOE=%u but the payload has %u blocks", s->place.n_cpu_moe, m->n_layer_all);
	if (s->place.override_tensor && *s->place.override_tensor) {
		struct place_request rq = s->place;
		rq.n_cpu_moe = 0;
		rq.ngl = s->ngl;
		struct placement pl;
		if (place_make(&rq, c->dev, m, &pl, NULL) == 0) {
			unsigned *hits = xcalloc(pl.n_over ? pl.n_over : 1, sizeof(*hits));
			place_override_hits(&pl, c->model->g, hits);
			for (unsigned i = 0; i < pl.n_over; i++)
				if (!hits[i])
					add(out, "C02", SEV_WARNING, ep, K_OVERRIDE_TENSOR,
					    "check the pattern against `zealot inspect`'s tensor names",
					    "OVERRIDE_TENSOR's pattern %u places no tensor of this payload (an earlier "
					    "pattern takes its matches, or none match)",
					    i + 1);
			free(hits);
			place_release(&pl);
		}
	}

	/* A08: the template's accepted reasoning_effort values */
	if (cs->has_template && cs->tpl.n_effort) {
		struct sb b = {0};
		for (size_t i = 0; i < cs->tpl.n_effort; i++)
			sb_addf(&b, "%s%s", i ? "|" : "", cs->tpl.effort[i]);
		add(out, "A08", SEV_INFO, ep, NO_KEY, "map clients' levels onto these (zealot emit harness does)",
		    "the chat template accepts reasoning_effort %s only%s", b.s,
		    cs->tpl.raises ? " and raises (HTTP 500) on any other" : "");
		sb_release(&b);
	}
}

static void law_fit(const struct endpoint *ep, const struct shape_ctx *c, const struct plan *p, struct findings *out)
{
	if (!p)
		return;
	double free_mib = (double)p->free_bytes / (1024.0 * 1024.0);
	if (!p->fits) {
		/* every device held to its own memory: one finding per device short of it */
		for (unsigned i = 0; i < p->n_devs; i++) {
			const struct plan_dev *d = &p->devs[i];
			if (d->fits)
				continue;
			const char *where = p->n_cards ? d->name : p->device->name;
			add(out, "M09", SEV_ERROR, ep, K_CTX_SIZE,
			    "shrink the pool, quantize the cache, disarm the drafter, lower UBATCH_SIZE or move layers "
			    "(NGL, TENSOR_SPLIT, N_CPU_MOE; zealot plan shows each term per device)",
			    "the plan leaves %s MiB free on %s, below the %s MiB slack band",
			    FMT_MIB((double)d->free_bytes / (1024.0 * 1024.0)), where, FMT_MIB(plan_mib(d->slack)));
		}
	} else if (c && c->shape.spec_mtp && p->has_draft) {
		uint64_t draft = p->draft_kv.k_bytes + p->draft_kv.v_bytes;
		for (unsigned i = 0; i < p->n_draft_compute; i++)
			draft += p->draft_compute[i].bytes;
		if (p->free_bytes < (int64_t)(p->slack + p->slack))
			add(out, "S09", SEV_WARNING, ep, K_SPEC_TYPE,
			    "measure decode with and without the drafter before keeping it",
			    "the armed drafter costs %s MiB and leaves %s MiB free: speculation pays only with "
			    "room on the card",
			    FMT_MIB(plan_mib(draft)), FMT_MIB(free_mib));
	}
}

size_t laws_check(const struct endpoint *ep, const struct shape_ctx *c, const struct plan *p, unsigned which,
		  struct findings *out)
{
	return laws_check_with(ep, c, p, which, NULL, out);
}

size_t laws_check_with(const struct endpoint *ep, const struct shape_ctx *c, const struct plan *p, unsigned which,
		       const struct laws_evidence *ev, struct findings *out)
{
	size_t before = out->n;
	if (which & LAWS_STATIC) {
		law_c02(ep, out);
		law_values(ep, out);
		law_gated(ep, out);
		law_extra_flags(ep, out);
		law_fleet(ep, out);
		law_vk_cpu_type(ep, out);
		law_user(ep, out);
		law_cache_types(ep, out);
		law_placement(ep, out);
		law_shape(ep, out);
		law_runtime(ep, out);
	}
	if (which & LAWS_FILES)
		law_files(ep, out);
	if (which & LAWS_RUNTIME)
		law_runtime_flags(ep, out);
	if (which & LAWS_PAYLOAD)
		law_payload(ep, c, ev, out);
	if (which & LAWS_FIT)
		law_fit(ep, c, p, out);
	size_t errors = 0;
	for (size_t i = before; i < out->n; i++)
		errors += out->v[i].sev == SEV_ERROR;
	return errors;
}
