#include "keys.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../base/util.h"
#include "flags.h"

/* The engine parses an int flag with std::stoi (common/arg.cpp): int32. */
#define I32 INT32_MAX
/* llama-hparams.h LLAMA_MAX_LAYERS: no payload the engine loads has more
 * blocks (N_CPU_MOE is one override pattern per block) */
#define MAX_LAYERS 512
/* llama-cparams.h LLAMA_MAX_SEQ: the context refuses more sequences */
#define MAX_SEQ 256
/* zealot's own MiB figures: bytes = MiB << 20 must stay well inside int64 */
#define MIB_MAX ((int64_t)1 << 32)

#define UINT(lo, hi)   .kind = KEY_UINT, .min = (lo), .max = (hi)
#define NUMBER(lo, hi) .kind = KEY_NUMBER, .fmin = (lo), .fmax = (hi)

static const struct key_def table[K__COUNT] = {
    [K_RUNTIME] = {"RUNTIME", K_RUNTIME, KEY_PATH, .def = "llama-server", .law = "C08",
		   .doc = "the llama-server binary (a bare name is looked up in PATH)"},
    [K_RUNTIME_SHA256] = {"RUNTIME_SHA256", K_RUNTIME_SHA256, KEY_SHA256, .optout = "no hash pin", .law = "R01",
			  .doc =
			      "pinned SHA-256 of the RUNTIME binary (check, deploy and serve refuse another, law R01)"},
    [K_RUNTIME_MIN_BUILD] = {"RUNTIME_MIN_BUILD", K_RUNTIME_MIN_BUILD, UINT(0, I32), .optout = "no floor", .law = "R01",
			     .doc = "the lowest build number RUNTIME's --version may report (law R01)"},
    [K_MODEL_FILE] = {"MODEL_FILE", K_MODEL_FILE, KEY_PATH, .law = "C03", .flag = "--model",
		      .owns = "-m --model -mu --model-url -hf -hfr --hf-repo -hff --hf-file -dr --docker-repo "
			      "--embd-gemma-default --fim-qwen-1.5b-default --fim-qwen-3b-default "
			      "--fim-qwen-7b-default --fim-qwen-7b-spec --fim-qwen-14b-spec --fim-qwen-30b-default "
			      "--gpt-oss-20b-default --gpt-oss-120b-default --vision-gemma-4b-default "
			      "--vision-gemma-12b-default",
		      .env = "LLAMA_ARG_MODEL LLAMA_ARG_MODEL_URL LLAMA_ARG_HF_REPO LLAMA_ARG_HF_FILE",
		      .doc = "the payload GGUF (required); relative paths are relative to the endpoint file"},
    [K_MODEL_BYTES] = {"MODEL_BYTES", K_MODEL_BYTES, KEY_PINS, .unit = "bytes", .optout = "no byte pin", .law = "C02",
		       .doc = "pinned size of MODEL_FILE in bytes (a split payload: one per shard, comma-separated, in "
			      "shard order)"},
    [K_MODEL_SHA256] = {"MODEL_SHA256", K_MODEL_SHA256, KEY_SHA256, .optout = "no hash pin", .law = "C02",
			.doc = "pinned SHA-256 of MODEL_FILE (a split payload: one per shard, comma-separated, in "
			       "shard order)"},
    [K_MODEL_URL] = {"MODEL_URL", K_MODEL_URL, KEY_STRING, .optout = "no URL", .law = "C02",
		     .doc = "where MODEL_FILE is fetched from"},
    [K_MODEL_URL_FILE] = {"MODEL_URL_FILE", K_MODEL_URL_FILE, KEY_PATH, .optout = "no URL file", .law = "C02",
			  .doc = "a file holding MODEL_URL (a URL with a password or token then never sits in the "
				 "endpoint file); not with MODEL_URL"},
    [K_MMPROJ_FILE] = {"MMPROJ_FILE", K_MMPROJ_FILE, KEY_PATH, .optout = "text only: no projector",
		       .target = KEY_T_EXTRAS, .law = "C03", .flag = "--mmproj",
		       .owns = "-mm --mmproj -mmu --mmproj-url --mmproj-auto --no-mmproj --no-mmproj-auto "
			       "--mmproj-offload --no-mmproj-offload -mmdev --mmproj-device",
		       .env = "LLAMA_ARG_MMPROJ LLAMA_ARG_MMPROJ_URL LLAMA_ARG_MMPROJ_AUTO LLAMA_ARG_MMPROJ_OFFLOAD",
		       .doc = "the multimodal projector GGUF"},
    [K_MMPROJ_BYTES] = {"MMPROJ_BYTES", K_MMPROJ_BYTES, KEY_PINS, .unit = "bytes", .optout = "no byte pin",
			.law = "C02", .doc = "pinned size of MMPROJ_FILE"},
    [K_MMPROJ_SHA256] = {"MMPROJ_SHA256", K_MMPROJ_SHA256, KEY_SHA256, .optout = "no hash pin", .law = "C02",
			 .doc = "pinned SHA-256 of MMPROJ_FILE"},
    [K_MMPROJ_URL] = {"MMPROJ_URL", K_MMPROJ_URL, KEY_STRING, .optout = "no URL", .law = "C02",
		      .doc = "where MMPROJ_FILE is fetched from"},
    [K_MMPROJ_URL_FILE] = {"MMPROJ_URL_FILE", K_MMPROJ_URL_FILE, KEY_PATH, .optout = "no URL file", .law = "C02",
			   .doc = "a file holding MMPROJ_URL (as MODEL_URL_FILE holds MODEL_URL); not with MMPROJ_URL"},
    [K_LORA_FILE] = {"LORA_FILE", K_LORA_FILE, KEY_PATH, .optout = "no adapter", .target = KEY_T_EXTRAS, .law = "S12",
		     .flag = "--lora-scaled",
		     .owns = "--lora --lora-scaled --lora-init-without-apply --control-vector --control-vector-scaled "
			     "--control-vector-layer-range",
		     .doc = "a LoRA adapter GGUF applied at load"},
    [K_LORA_SCALE] = {"LORA_SCALE", K_LORA_SCALE, NUMBER(-1e6, 1e6), .def = "1", .law = "S12",
		      .doc = "the adapter's scale (--lora-scaled FILE:SCALE)"},
    [K_LORA_BYTES] = {"LORA_BYTES", K_LORA_BYTES, KEY_PINS, .unit = "bytes", .optout = "no byte pin", .law = "C02",
		      .doc = "pinned size of LORA_FILE"},
    [K_LORA_SHA256] = {"LORA_SHA256", K_LORA_SHA256, KEY_SHA256, .optout = "no hash pin", .law = "C02",
		       .doc = "pinned SHA-256 of LORA_FILE"},
    [K_LORA_URL] = {"LORA_URL", K_LORA_URL, KEY_STRING, .optout = "no URL", .law = "C02",
		    .doc = "where LORA_FILE is fetched from"},
    [K_LORA_URL_FILE] = {"LORA_URL_FILE", K_LORA_URL_FILE, KEY_PATH, .optout = "no URL file", .law = "C02",
			 .doc = "a file holding LORA_URL (as MODEL_URL_FILE holds MODEL_URL); not with LORA_URL"},
    [K_TOKEN_FILE] = {"TOKEN_FILE", K_TOKEN_FILE, KEY_PATH, .optout = "no token", .law = "C02",
		      .owns = "-hft --hf-token", .env = "HF_TOKEN",
		      .doc = "a file holding the bearer token for *_URL (sent only to the URL's own host; else "
			     "HF_TOKEN_FILE or HF_TOKEN)"},
    [K_ALIAS] = {"ALIAS", K_ALIAS, KEY_STRING, .law = "C06", .flag = "--alias", .owns = "-a --alias",
		 .env = "LLAMA_ARG_ALIAS", .doc = "the served model id (default: the endpoint's name)"},
    [K_BIND_ADDR] = {"BIND_ADDR", K_BIND_ADDR, KEY_STRING, .def = "127.0.0.1", .law = "S13", .flag = "--host",
		     .owns = "--host", .env = "LLAMA_ARG_HOST", .doc = "the address the engine listens on"},
    [K_LISTEN_PORT] = {"LISTEN_PORT", K_LISTEN_PORT, UINT(1, 65535), .unit = "port", .def = "8080", .law = "C02",
		       .flag = "--port", .owns = "--port --reuse-port", .env = "LLAMA_ARG_PORT",
		       .doc = "the port the engine listens on"},
    [K_API_KEY_FILE] = {"API_KEY_FILE", K_API_KEY_FILE, KEY_PATH, .optout = "no API key", .law = "S13",
			.flag = "--api-key-file", .owns = "--api-key --api-key-file",
			.env = "LLAMA_API_KEY LLAMA_ARG_API_KEY LLAMA_ARG_API_KEY_FILE",
			.doc = "a file holding the API key (the key never reaches argv)"},
    [K_USER] = {"USER", K_USER, KEY_STRING, .optout = "root (no User= line)", .law = "C02",
		.doc = "the unit's User=: the engine needs no root, only read access to the payloads (unset: root)"},
    [K_MODELS] = {"MODELS", K_MODELS, KEY_PATH, .optout = "one model: no router", .law = "C12",
		  .owns = "--models-dir --models-preset --models-autoload --no-models-autoload",
		  .env = "LLAMA_ARG_MODELS_DIR LLAMA_ARG_MODELS_PRESET LLAMA_ARG_MODELS_AUTOLOAD",
		  .doc = "a router endpoint: the directory of its member endpoint files, one per model (no port of "
			 "their own); the engine runs in router mode with the preset zealot writes (docs/router.md)"},
    [K_MODELS_MAX] = {"MODELS_MAX", K_MODELS_MAX, UINT(1, MAX_SEQ), .unit = "models", .def = "4", .law = "M13",
		      .flag = "--models-max", .owns = "--models-max", .env = "LLAMA_ARG_MODELS_MAX",
		      .doc = "a router endpoint: how many members may be resident at once (the engine evicts the "
			     "least recently used past it); the worst set of this many must fit (law M13)"},
    [K_CTX_SIZE] = {"CTX_SIZE", K_CTX_SIZE, UINT(1, I32), .unit = "tokens", .target = KEY_T_SHAPE, .law = "S01",
		    .flag = "--ctx-size",
		    .owns = "-c --ctx-size -fit --fit -fitt --fit-target -fitc --fit-ctx -fitp --fit-print "
			    "--kv-unified-per-slot",
		    .env = "LLAMA_ARG_CTX_SIZE LLAMA_ARG_FIT LLAMA_ARG_FIT_TARGET LLAMA_ARG_FIT_CTX "
			   "LLAMA_ARG_KV_UNIFIED_PER_SLOT",
		    .doc = "the total KV pool in tokens (required; divided across PARALLEL slots)"},
    [K_PARALLEL] = {"PARALLEL", K_PARALLEL, UINT(1, MAX_SEQ), .unit = "slots", .def = "1", .target = KEY_T_SHAPE,
		    .law = "M03", .flag = "--parallel", .owns = "-np --parallel", .env = "LLAMA_ARG_N_PARALLEL",
		    .doc = "slots: concurrent conversations, each with CTX_SIZE/PARALLEL tokens"},
    [K_KV_UNIFIED] = {"KV_UNIFIED", K_KV_UNIFIED, KEY_BOOL, .def = "0", .target = KEY_T_SHAPE, .law = "M03",
		      .flag = "--kv-unified", .flag_off = "--no-kv-unified",
		      .owns = "-kvu --kv-unified -no-kvu --no-kv-unified", .env = "LLAMA_ARG_KV_UNIFIED",
		      .doc = "one KV stream shared by all slots instead of one per slot"},
    [K_CACHE_TYPE_K] = {"CACHE_TYPE_K", K_CACHE_TYPE_K, KEY_TYPE, .def = "f16", .target = KEY_T_SHAPE, .law = "S04",
			.flag = "--cache-type-k", .owns = "-ctk --cache-type-k", .env = "LLAMA_ARG_CACHE_TYPE_K",
			.doc = "K cache type"},
    [K_CACHE_TYPE_V] = {"CACHE_TYPE_V", K_CACHE_TYPE_V, KEY_TYPE, .def = "f16", .target = KEY_T_SHAPE, .law = "S03",
			.flag = "--cache-type-v", .owns = "-ctv --cache-type-v", .env = "LLAMA_ARG_CACHE_TYPE_V",
			.doc = "V cache type (quantized types need FLASH_ATTN=on)"},
    [K_FLASH_ATTN] = {"FLASH_ATTN", K_FLASH_ATTN, KEY_ENUM, .def = "on", .choices = "on|off|auto",
		      .target = KEY_T_SHAPE, .law = "S03", .flag = "--flash-attn", .owns = "-fa --flash-attn",
		      .env = "LLAMA_ARG_FLASH_ATTN", .doc = "flash attention"},
    [K_BATCH_SIZE] = {"BATCH_SIZE", K_BATCH_SIZE, UINT(1, I32), .unit = "tokens", .def = "2048", .target = KEY_T_SHAPE,
		      .law = "S08", .flag = "--batch-size", .owns = "-b --batch-size", .env = "LLAMA_ARG_BATCH",
		      .doc = "logical batch size"},
    [K_UBATCH_SIZE] = {"UBATCH_SIZE", K_UBATCH_SIZE, UINT(1, I32), .unit = "tokens", .def = "512",
		       .target = KEY_T_SHAPE, .law = "S08", .flag = "--ubatch-size", .owns = "-ub --ubatch-size",
		       .env = "LLAMA_ARG_UBATCH",
		       .doc = "physical batch size (a prefill knob; sizes the compute buffers)"},
    [K_REPACK] = {"REPACK", K_REPACK, KEY_BOOL, .def = "1", .target = KEY_T_SHAPE, .law = "S16",
		  .flag_off = "--no-repack", .owns = "--repack -nr --no-repack", .env = "LLAMA_ARG_REPACK",
		  .doc = "CPU backend: extra buffers (AMX, CPU_REPACK) may take eligible weights (0: --no-repack, "
			 "neither)"},
    [K_CPU_FEATURES] = {"CPU_FEATURES", K_CPU_FEATURES, KEY_STRING, .optout = "this host's", .law = "S16",
			.doc = "the serving host's CPU features the plan assumes (e.g. "
			       "avx2,avx512,avx512_vnni,amx_int8; none; default: read from this host)"},
    [K_NGL] = {"NGL", K_NGL, UINT(0, I32), .unit = "layers", .def = "99", .target = KEY_T_SHAPE, .law = "M09",
	       .flag = "--n-gpu-layers", .owns = "-ngl --gpu-layers --n-gpu-layers", .env = "LLAMA_ARG_N_GPU_LAYERS",
	       .doc = "layers offloaded to the devices (--n-gpu-layers; block count + 1 offloads the output layer "
		      "too)"},
    [K_N_CPU_MOE] = {"N_CPU_MOE", K_N_CPU_MOE, UINT(0, MAX_LAYERS), .unit = "layers", .def = "0", .target = KEY_T_SHAPE,
		     .law = "M09", .flag = "--n-cpu-moe",
		     .owns = "-ncmoe --n-cpu-moe -cmoe --cpu-moe -ncffn --n-cpu-ffn",
		     .env = "LLAMA_ARG_N_CPU_MOE LLAMA_ARG_CPU_MOE LLAMA_ARG_N_CPU_FFN",
		     .doc = "keep the experts of the first N layers on the CPU (--n-cpu-moe: blk.i.ffn_*_exps=CPU for "
			    "i < N)"},
    [K_OVERRIDE_TENSOR] = {"OVERRIDE_TENSOR", K_OVERRIDE_TENSOR, KEY_STRING, .optout = "no override", .law = "C02",
			   .flag = "--override-tensor", .owns = "-ot --override-tensor",
			   .env = "LLAMA_ARG_OVERRIDE_TENSOR",
			   .doc = "PATTERN=BUFFER,... (--override-tensor): the first pattern found in a tensor's name "
				  "places it on BUFFER (CPU, CUDA0, RPC0[host:port]); POSIX extended regex, see "
				  "README"},
    [K_KV_OFFLOAD] = {"KV_OFFLOAD", K_KV_OFFLOAD, KEY_BOOL, .def = "1", .target = KEY_T_SHAPE, .law = "M09",
		      .flag_off = "--no-kv-offload", .owns = "-kvo --kv-offload -nkvo --no-kv-offload",
		      .env = "LLAMA_ARG_KV_OFFLOAD",
		      .doc = "KV cache and recurrent state on the layers' devices (0: --no-kv-offload, all on the "
			     "CPU)"},
    [K_SPLIT_MODE] = {"SPLIT_MODE", K_SPLIT_MODE, KEY_ENUM, .def = "layer", .choices = "layer|none|row|tensor",
		      .law = "C02", .flag = "--split-mode", .owns = "-sm --split-mode -mg --main-gpu",
		      .env = "LLAMA_ARG_SPLIT_MODE LLAMA_ARG_MAIN_GPU",
		      .doc = "--split-mode: layer splits layers and caches across devices; none uses the first "
			     "device only"},
    [K_TENSOR_SPLIT] = {"TENSOR_SPLIT", K_TENSOR_SPLIT, KEY_STRING, .optout = "by free memory", .law = "C02",
			.flag = "--tensor-split", .owns = "-ts --tensor-split", .env = "LLAMA_ARG_TENSOR_SPLIT",
			.doc = "--tensor-split: each device's share of the offloaded layers, in device order (e.g. "
			       "1,2)"},
    [K_RPC] = {"RPC", K_RPC, KEY_STRING, .optout = "no RPC servers", .law = "C02", .flag = "--rpc", .owns = "--rpc",
	       .env = "LLAMA_ARG_RPC",
	       .doc = "--rpc HOST:PORT,...: ggml-rpc-server devices, placed before the local cards (RPC0[HOST:PORT] "
		      "...)"},
    [K_DEVICES] = {"DEVICES", K_DEVICES, KEY_STRING, .optout = "RPC servers then DEVICE", .law = "C02",
		   .owns = "-dev --device", .env = "LLAMA_ARG_DEVICE",
		   .doc = "device profiles in the engine's order (one 'rpc' per RPC server, then the cards: CUDA0, "
			  "CUDA1 ...); PROFILE:MIB overrides a device's memory"},
    [K_JINJA] = {"JINJA", K_JINJA, KEY_BOOL, .def = "1", .law = "A08", .flag = "--jinja", .flag_off = "--no-jinja",
		 .owns = "--jinja --no-jinja", .env = "LLAMA_ARG_JINJA",
		 .doc = "use the payload's Jinja chat template (tools need it)"},
    [K_REASONING] = {"REASONING", K_REASONING, KEY_ENUM, .def = "auto", .optout = "no flag", .choices = "on|off|auto",
		     .law = "A08", .flag = "--reasoning", .owns = "-rea --reasoning", .env = "LLAMA_ARG_REASONING",
		     .doc = "--reasoning"},
    [K_REASONING_FORMAT] = {"REASONING_FORMAT", K_REASONING_FORMAT, KEY_ENUM, .def = "deepseek", .optout = "no flag",
			    .choices = "none|deepseek|deepseek-legacy|auto", .law = "A08", .flag = "--reasoning-format",
			    .owns = "--reasoning-format", .env = "LLAMA_ARG_THINK", .doc = "--reasoning-format"},
    [K_PRESENCE_PENALTY] = {"PRESENCE_PENALTY", K_PRESENCE_PENALTY, NUMBER(-1e6, 1e6), .optout = "no flag",
			    .law = "C07", .flag = "--presence-penalty", .owns = "--presence-penalty",
			    .doc = "--presence-penalty (no GGUF key carries it, law C07)"},
    [K_SPEC_TYPE] = {"SPEC_TYPE", K_SPEC_TYPE, KEY_ENUM, .def = "none",
		     .choices = "none|draft-mtp|ngram-mod|draft-mtp,ngram-mod|ngram-simple|draft-simple"
				"|draft-eagle3|draft-dflash",
		     .target = KEY_T_SHAPE, .law = "S05", .flag = "--spec-type",
		     .owns = "--spec-type -hfd -hfrd --hf-repo-draft -ngld --gpu-layers-draft "
			     "--n-gpu-layers-draft -devd --device-draft -otd --override-tensor-draft -cmoed "
			     "--cpu-moe-draft -ncmoed --n-cpu-moe-draft --draft-p-split --mtp --dflash --eagle3 "
			     /* the drafter's own threads and placement, in their other spellings */
			     "-td --threads-draft -tbd --threads-batch-draft -Cd --cpu-mask-draft -Crd "
			     "--cpu-range-draft --cpu-strict-draft --prio-draft --poll-draft -Cbd "
			     "--cpu-mask-batch-draft --cpu-strict-batch-draft --prio-batch-draft --poll-batch-draft "
			     "--no-spec-draft-backend-sampling",
		     .env = "LLAMA_ARG_SPEC_TYPE",
		     .doc = "speculative decoding; none strips every --spec-* flag (law S05)"},
    [K_SPEC_DRAFT_N_MAX] = {"SPEC_DRAFT_N_MAX", K_SPEC_DRAFT_N_MAX, UINT(0, I32), .unit = "tokens", .def = "3",
			    .target = KEY_T_SHAPE, .law = "S05", .flag = "--spec-draft-n-max",
			    .owns = "--spec-draft-n-max --draft --draft-n --draft-max",
			    .env = "LLAMA_ARG_SPEC_DRAFT_N_MAX LLAMA_ARG_DRAFT_MAX",
			    .doc = "draft depth (also the recurrent rollback planes, law M04)"},
    [K_SPEC_DRAFT_N_MIN] = {"SPEC_DRAFT_N_MIN", K_SPEC_DRAFT_N_MIN, UINT(0, I32), .unit = "tokens", .def = "0",
			    .law = "S05", .flag = "--spec-draft-n-min",
			    .owns = "--spec-draft-n-min --draft-min "
				    "--draft-n-min",
			    .env = "LLAMA_ARG_SPEC_DRAFT_N_MIN LLAMA_ARG_DRAFT_MIN", .doc = "minimum draft tokens"},
    [K_SPEC_DRAFT_P_MIN] = {"SPEC_DRAFT_P_MIN", K_SPEC_DRAFT_P_MIN, NUMBER(0, 1), .def = "0", .law = "S05",
			    .flag = "--spec-draft-p-min", .owns = "--spec-draft-p-min --draft-p-min",
			    .env = "LLAMA_ARG_SPEC_DRAFT_P_MIN", .doc = "minimum draft probability"},
    [K_SPEC_DRAFT_TYPE_K] = {"SPEC_DRAFT_TYPE_K", K_SPEC_DRAFT_TYPE_K, KEY_TYPE, .def = "f16", .target = KEY_T_SHAPE,
			     .law = "S04", .flag = "--spec-draft-type-k",
			     .owns = "--spec-draft-type-k -ctkd --cache-type-k-draft",
			     .env = "LLAMA_ARG_SPEC_DRAFT_CACHE_TYPE_K", .doc = "the draft context's K cache type"},
    [K_SPEC_DRAFT_TYPE_V] = {"SPEC_DRAFT_TYPE_V", K_SPEC_DRAFT_TYPE_V, KEY_TYPE, .def = "f16", .target = KEY_T_SHAPE,
			     .law = "S04", .flag = "--spec-draft-type-v",
			     .owns = "--spec-draft-type-v -ctvd --cache-type-v-draft",
			     .env = "LLAMA_ARG_SPEC_DRAFT_CACHE_TYPE_V", .doc = "the draft context's V cache type"},
    [K_SPEC_DRAFT_MODEL_FILE] = {"SPEC_DRAFT_MODEL_FILE", K_SPEC_DRAFT_MODEL_FILE, KEY_PATH,
				 .optout = "no drafter model", .law = "S05", .flag = "--spec-draft-model",
				 .owns = "--spec-draft-model -md --model-draft", .env = "LLAMA_ARG_SPEC_DRAFT_MODEL",
				 .doc = "the drafter GGUF of SPEC_TYPE=draft-simple: a separate model with the "
					"target's vocabulary (draft-mtp: a gemma4-assistant, S21; draft-eagle3, "
					"draft-dflash: an eagle3 or dflash drafter, S22); relative paths are relative "
					"to the endpoint file"},
    [K_SPEC_DRAFT_MODEL_BYTES] = {"SPEC_DRAFT_MODEL_BYTES", K_SPEC_DRAFT_MODEL_BYTES, KEY_PINS, .unit = "bytes",
				  .optout = "no byte pin", .law = "C02",
				  .doc = "pinned size of SPEC_DRAFT_MODEL_FILE in bytes (deploy's gate:pins)"},
    [K_SPEC_DRAFT_MODEL_SHA256] = {"SPEC_DRAFT_MODEL_SHA256", K_SPEC_DRAFT_MODEL_SHA256, KEY_SHA256,
				   .optout = "no hash pin", .law = "C02",
				   .doc = "pinned SHA-256 of SPEC_DRAFT_MODEL_FILE (deploy's gate:pins)"},
    [K_EMBEDDINGS] = {"EMBEDDINGS", K_EMBEDDINGS, KEY_BOOL, .def = "off", .target = KEY_T_SHAPE, .law = "C02",
		      .flag = "--embeddings", .owns = "--embedding --embeddings", .env = "LLAMA_ARG_EMBEDDINGS",
		      .doc = "serve /v1/embeddings (--embeddings: the output buffer holds an embedding per slot, and "
			     "the batch is cut to the ubatch)"},
    [K_POOLING] = {"POOLING", K_POOLING, KEY_ENUM, .optout = "the payload's pooling_type",
		   .choices = "none|mean|cls|last|rank", .target = KEY_T_SHAPE, .law = "C02", .flag = "--pooling",
		   .owns = "--pooling --rerank --reranking", .env = "LLAMA_ARG_POOLING",
		   .doc = "how an embedding pools the tokens (rank: the /v1/rerank endpoint, with EMBEDDINGS=on)"},
    [K_CACHE_RAM] = {"CACHE_RAM", K_CACHE_RAM, UINT(0, I32), .unit = "MiB",
		     .optout = "the engine's 8,192 MiB per process", .law = "M13", .flag = "--cache-ram",
		     .owns = "-cram --cache-ram", .env = "LLAMA_ARG_CACHE_RAM",
		     .doc = "the host prompt cache's ceiling per engine process (0: none); a router bills it per "
			    "child (law M13); the engine's unbounded -1 cannot be priced and is not taken"},
    [K_CTX_CHECKPOINTS] = {"CTX_CHECKPOINTS", K_CTX_CHECKPOINTS, UINT(0, I32), .unit = "checkpoints",
			   .optout = "the engine's 32 per slot", .law = "M13", .flag = "--ctx-checkpoints",
			   .owns = "-ctxcp --ctx-checkpoints --swa-checkpoints", .env = "LLAMA_ARG_CTX_CHECKPOINTS",
			   .doc = "context checkpoints per slot (host copies of a sliding-window or recurrent "
				  "state); a router bills them per child (law M13)"},
    [K_METRICS] = {"METRICS", K_METRICS, KEY_BOOL, .def = "1", .law = "C04", .flag = "--metrics", .owns = "--metrics",
		   .env = "LLAMA_ARG_ENDPOINT_METRICS", .doc = "--metrics (0 makes /metrics answer 501, law C04)"},
    [K_PROMETHEUS_URL] = {"PROMETHEUS_URL", K_PROMETHEUS_URL, KEY_STRING, .optout = "no scrape-health probe",
			  .law = "C04",
			  .doc = "the Prometheus that scrapes this endpoint (probe asks its /api/v1/targets)"},
    [K_SCRAPE_HOST] = {"SCRAPE_HOST", K_SCRAPE_HOST, KEY_STRING,
		       .optout = "BIND_ADDR (loopback for a wildcard bind; a fleet member's HOST)", .law = "C04",
		       .doc = "the host Prometheus reaches the engine at (an IP address or a host name, e.g. "
			      "host.containers.internal from a container): emit prometheus's target and the scrape "
			      "probe's"},
    [K_PROBE_CHAT_EXPECT] = {"PROBE_CHAT_EXPECT", K_PROBE_CHAT_EXPECT, KEY_STRING, .optout = "any non-empty answer",
			     .law = "A03",
			     .doc =
				 "the exact answer the chat probe must get (surrounding blanks ignored); a different "
				 "answer fails the probe"},
    [K_PROBE_TOOLS_EXPECT] = {"PROBE_TOOLS_EXPECT", K_PROBE_TOOLS_EXPECT, KEY_STRING,
			      .optout = "any arguments that parse", .law = "A03",
			      .doc = "the JSON arguments the tools probe's call must carry, e.g. {\"a\":24,\"b\":7} "
				     "(compared as JSON)"},
    [K_PROBE_VISION_EXPECT] = {"PROBE_VISION_EXPECT", K_PROBE_VISION_EXPECT, KEY_STRING,
			       .optout = "prompt tokens billed is enough", .law = "A04",
			       .doc = "the exact answer the vision probe must get for its 512 px solid-red PNG (and "
				      "must not get without it)"},
    [K_PROBE_REFUSAL_PROMPTS] = {"PROBE_REFUSAL_PROMPTS", K_PROBE_REFUSAL_PROMPTS, KEY_PATH,
				 .optout = "no refusal probe", .law = "S12",
				 .doc = "a file of prompts, one per line, the refusal probe asks at temperature 0.1 "
					"with a 2,048-token budget"},
    [K_PROBE_REFUSAL_MARKERS] = {"PROBE_REFUSAL_MARKERS", K_PROBE_REFUSAL_MARKERS, KEY_STRING,
				 .def = "I cannot|I can't|I won't|I'm sorry|I am sorry|As an AI", .law = "S12",
				 .doc = "'|'-separated phrases; an answer that contains one is a refusal"},
    [K_PROBE_REFUSAL] = {"PROBE_REFUSAL", K_PROBE_REFUSAL, KEY_ENUM, .optout = "report only",
			 .choices = "absent|present", .law = "S12",
			 .doc = "what the refusal probe must find: absent (an adapter era that removes refusals) "
				"or present; else deploy's probes step fails and rolls back"},
    [K_VERBOSITY] = {"VERBOSITY", K_VERBOSITY, UINT(0, I32), .def = "4", .law = "C05", .flag = "--log-verbosity",
		     .owns = "-lv --verbosity --log-verbosity -v --verbose --log-verbose --log-disable",
		     .env = "LLAMA_ARG_LOG_VERBOSITY", .doc = "--log-verbosity (4 prints the boot ledger, law C05)"},
    [K_DEVICE] = {"DEVICE", K_DEVICE, KEY_STRING, .def = "cpu", .law = "M09",
		  .doc = "device profile for the fit gate (zealot plan --help lists them)"},
    [K_CUDA_FA_QUANTS] = {"CUDA_FA_QUANTS", K_CUDA_FA_QUANTS, KEY_STRING,
			  .optout = "the pinned engine's f16-f16;q4_0-q4_0;q8_0-q8_0;bf16-bf16", .law = "S14",
			  .doc = "a CUDA runtime's flash-attention K/V pairs when its CMakeCache.txt is not readable "
				 "(law S14): all, or pairs like f16-q8_0;q8_0-q8_0"},
    [K_CUDA_FA_SCRATCH] = {"CUDA_FA_SCRATCH", K_CUDA_FA_SCRATCH, KEY_BOOL, .def = "1", .law = "S14",
			   .doc = "a CUDA runtime's flash attention reserves f16 copies of a quantized K/V in the "
				  "compute buffer (the pinned engine; 0: a build before upstream PR #23907)"},
    [K_ADDRESSABLE_MIB] = {"ADDRESSABLE_MIB", K_ADDRESSABLE_MIB, UINT(0, MIB_MAX), .unit = "MiB",
			   .optout = "the profile's figure", .target = KEY_T_EXTRAS, .law = "M01",
			   .doc = "memory the driver really leaves, overriding the profile (law M01)"},
    [K_SLACK_MIB] = {"SLACK_MIB", K_SLACK_MIB, UINT(0, MIB_MAX), .unit = "MiB", .def = "1024", .target = KEY_T_EXTRAS,
		     .law = "M09",
		     .doc = "free memory every plan must keep (law M09); the seeds' 2-3 GiB band settled free is "
			    "SLACK_MIB=2048 to 3072 (the plan's free is nvidia-smi's settled free)"},
    [K_HOST] = {"HOST", K_HOST, KEY_STRING, .law = "C02",
		.doc = "the ssh destination the endpoint runs on: [user@]host or ssh://[user@]host[:port], resolved "
		       "through the ssh config (unset: this host; zealot fleet)"},
    [K_GPU] = {"GPU", K_GPU, UINT(0, I32), .unit = "index", .law = "C02",
	       .doc = "the card index on that host: the unit's Environment=CUDA_VISIBLE_DEVICES=N (DEVICE profiles "
		      "that card; unset: every card)"},
    [K_COMPACTION_HUB] = {"COMPACTION_HUB", K_COMPACTION_HUB, KEY_STRING, .optout = "no compaction model", .law = "C02",
			  .doc = "the name of the fleet endpoint this one's clients send compaction to (the harness's "
				 "compactionModel)"},
    [K_HOST_BW_GBS] = {"HOST_BW_GBS", K_HOST_BW_GBS, NUMBER(0, 1e6), .unit = "GB/s",
		       .optout = "the cpu profile's 51 GB/s", .law = "C02",
		       .doc = "the host's memory bandwidth in GB/s, for the decode rate of what sits on the host "
			      "(experts, layers, KV)"},
    [K_EXTRA_ARGS] = {"EXTRA_ARGS", K_EXTRA_ARGS, KEY_STRING, .optout = "none", .law = "C09",
		      .doc = "further engine arguments, appended last (split on blanks); never a flag a key owns "
			     "(law C09)"},
};

size_t keys_count(void)
{
	return K__COUNT;
}

const struct key_def *keys_at(size_t i)
{
	return i < K__COUNT ? &table[i] : NULL;
}

const struct key_def *key_by_name(const char *name)
{
	for (size_t i = 0; i < K__COUNT; i++)
		if (strcmp(table[i].name, name) == 0)
			return &table[i];
	return NULL;
}

enum key_id key_url_of(enum key_id file)
{
	switch (file) {
	case K_MODEL_FILE: return K_MODEL_URL;
	case K_MMPROJ_FILE: return K_MMPROJ_URL;
	case K_LORA_FILE: return K_LORA_URL;
	default: return K__COUNT;
	}
}

/* The most `_`-separated words shared with a key, at least two
 * (KV_CACHE_TYPE for CACHE_TYPE_K), or NULL. */
static const char *shared_words(const char *unknown)
{
	size_t best_w = 1;
	const char *best = NULL;
	for (size_t i = 0; i < K__COUNT; i++) {
		size_t shared = 0;
		const char *u = unknown;
		while (*u) {
			size_t n = strcspn(u, "_");
			const char *k = table[i].name;
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
			best = table[i].name;
		}
	}
	return best;
}

/* The first key whose name begins with unknown's whole words (CTX_SIZE
 * for CTX), or NULL. */
static const char *leading_words(const char *unknown)
{
	size_t n = strlen(unknown);
	if (n < 2)
		return NULL;
	for (size_t i = 0; i < K__COUNT; i++)
		if (strncasecmp(unknown, table[i].name, n) == 0 && table[i].name[n] == '_')
			return table[i].name;
	return NULL;
}

/* The key whose owned spellings hold word exactly (no family prefix). */
static const struct key_def *owner_exact(const char *word)
{
	for (size_t i = 0; i < K__COUNT; i++)
		if (word_in_list(table[i].owns, word, strlen(word)))
			return &table[i];
	return NULL;
}

/* An unknown key read as an engine flag: "-" or "--" and the name in
 * lower case with '-' for '_' (FA: -fa, N_GPU_LAYERS: --n-gpu-layers),
 * then as the LLAMA_ARG_* variable of one. Whether it named a flag. */
static int hint_flag(const char *unknown, struct key_hint *h)
{
	char low[48], word[64];
	size_t n = strlen(unknown);
	if (!n || n >= sizeof(low))
		return 0;
	for (size_t i = 0; i <= n; i++)
		low[i] = unknown[i] == '_' ? '-' : (char)tolower((unsigned char)unknown[i]);
	for (int dashes = 1; dashes <= 2; dashes++) {
		snprintf(word, sizeof(word), "%.*s%s", dashes, "--", low);
		const struct engine_flag *f = flags_find(word);
		const struct key_def *k = owner_exact(word);
		if (f || k) {
			h->key = k ? k : f->cls == FLAG_KEY ? key_by_name(f->arg) : NULL;
			h->flag = f;
			snprintf(h->via, sizeof(h->via), "%s", word);
			return 1;
		}
	}
	snprintf(word, sizeof(word), "LLAMA_ARG_%s", unknown);
	for (char *p = word; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	h->key = key_owning_env(word);
	h->flag = flags_find_env(word);
	if (!h->key && h->flag && h->flag->cls == FLAG_KEY)
		h->key = key_by_name(h->flag->arg);
	if (!h->key && !h->flag)
		return 0;
	snprintf(h->via, sizeof(h->via), "%s", word);
	return 1;
}

void key_hint(const char *unknown, struct key_hint *h)
{
	memset(h, 0, sizeof(*h));
	if (hint_flag(unknown, h))
		return;
	/* a misspelling of one letter, then a key's leading words, then a
	 * farther misspelling, then shared words */
	struct near nr = near_start(unknown, 1);
	for (size_t i = 0; i < K__COUNT; i++)
		near_try(&nr, table[i].name);
	const char *name = nr.best ? nr.best : leading_words(unknown);
	if (!name) {
		nr = near_start(unknown, 3);
		for (size_t i = 0; i < K__COUNT; i++)
			near_try(&nr, table[i].name);
		name = nr.best ? nr.best : shared_words(unknown);
	}
	h->key = name ? key_by_name(name) : NULL;
}

const char *key_suggest(const char *unknown)
{
	struct key_hint h;
	key_hint(unknown, &h);
	return h.key ? h.key->name : NULL;
}

const char *key_flag_shown(const struct key_def *k)
{
	return k->flag ? k->flag : k->flag_off;
}

int key_parse_uint(const struct key_def *k, const char *v, uint64_t *out, char **err)
{
	uint64_t u;
	if ((k->kind != KEY_UINT && k->kind != KEY_PINS) || parse_u64(v, &u))
		return err ? errorf(err, "%s=%s is not a whole number", k->name, v) : -1;
	if (k->kind == KEY_PINS) { /* one byte count: a file's size, any uint64 */
		*out = u;
		return 0;
	}
	/* parse_u64 takes 0..UINT64_MAX; the row's range is the whole truth
	 * (every row's min is 0 or more) */
	if (u < (uint64_t)k->min || u > (uint64_t)k->max)
		return err ? errorf(err, "%s=%s is out of range %lld..%lld (law %s)", k->name, v, (long long)k->min,
				    (long long)k->max, k->law)
			   : -1;
	*out = u;
	return 0;
}

int key_parse_number(const struct key_def *k, const char *v, double *out, char **err)
{
	double d;
	if (k->kind != KEY_NUMBER || parse_double(v, &d) || !isfinite(d))
		return err ? errorf(err, "%s=%s is not a number", k->name, v) : -1;
	if (d < k->fmin || d > k->fmax)
		return err ? errorf(err, "%s=%s is out of range %g..%g (law %s)", k->name, v, k->fmin, k->fmax, k->law)
			   : -1;
	*out = d;
	return 0;
}

int key_parse_bool(const struct key_def *k, const char *v, int *out, char **err)
{
	static const char *const yes[] = {"1", "on", "true", "yes"}, *const no[] = {"0", "off", "false", "no"};
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
	return err ? errorf(err, "%s=%s is not a boolean (0/1, on/off, true/false, yes/no)", k->name, v) : -1;
}

int key_parse_enum(const struct key_def *k, const char *v, unsigned *out, char **err)
{
	size_t n = strlen(v);
	const char *c = k->choices ? k->choices : "";
	for (unsigned i = 0; *c; i++) {
		size_t m = strcspn(c, "|");
		if (m == n && strncmp(c, v, n) == 0) {
			*out = i;
			return 0;
		}
		c += m + (c[m] == '|');
	}
	return err ? errorf(err, "%s=%s is not one of %s", k->name, v, k->choices ? k->choices : "nothing") : -1;
}

/* One pin, or one per shard of a split payload. */
static int pins_ok(const struct key_def *k, const char *v)
{
	for (const char *p = v;; p++) {
		size_t n = strcspn(p, ",");
		size_t digits = k->kind == KEY_SHA256 ? strspn(p, "0123456789abcdefABCDEF") : strspn(p, "0123456789");
		if (digits != n || (k->kind == KEY_SHA256 ? n != 64 : n == 0 || n > 20))
			return 0;
		p += n;
		if (!*p)
			return 1;
	}
}

int key_addr_ok(const char *v)
{
	unsigned char buf[sizeof(struct in6_addr)];
	if (inet_pton(AF_INET, v, buf) == 1 || inet_pton(AF_INET6, v, buf) == 1)
		return 1;
	/* a host name (RFC 1123): dot-separated labels of letters, digits and
	 * '-', none empty, none past 63 bytes, none starting or ending in '-' */
	size_t n = strlen(v);
	if (!n || n > 253)
		return 0;
	for (const char *p = v; *p;) {
		size_t m = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-");
		if (!m || m > 63 || p[0] == '-' || p[m - 1] == '-' || (p[m] && p[m] != '.') ||
		    (p[m] == '.' && !p[m + 1]))
			return 0;
		p += m + (p[m] == '.');
	}
	/* all digits and dots is an IPv4 address inet_pton refused (999.1.1.1) */
	return strspn(v, "0123456789.") != n;
}

int key_check_value(const struct key_def *k, const char *v, char **err)
{
	if (k->id == K_SCRAPE_HOST && !key_addr_ok(v))
		return err ? errorf(err,
				    "%s=%s is neither an IP address nor a host name (it is the scrape job's target)",
				    k->name, v)
			   : -1;
	if (k->id == K_BIND_ADDR && !key_addr_ok(v))
		return err ? errorf(err,
				    "%s=%s is neither an IP address nor a host name (it is the engine's --host and "
				    "the scrape job's target)",
				    k->name, v)
			   : -1;
	uint64_t u;
	double d;
	int b;
	unsigned e;
	switch (k->kind) {
	case KEY_UINT: return key_parse_uint(k, v, &u, err);
	case KEY_NUMBER: return key_parse_number(k, v, &d, err);
	case KEY_BOOL: return key_parse_bool(k, v, &b, err);
	case KEY_ENUM: return key_parse_enum(k, v, &e, err);
	case KEY_SHA256:
		if (!pins_ok(k, v))
			return err ? errorf(err, "%s=%s is not 64 hex digits (comma-separated for a split payload)",
					    k->name, v)
				   : -1;
		return 0;
	case KEY_PINS:
		if (!pins_ok(k, v))
			return err ? errorf(err, "%s=%s is not a byte count (comma-separated for a split payload)",
					    k->name, v)
				   : -1;
		return 0;
	default: return 0;
	}
}

const struct key_def *key_owning_flag(const char *arg)
{
	char buf[96];
	long sn = flags_spelling(arg, buf, sizeof(buf));
	if (sn < 0)
		return NULL;
	size_t n = (size_t)sn;
	for (size_t i = 0; i < K__COUNT; i++)
		if (word_in_list(table[i].owns, buf, n))
			return &table[i];
	/* families the engine grows: every --spec-*, --lora*, --mmproj* and
	 * --fit* flag belongs to the key that renders the family */
	static const struct {
		const char *prefix;
		enum key_id id;
	} family[] = {
	    {"--spec-", K_SPEC_TYPE},	 {"--draft", K_SPEC_TYPE},	 {"--lora", K_LORA_FILE},
	    {"--mmproj", K_MMPROJ_FILE}, {"--no-mmproj", K_MMPROJ_FILE}, {"--fit", K_CTX_SIZE},
	};
	for (size_t i = 0; i < ARRAY_SIZE(family); i++)
		if (strncmp(buf, family[i].prefix, strlen(family[i].prefix)) == 0)
			return &table[family[i].id];
	return NULL;
}

const struct key_def *key_owning_env(const char *var)
{
	size_t n = strlen(var);
	for (size_t i = 0; i < K__COUNT; i++)
		if (word_in_list(table[i].env, var, n))
			return &table[i];
	/* the engine's negative twins: LLAMA_ARG_NO_X for LLAMA_ARG_X */
	if (strncmp(var, "LLAMA_ARG_NO_", 13) == 0) {
		char buf[96];
		if (n - 3 >= sizeof(buf))
			return NULL;
		snprintf(buf, sizeof(buf), "LLAMA_ARG_%s", var + 13);
		return key_owning_env(buf);
	}
	return NULL;
}

static const char *kind_name(enum key_kind k)
{
	static const char *const names[] = {"string",	  "path",   "integer", "number",    "boolean",
					    "cache type", "one of", "sha256",  "byte count"};
	return (size_t)k < ARRAY_SIZE(names) ? names[k] : "?";
}

/* A cell: '|' escaped, NULL as a dash. */
static void cell(struct sb *b, const char *s)
{
	sb_adds(b, " ");
	if (!s || !*s) {
		sb_adds(b, "-");
	} else {
		for (const char *p = s; *p; p++) {
			if (*p == '|')
				sb_addc(b, '\\');
			sb_addc(b, *p);
		}
	}
	sb_adds(b, " |");
}

char *keys_markdown(void)
{
	struct sb b = {0};
	sb_adds(&b, "# Endpoint keys\n\n"
		    "Generated from the key table (src/endpoint/keys.c) by `zealot check --keys --markdown`;\n"
		    "tests/cli/keys.sh fails when this file and the table differ.\n\n"
		    "A number is a whole number in decimal within its range (the engine's own\n"
		    "limit: an int flag is parsed with std::stoi, int32); a value outside is\n"
		    "refused, never wrapped. The flags a key owns are set by that key only:\n"
		    "EXTRA_ARGS may not name them, in any spelling, and the endpoint file may not\n"
		    "set their LLAMA_ARG_* variables (law C09).\n\n"
		    "| key | type | range | default | set-but-empty | law | flags it owns | what it is |\n"
		    "|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < K__COUNT; i++) {
		const struct key_def *k = &table[i];
		struct sb t = {0}, r = {0};
		sb_adds(&t, kind_name(k->kind));
		if (k->kind == KEY_ENUM)
			sb_addf(&t, " %s", k->choices);
		if (k->unit)
			sb_addf(&t, " (%s)", k->unit);
		if (k->kind == KEY_UINT)
			sb_addf(&r, "%lld..%lld", (long long)k->min, (long long)k->max);
		else if (k->kind == KEY_NUMBER)
			sb_addf(&r, "%g..%g", k->fmin, k->fmax);
		sb_addf(&b, "| `%s` |", k->name);
		cell(&b, t.s);
		cell(&b, r.s);
		cell(&b, k->def);
		cell(&b, k->optout ? k->optout : "an error");
		cell(&b, k->law);
		cell(&b, k->owns);
		cell(&b, k->doc);
		sb_addc(&b, '\n');
		sb_release(&t);
		sb_release(&r);
	}
	return sb_detach(&b);
}
