/* runtime: the engine binary as the second lock of an era, beside the
 * payload. Its SHA-256 (pinned by RUNTIME_SHA256, hashed through serve's
 * stamp cache), its build number (from `--version`, floored by
 * RUNTIME_MIN_BUILD) and the flags its `--help` lists (every flag zealot
 * renders must be one, law R02).
 *
 * What the runtime says about itself is read once per binary: the text is
 * cached under the state directory by the binary's SHA-256
 * (runtime/SHA.help, runtime/SHA.version). It is read sandboxed
 * (proc_run_sandboxed): never as root (as the endpoint's USER, else
 * nobody), with an empty environment, so no unit environment reaches it.
 */
#ifndef ZEALOT_RUNTIME_H
#define ZEALOT_RUNTIME_H

#include "../endpoint/endpoint.h"

/* The runtime's executable as the unit would exec it (RUNTIME, a bare
 * name looked up in PATH), or NULL. */
char *runtime_resolve(const struct endpoint *ep);

/* Its SHA-256 in hex[65], through the stamp cache (*cached: the stamp
 * answered; may be NULL). 0, or -1 with *err. */
int runtime_sha256(const char *path, char hex[65], int *cached, char **err);

/* What `path --WHAT` prints (WHAT "help" or "version"; both streams),
 * from the cache by sha (the SHA-256 of path) when there, else run
 * sandboxed as the endpoint's USER (unset or empty: nobody) and cached.
 * Never run, nor read from the cache, when ep pins RUNTIME_SHA256 and sha
 * is not that pin: vetting an endpoint file runs no binary it does not
 * pin. *who says whom it ran as ("nobody", "cache", "no one", ...;
 * static). A new string, or NULL with *err (err may be NULL). */
char *runtime_ask(const struct endpoint *ep, const char *path, const char *sha, const char *what, const char **who,
		  char **err);

/* The build number of a `--version` text ("version: X (build N, commit
 * C)") or of a boot log ("build N (C)"); -1 when there is none. */
long runtime_build(const char *version);

/* Whether help lists flag as an option (a whole word: "--ctx-size" is
 * not found in "--ctx-size-draft"). */
int runtime_flag_listed(const char *help, const char *flag);

#endif
