/* The key table (endpoint/keys.h): every row is its id's, every numeric
 * key's range edges hold (the engine's own int32 limit, never a wrapped
 * number), every flag a row renders is one it owns, and every spelling the
 * engine accepts for an owned flag finds its row. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "endpoint/endpoint.h"
#include "endpoint/flags.h"
#include "endpoint/keys.h"
#include "plan/shape.h"
#include "tap.h"

/* Whether key_parse_uint accepts the decimal text of v. */
static int takes(const struct key_def *k, const char *v, uint64_t *out)
{
	char *err = NULL;
	int rc = key_parse_uint(k, v, out, &err);
	int named = rc == 0 || (err && strstr(err, k->name) && strstr(err, v));
	free(err);
	return rc == 0 ? 1 : named ? 0 : -1; /* -1: refused without naming key and value */
}

static void ranges(void)
{
	int rows = 0, bad = 0, int32_rows = 0, wrapped_refused = 0;
	for (size_t i = 0; i < keys_count(); i++) {
		const struct key_def *k = keys_at(i);
		if (k->kind != KEY_UINT)
			continue;
		rows++;
		char lo[32], hi[32], over[32], under[32];
		uint64_t v = 0;
		snprintf(lo, sizeof(lo), "%" PRId64, k->min);
		snprintf(hi, sizeof(hi), "%" PRId64, k->max);
		snprintf(over, sizeof(over), "%" PRIu64, (uint64_t)k->max + 1);
		snprintf(under, sizeof(under), "%" PRId64, k->min - 1);
		int ok_lo = takes(k, lo, &v) == 1 && v == (uint64_t)k->min;
		int ok_hi = takes(k, hi, &v) == 1 && v == (uint64_t)k->max;
		int no_over = takes(k, over, &v) == 0;
		int no_under = takes(k, under, &v) == 0; /* -1 is no whole number; below min is out of range */
		/* 2^32 + 1 wraps to 1 in 32 bits, 2^64 + 1 to 1 in 64: both refused */
		int no_wrap32 = k->max >= (int64_t)1 << 32 || takes(k, "4294967297", &v) == 0;
		int no_wrap64 = takes(k, "18446744073709551617", &v) == 0;
		if (!(ok_lo && ok_hi && no_over && no_under && no_wrap32 && no_wrap64)) {
			bad++;
			printf("# %s: lo %d hi %d over %d under %d wrap32 %d wrap64 %d\n", k->name, ok_lo, ok_hi,
			       no_over, no_under, no_wrap32, no_wrap64);
		}
		if (k->max == INT32_MAX) {
			int32_rows++;
			wrapped_refused += takes(k, "99999999999", &v) == 0;
		}
	}
	ok(rows >= 10 && bad == 0,
	   "keys: %d numeric keys take min and max and refuse max+1, min-1, 2^32+1, 2^64+1 (%d bad)", rows, bad);
	ok(int32_rows >= 8 && wrapped_refused == int32_rows,
	   "keys: the %d keys the engine parses as int32 refuse 99999999999 (%d)", int32_rows, wrapped_refused);
	static const enum key_id counts[] = {K_CTX_SIZE,	 K_BATCH_SIZE,	     K_UBATCH_SIZE, K_NGL,
					     K_SPEC_DRAFT_N_MAX, K_SPEC_DRAFT_N_MIN, K_VERBOSITY};
	int i32 = 0;
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		i32 += keys_at(counts[i])->max == INT32_MAX;
	ok(i32 == (int)(sizeof(counts) / sizeof(counts[0])),
	   "keys: every count the engine takes with std::stoi is int32");
	char *err = NULL;
	uint64_t v;
	ok(key_parse_uint(keys_at(K_CTX_SIZE), "99999999999", &v, &err) == -1 && err &&
	       strcmp(err, "CTX_SIZE=99999999999 is out of range 1..2147483647 (law S01)") == 0,
	   "keys: CTX_SIZE=99999999999 refused naming the range and the law (%s)", tap_s(err));
	free(err);
	err = NULL;
	double d;
	ok(key_parse_number(keys_at(K_SPEC_DRAFT_P_MIN), "1.5", &d, &err) == -1 &&
	       key_parse_number(keys_at(K_SPEC_DRAFT_P_MIN), "nan", &d, NULL) == -1 &&
	       key_parse_number(keys_at(K_LORA_SCALE), "inf", &d, NULL) == -1 &&
	       key_parse_number(keys_at(K_SPEC_DRAFT_P_MIN), "0.5", &d, NULL) == 0 && d == 0.5,
	   "keys: a number has a range and is finite");
	ok(key_parse_uint(keys_at(K_MODEL_BYTES), "18446744073709551615", &v, NULL) == 0 && v == UINT64_MAX &&
	       key_parse_uint(keys_at(K_MODEL_BYTES), "1,2", &v, NULL) == -1 &&
	       key_parse_uint(keys_at(K_ALIAS), "1", &v, NULL) == -1,
	   "keys: one byte count of a pin key reads as a number; a list or a string key does not");
	ok(keys_at(K_PARALLEL)->max == 256 && key_parse_uint(keys_at(K_PARALLEL), "257", &v, NULL) == -1,
	   "keys: PARALLEL stops at the engine's LLAMA_MAX_SEQ (the context refuses more)");
	ok(keys_at(K_N_CPU_MOE)->max == 512 && key_parse_uint(keys_at(K_N_CPU_MOE), "513", &v, NULL) == -1,
	   "keys: N_CPU_MOE stops at the engine's LLAMA_MAX_LAYERS (one override pattern per block)");
	free(err);
}

static void rows(void)
{
	int bad = 0, flags = 0;
	for (size_t i = 0; i < keys_count(); i++) {
		const struct key_def *k = keys_at(i);
		if ((size_t)k->id != i || key_by_name(k->name) != k || !k->doc || !*k->doc || !k->law)
			bad++, printf("# row %zu %s\n", i, k->name);
		/* what argv renders for a key is a flag the key owns, so the gate
		 * on EXTRA_ARGS covers it */
		const char *f[] = {k->flag, k->flag_off};
		for (size_t j = 0; j < 2; j++) {
			if (!f[j])
				continue;
			flags++;
			if (key_owning_flag(f[j]) != k)
				bad++, printf("# %s renders %s but does not own it\n", k->name, f[j]);
		}
		if (k->def && key_check_value(k, k->def, NULL) && k->kind != KEY_TYPE)
			bad++, printf("# %s: its default %s does not parse\n", k->name, k->def);
	}
	ok(keys_count() == K__COUNT && bad == 0,
	   "keys: %zu rows, each its id's, with a doc and a law; %d rendered flags "
	   "all owned; defaults parse (%d bad)",
	   keys_count(), flags, bad);
}

static void owners(void)
{
	int words = 0, bad = 0;
	for (size_t i = 0; i < keys_count(); i++) {
		const struct key_def *k = keys_at(i);
		for (const char *p = k->owns; p && *p;) {
			p += strspn(p, " ");
			size_t n = strcspn(p, " ");
			if (!n)
				break;
			char w[80], eq[96], under[80];
			snprintf(w, sizeof(w), "%.*s", (int)n, p);
			snprintf(eq, sizeof(eq), "%s=1", w);
			snprintf(under, sizeof(under), "%s", w);
			if (strncmp(under, "--", 2) == 0)
				for (char *c = under + 2; *c; c++)
					if (*c == '-')
						*c = '_';
			words++;
			if (key_owning_flag(w) != k || key_owning_flag(eq) != k || key_owning_flag(under) != k)
				bad++, printf("# %s: %s\n", k->name, w);
			p += n;
		}
	}
	ok(words > 60 && bad == 0, "keys: %d owned flags found as FLAG, FLAG=V and --flag_name (%d bad)", words, bad);
	ok(key_owning_flag("--model") == keys_at(K_MODEL_FILE) && key_owning_flag("-m") == keys_at(K_MODEL_FILE) &&
	       key_owning_flag("--api-key") == keys_at(K_API_KEY_FILE) &&
	       key_owning_flag("--spec-ngram-mod-n-min") == keys_at(K_SPEC_TYPE) &&
	       key_owning_flag("--lora-anything") == keys_at(K_LORA_FILE) && key_owning_flag("--no-mmproj") &&
	       key_owning_flag("-np") == keys_at(K_PARALLEL) && !key_owning_flag("--temp") &&
	       !key_owning_flag("/tmp/other.gguf") && !key_owning_flag("--rope-scaling"),
	   "keys: -m, --api-key, the --spec-*, --lora* and --mmproj* families owned; --temp and values are not");
	ok(key_owning_env("LLAMA_ARG_N_PARALLEL") == keys_at(K_PARALLEL) &&
	       key_owning_env("LLAMA_ARG_NO_KV_OFFLOAD") == keys_at(K_KV_OFFLOAD) &&
	       key_owning_env("LLAMA_API_KEY") == keys_at(K_API_KEY_FILE) && !key_owning_env("LLAMA_ARG_THREADS"),
	   "keys: LLAMA_ARG_* twins (and LLAMA_ARG_NO_*) find their key");
}

static void endpoint_side(void)
{
	char *err = NULL;
	const char *text = "MODEL_FILE=m.gguf\nCTX_SIZE=99999999999\nEXTRA_ARGS=--temp 0.7 --ctx_size=9 -np 2\n";
	struct endpoint *ep = endpoint_parse(text, strlen(text), "/srv/x/e.env", &err);
	ok(ep != NULL, "keys: endpoint parses (%s)", tap_s(err));
	if (!ep)
		return;
	uint64_t v = 0;
	ok(endpoint_uint(ep, K_CTX_SIZE, &v, &err) == -1 && err &&
	       strcmp(err, "/srv/x/e.env:2: CTX_SIZE=99999999999 is out of range 1..2147483647 (law S01)") == 0,
	   "keys: endpoint_uint refuses the wrapped pool with the file and line (%s)", tap_s(err));
	free(err);
	err = NULL;
	struct plan_shape s;
	struct plan_extras x;
	struct cand_limits l;
	ok(shape_read(ep, &s, &x, &l, &err) == -1 && err && strstr(err, "CTX_SIZE=99999999999 is out of range"),
	   "keys: shape_read refuses it the same way (%s)", tap_s(err));
	free(err);
	err = NULL;
	struct endpoint_gate g[4];
	size_t n = endpoint_gated_extra(ep, g, 4);
	ok(n == 2 && strcmp(g[0].word, "--ctx_size=9") == 0 && g[0].owner->id == K_CTX_SIZE &&
	       strcmp(g[1].word, "-np") == 0 && g[1].owner->id == K_PARALLEL,
	   "keys: EXTRA_ARGS's gated words found, each with its owner (%zu)", n);
	endpoint_free(ep);
	ep = endpoint_parse("LLAMA_ARG_CTX_SIZE=5\n", 21, "/srv/x/e.env", &err);
	ok(!ep && err && strstr(err, "CTX_SIZE owns") && strstr(err, "(law C09)"),
	   "keys: LLAMA_ARG_CTX_SIZE in the file refused naming CTX_SIZE (%s)", tap_s(err));
	free(err);
	endpoint_free(ep);
}

/* The flag table and the key table agree: every spelling of a row the
 * table gives a key is owned by that key (key_owning_flag, the C09 gate),
 * and no spelling of any other row is owned; EXTRA_ARGS is read as the
 * engine reads its argv. */
static void flag_table(void)
{
	size_t bad = 0, keyed = 0;
	const char *first_bad = NULL;
	for (size_t i = 0; i < engine_flags_n; i++) {
		const struct engine_flag *f = &engine_flags[i];
		keyed += f->cls == FLAG_KEY;
		char buf[256];
		snprintf(buf, sizeof(buf), "%s", f->spellings);
		for (char *save = NULL, *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
			const struct key_def *k = key_owning_flag(t);
			int good = f->cls == FLAG_KEY ? k && strcmp(k->name, f->arg) == 0 : !k;
			if (!good && !bad++)
				first_bad = f->name;
		}
	}
	ok(engine_flags_n > 200 && keyed > 100 && bad == 0,
	   "flags: every spelling of a key's row is that key's, no other is owned (%zu rows, %zu keyed, %zu "
	   "wrong, first %s)",
	   engine_flags_n, keyed, bad, first_bad ? first_bad : "none");
	const struct engine_flag *f = flags_find("--swa_full");
	ok(f && f->cls == FLAG_REFUSED && strcmp(f->arg, "M12") == 0,
	   "flags: --swa_full is --swa-full, refused by M12");
	ok(flags_find_env("LLAMA_ARG_NO_MMAP") == flags_find("--no-mmap") && flags_find("--no-mmap") &&
	       flags_find_ini("no-mmap") == flags_find("--mmap") && flags_find_ini("c") == flags_find("--ctx-size") &&
	       flags_find_ini("LLAMA_ARG_SWA_FULL") == flags_find("--swa-full") && !flags_find_ini("swa_full"),
	   "flags: by env (and its NO_ twin), by config-file key (no '_' for '-')");
	struct flags_word w[8];
	size_t n = flags_parse("--threads 1 --override-tensor -x --temp=0.5 stray --nope v -1", w, 8);
	ok(n == 6 && w[5].stray && w[0].row == flags_find("-t") && w[1].row &&
	       strcmp(w[1].row->name, "--override-tensor") == 0 && w[2].row == flags_find("--temp") && w[3].stray &&
	       !w[4].row && !w[4].stray,
	   "flags: values consumed by arity, --flag=value takes none, a stray word found, an unknown flag's value "
	   "spared (%zu)",
	   n);
}

void test_keys(void)
{
	flag_table();
	ranges();
	rows();
	owners();
	endpoint_side();
}
