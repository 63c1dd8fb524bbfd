#include "router_swap.h"

#include <math.h>
#include <string.h>

#include "../endpoint/quote.h"

/* A YAML double-quoted scalar. */
static void yq(struct sb *out, const char *s)
{
	sb_addf(out, "\"");
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			sb_addf(out, "\\%c", *s);
		else
			sb_addf(out, "%c", *s);
	}
	sb_addf(out, "\"");
}

/* Keys the router lays over a member, given on serve's command line. */
static const enum key_id laid[] = {K_RUNTIME,	K_RUNTIME_SHA256, K_RUNTIME_MIN_BUILD, K_VERBOSITY,
				   K_DEVICE,	K_CUDA_FA_QUANTS, K_CUDA_FA_SCRATCH,   K_ADDRESSABLE_MIB,
				   K_SLACK_MIB, K_CPU_FEATURES,	  K_HOST_BW_GBS,       K_API_KEY_FILE};

static void cmd_line(struct sb *out, const struct router_price *rp, size_t i, const char *zealot)
{
	struct sb c = {0}, kv = {0};
	quote_shell_word(&c, zealot);
	sb_addf(&c, " serve ");
	quote_shell_word(&c, rp->r.m[i].path);
	for (size_t k = 0; k < ARRAY_SIZE(laid); k++) {
		const char *v = endpoint_entry(rp->r.ep, laid[k])->value;
		if (!v)
			continue;
		kv.len = 0;
		if (laid[k] == K_RUNTIME || laid[k] == K_API_KEY_FILE) {
			char *p = endpoint_path(rp->r.ep, laid[k]);
			sb_addf(&kv, "%s=%s", key_name(laid[k]), p ? p : v);
			free(p);
		} else {
			sb_addf(&kv, "%s=%s", key_name(laid[k]), v);
		}
		sb_addf(&c, " --set ");
		quote_shell_word(&c, kv.s);
	}
	sb_addf(&c, " --set ALIAS=%s --set BIND_ADDR=127.0.0.1 --set LISTEN_PORT=${PORT}", rp->r.m[i].name);
	sb_addf(out, "    cmd: ");
	yq(out, c.s);
	sb_addf(out, "\n");
	sb_release(&c);
	sb_release(&kv);
}

void router_swap_render(const struct router_price *rp, const char *zealot, struct sb *out)
{
	sb_addf(out,
		"# llama-swap configuration for %s, written by zealot emit llama-swap: every set below\n"
		"# fits together on every device (zealot plan); a model outside a set runs alone.\n",
		rp->r.ep->name);
	sb_addf(out, "models:\n");
	for (size_t i = 0; i < rp->r.n; i++) {
		sb_addf(out, "  ");
		yq(out, rp->r.m[i].name);
		sb_addf(out, ":\n");
		cmd_line(out, rp, i, zealot);
		sb_addf(out, "    proxy: \"http://127.0.0.1:${PORT}\"\n");
	}
	sb_addf(out, "routing:\n  router:\n    use: matrix\n    settings:\n      matrix:\n        vars:\n");
	for (size_t i = 0; i < rp->r.n; i++) {
		sb_addf(out, "          m%zu: ", i + 1);
		yq(out, rp->r.m[i].name);
		sb_addf(out, "\n");
	}
	sb_addf(out, "        evict_costs:\n");
	for (size_t i = 0; i < rp->r.n; i++) {
		double ms = ceil(rp->m[i].swap_ms);
		sb_addf(out, "          m%zu: %.0f\n", i + 1, ms < 1 ? 1.0 : ms);
	}
	sb_addf(out, "        sets:\n");
	for (size_t s = 0; s < rp->n_maximal; s++) {
		sb_addf(out, "          fit%zu: \"", s + 1);
		int first = 1;
		for (size_t i = 0; i < rp->r.n; i++)
			if (rp->maximal[s] & (1u << i)) {
				sb_addf(out, "%sm%zu", first ? "" : " & ", i + 1);
				first = 0;
			}
		sb_addf(out, "\"\n");
	}
}
