/* trust: what reaches the engine besides its argv, judged like argv.
 *
 * (EXTRA_ARGS is judged by laws.c: every word read as the engine reads
 * its argv, each flag classified by the pinned engine's own table,
 * endpoint/flags.h; C11 and each refused flag's law.)
 *
 * The engine's config files: before its argv the pinned engine applies
 * /etc/llama.cpp/config.ini, then ${XDG_CONFIG_HOME:-$HOME/.config}/
 * llama.cpp/config.ini (common/arg.cpp common_params_apply_system_config;
 * their "*" and "default" sections), and offers no switch to skip them.
 * serve points XDG_CONFIG_HOME at /dev/null, under which no file can
 * exist; the system file is read and judged (law R03): a setting a key
 * owns, a refused or a priced flag is an error, any other is said.
 *
 * The environment: serve builds the engine's from a list of names it
 * passes; a variable the engine, ggml or the loader reads (LLAMA_ARG_*,
 * LD_PRELOAD, GGML_BACKEND_PATH, HF_TOKEN ...) is refused (law R04).
 */
#ifndef ZEALOT_JUDGE_TRUST_H
#define ZEALOT_JUDGE_TRUST_H

#include "laws.h"

/* The system-wide file the pinned engine reads (no variable moves it). */
#define TRUST_SYSTEM_CONFIG "/etc/llama.cpp/config.ini"
/* XDG_CONFIG_HOME in the engine's environment: /dev/null/llama.cpp/... cannot exist. */
#define TRUST_XDG_CONFIG_HOME "/dev/null"

/* The user-level file the engine reads under env (NULL-terminated
 * NAME=VALUE; NULL: the environment serve builds). Caller frees. */
char *trust_user_config(char *const *env);
/* Judge the settings of one config file's text as the engine applies
 * them; path names the file. Returns the count of errors. */
size_t trust_config_text(const char *path, const char *text, struct findings *out);
/* Read and judge the files the engine reads under env (NULL: the one serve
 * builds), each under root (a prefix, "/proc/PID/root" for a live process;
 * NULL: none). A file that does not exist is no finding; one that exists
 * and cannot be read is an error (the engine would stop at it). *read_out,
 * when not NULL, gets the files that exist, blank-separated (caller frees).
 * Returns the count of errors. */
size_t trust_config_files(char *const *env, const char *root, struct findings *out, char **read_out);

/* The key that owns the flag variable name sets (LLAMA_ARG_CTX_SIZE:
 * CTX_SIZE; LLAMA_API_KEY: API_KEY_FILE), or NULL. */
const struct key_def *trust_env_owner(const char *name);
/* The verdict on one variable (NAME=VALUE) in the engine's environment:
 * NULL when it may reach the engine; else the law (R04, C09). *why gets
 * the reason or NULL; the caller frees it. */
const char *trust_env_var(const struct endpoint *ep, const char *entry, char **why);
/* Build the engine's environment from env: each variable the engine, ggml
 * or the loader reads is an error (R04, or C09 for a key's LLAMA_ARG_*);
 * the names serve passes are kept, XDG_CONFIG_HOME is set to
 * TRUST_XDG_CONFIG_HOME, every other variable is left out. *engine_env is
 * NULL-terminated and the caller frees it with trust_env_free. Returns
 * the count of errors. */
size_t trust_env(const struct endpoint *ep, char *const *env, char ***engine_env, struct findings *out);
void trust_env_free(char **env);

#endif
