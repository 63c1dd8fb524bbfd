/* keys: the one typed table of the endpoint file's keys (redis config.c's
 * standardConfig model). Each row says what the key is (type, unit, range,
 * default, what set-but-empty means), the law it belongs to, its help line,
 * and the engine flags it renders and owns. Everything that reads a key
 * reads it through this table: the parser (unknown keys, C01), the typed
 * getters, `check`'s value laws, `--set`, shape_load and cand_apply (plan/),
 * argv (the flag a row renders) and the gate on EXTRA_ARGS and LLAMA_ARG_*
 * (law C09: a flag a row owns is set by its key and nowhere else).
 *
 * A numeric key has one parse and one range: a whole number in decimal,
 * within [min, max], where max is the engine's own limit (common/arg.cpp
 * parses an int flag with std::stoi: int32). A value outside is refused,
 * never wrapped.
 */
#ifndef ZEALOT_KEYS_H
#define ZEALOT_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "flags.h"

enum key_kind {
	KEY_STRING,
	KEY_PATH,
	KEY_UINT,   /* a whole number in [min, max] */
	KEY_NUMBER, /* a finite number in [fmin, fmax] */
	KEY_BOOL,   /* 0/1, on/off, true/false, yes/no */
	KEY_TYPE,   /* a KV cache type */
	KEY_ENUM,   /* one of key->choices */
	KEY_SHA256, /* 64 hex digits; a split payload's: one per shard, comma-separated */
	KEY_PINS,   /* a byte count; a split payload's: one per shard, comma-separated */
};

/* Every key, in documentation order: the table's row index. */
enum key_id {
	K_RUNTIME,
	K_RUNTIME_SHA256,
	K_RUNTIME_MIN_BUILD,
	K_MODEL_FILE,
	K_MODEL_BYTES,
	K_MODEL_SHA256,
	K_MODEL_URL,
	K_MODEL_URL_FILE,
	K_MMPROJ_FILE,
	K_MMPROJ_BYTES,
	K_MMPROJ_SHA256,
	K_MMPROJ_URL,
	K_MMPROJ_URL_FILE,
	K_LORA_FILE,
	K_LORA_SCALE,
	K_LORA_BYTES,
	K_LORA_SHA256,
	K_LORA_URL,
	K_LORA_URL_FILE,
	K_TOKEN_FILE,
	K_ALIAS,
	K_BIND_ADDR,
	K_LISTEN_PORT,
	K_API_KEY_FILE,
	K_USER,
	K_MODELS,
	K_MODELS_MAX,
	K_CTX_SIZE,
	K_PARALLEL,
	K_KV_UNIFIED,
	K_CACHE_TYPE_K,
	K_CACHE_TYPE_V,
	K_FLASH_ATTN,
	K_BATCH_SIZE,
	K_UBATCH_SIZE,
	K_REPACK,
	K_CPU_FEATURES,
	K_NGL,
	K_N_CPU_MOE,
	K_OVERRIDE_TENSOR,
	K_KV_OFFLOAD,
	K_SPLIT_MODE,
	K_TENSOR_SPLIT,
	K_RPC,
	K_DEVICES,
	K_JINJA,
	K_REASONING,
	K_REASONING_FORMAT,
	K_PRESENCE_PENALTY,
	K_SPEC_TYPE,
	K_SPEC_DRAFT_N_MAX,
	K_SPEC_DRAFT_N_MIN,
	K_SPEC_DRAFT_P_MIN,
	K_SPEC_DRAFT_TYPE_K,
	K_SPEC_DRAFT_TYPE_V,
	K_SPEC_DRAFT_MODEL_FILE,
	K_SPEC_DRAFT_MODEL_BYTES,
	K_SPEC_DRAFT_MODEL_SHA256,
	K_EMBEDDINGS,
	K_POOLING,
	K_CACHE_RAM,
	K_CTX_CHECKPOINTS,
	K_METRICS,
	K_PROMETHEUS_URL,
	K_SCRAPE_HOST,
	K_PROBE_CHAT_EXPECT,
	K_PROBE_TOOLS_EXPECT,
	K_PROBE_VISION_EXPECT,
	K_PROBE_REFUSAL_PROMPTS,
	K_PROBE_REFUSAL_MARKERS,
	K_PROBE_REFUSAL,
	K_VERBOSITY,
	K_DEVICE,
	K_CUDA_FA_QUANTS,
	K_CUDA_FA_SCRATCH,
	K_ADDRESSABLE_MIB,
	K_SLACK_MIB,
	K_HOST,
	K_GPU,
	K_COMPACTION_HUB,
	K_HOST_BW_GBS,
	K_EXTRA_ARGS,
	K__COUNT
};

/* What a key does to the priced shape (plan/shape.c's shape_set maps it
 * to the plan_shape or plan_extras field; the field lives in plan/, a layer
 * above this one). A candidate shape (plan/cand.c) may change exactly the
 * keys with a target. */
enum key_target {
	KEY_T_NONE,
	KEY_T_SHAPE,  /* a plan_shape field */
	KEY_T_EXTRAS, /* a plan_extras field (slack, addressable memory, payloads) */
};

struct key_def {
	const char *name;
	enum key_id id;
	enum key_kind kind;
	const char *unit;    /* "tokens", "MiB" ...; NULL when none */
	int64_t min, max;    /* KEY_UINT: the range */
	double fmin, fmax;   /* KEY_NUMBER: the range */
	const char *def;     /* the default when unset; NULL: none */
	const char *optout;  /* what set-but-empty means; NULL: empty is an error */
	const char *choices; /* KEY_ENUM: "a|b|c" */
	enum key_target target;
	const char *law;      /* the law the key belongs to (a range refusal cites it) */
	const char *flag;     /* the engine flag argv renders for it; NULL: none */
	const char *flag_off; /* KEY_BOOL: the flag rendered when off; NULL: none */
	const char *owns;     /* every spelling of every engine flag the key owns (blank-separated) */
	const char *env;      /* the engine's LLAMA_ARG_* twins of those flags (blank-separated) */
	const char *doc;      /* the help line */
};

/* Iteration: keys_at(i) for i < keys_count() is the row of key id i. */
size_t keys_count(void);
const struct key_def *keys_at(size_t i);
/* The row named name, or NULL. */
const struct key_def *key_by_name(const char *name);
static inline const char *key_name(enum key_id id)
{
	return keys_at((size_t)id)->name;
}

/* The *_URL key a payload's *_FILE key is fetched from (K_MODEL_URL for
 * K_MODEL_FILE), or K__COUNT when the key has none. */
enum key_id key_url_of(enum key_id file);

/* Closest known key to an unknown one, or NULL when nothing is close. */
const char *key_suggest(const char *unknown);

/* What an unknown key was meant to be (law C01's did-you-mean). The name
 * is matched, in this order, against the engine's LLAMA_ARG_* names (NGL
 * for N_GPU_LAYERS), the flags' short and long spellings (FLASH_ATTN for
 * FA, LISTEN_PORT for PORT), a misspelling of a key, the leading words of
 * a key (CTX_SIZE for CTX), and the most words shared with a key. */
struct key_hint {
	const struct key_def *key;	/* the key meant, or NULL */
	const struct engine_flag *flag; /* the engine flag the name spells, or NULL */
	char via[64];			/* the spelling or LLAMA_ARG_ name that matched, or "" */
};
void key_hint(const char *unknown, struct key_hint *out);
/* The engine flag a key renders, for a person: its flag, else the flag it
 * renders when off, else NULL (a key of zealot's own, or one the engine
 * takes another way). */
const char *key_flag_shown(const struct key_def *k);

/* One parse per type (key_parse_uint also reads one byte count of a
 * KEY_PINS key). Each returns 0, or -1 with *err (when err is not
 * NULL) saying "KEY=VALUE is ..." with the law for a range. */
int key_parse_uint(const struct key_def *k, const char *v, uint64_t *out, char **err);
int key_parse_number(const struct key_def *k, const char *v, double *out, char **err);
int key_parse_bool(const struct key_def *k, const char *v, int *out, char **err);
/* KEY_ENUM: the index of v among k->choices. */
int key_parse_enum(const struct key_def *k, const char *v, unsigned *out, char **err);
/* Whether a non-empty v is a value of the key's type (the check every
 * `check` runs on every key; KEY_TYPE is checked by plan/shape.c, which
 * knows the cache types). */
int key_check_value(const struct key_def *k, const char *v, char **err);
/* Whether v is an IP literal (IPv4 dotted quad, IPv6) or a host name
 * (RFC 1123 labels): what BIND_ADDR may be (it lands in the engine's
 * --host, the scrape target and the harness's URL). */
int key_addr_ok(const char *v);

/* The table as a Markdown document (docs/keys.md is this text): one row per
 * key with its type, unit, range, default, opt-out, law, engine flags and
 * help line. Returns an allocated string. */
char *keys_markdown(void);

/* The key that owns engine argument arg (a flag in any spelling the engine
 * accepts: short, long, `--flag=value`, `--flag_name`), or NULL. */
const struct key_def *key_owning_flag(const char *arg);
/* The key that owns environment variable var (LLAMA_ARG_*), or NULL. */
const struct key_def *key_owning_env(const char *var);

#endif
