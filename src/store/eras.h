/* eras: what history and diff share: the store opened only when it exists,
 * an endpoint named by its name or its file, an era's endpoint text read
 * back into keys, and one-line summaries of a shape, a payload and a boot.
 */
#ifndef ZEALOT_STORE_ERAS_H
#define ZEALOT_STORE_ERAS_H

#include <jansson.h>

#include "../base/zerr.h"
#include "../endpoint/endpoint.h"
#include "store.h"

/* Open the store in the state directory when its database exists. 0 with
 * *st NULL when nothing was ever recorded; -1 with *err. */
int eras_open(struct store **st, char **err);

/* The endpoint an argument names (a name, "frank-zealot", or a file,
 * "examples/history/frank-zealot.env", whose name without .env it is; arg
 * NULL: every endpoint's): *name
 * (allocated; NULL with arg NULL) and *st (eras_open: NULL when nothing was
 * ever recorded). ZE_OK, else with *err ZE_USAGE for a name the store
 * cannot hold or ZE_IO for a store that cannot be opened. */
enum zerr eras_find(const char *arg, char **name, struct store **st, char **err);
/* Whether the argument names a file rather than an endpoint. */
int eras_is_file(const char *arg);

/* An era's endpoint text parsed back (NULL with *err when it does not
 * parse any more, e.g. a key this zealot dropped). */
struct endpoint *eras_endpoint(const struct store_era *e, char **err);
/* The keys the file sets, in table order: {"KEY": "value", ...}. */
json_t *eras_keys(const struct endpoint *ep);

/* The keys whose values in force (explicit, else the default) differ
 * between two endpoint files, in table order: [{"key", "from", "to",
 * "from_set", "to_set"}], a value null when nothing is in force, *_set
 * whether the file writes the key (a key set to its default is no
 * change). */
json_t *eras_key_changes(const struct endpoint *from, const struct endpoint *to);

/* "3 x 200,704, f16 K + q8_0 V, batch 6144/1024, draft-mtp depth 2, rtx3090" */
char *eras_shape(const struct endpoint *ep);
/* "bonsai-9b-pq2.gguf (2,452,648,000 B, c79fcdfa...) + mmproj ... + adapter ..." */
char *eras_payload(const struct endpoint *ep, const char *pins_json);
/* "KV 14,406.00, compute 1,665.00 + 424.88, draft 480.97 + 424.86, settled
 * 22,870; probes 9 pass 0 fail; decode 213.5 t/s" from a boot's records. */
char *eras_boot_summary(const struct store_boot *b);

/* A JSON text kept in the store: null when there is none, the value, or
 * the text itself as a string when it does not parse (shown, not lost). */
json_t *eras_json(const char *s);

/* The payload file an era recorded under key ("MODEL_FILE", "MMPROJ_FILE",
 * "LORA_FILE"; deploy's pins gate hashed it): its path (allocated), bytes
 * and SHA-256 (lowercase). 0, or 1 when the era recorded none. */
int eras_recorded_pin(const struct store_era *e, const char *key, char **path, uint64_t *bytes, char sha[65]);

/* A boot as history --json shows it. */
json_t *eras_boot_json(const struct store_boot *b);

/* An era as history --json shows it: its window, keys, payload, pins,
 * argv, shape, plan summary, what a rollback to it changes against prev,
 * and its boots from st. NULL with *err when the store cannot be read. */
json_t *eras_era_json(struct store *st, const struct store_era *e, const struct store_era *prev, char **err);
/* A deploy or rollback attempt as history --json shows it, with its steps. */
json_t *eras_attempt_json(const struct store_attempt *a);

/* A router era's members (store.h's store_era_members_get) as history
 * shows them: {names: [{name, sha256, shape, payload}], changes: [...] against prev's (null
 * without prev)}; json null for an era that recorded none; NULL with *err
 * when the store cannot be read. */
json_t *eras_members_json(struct store *st, const struct store_era *e, const struct store_era *prev, char **err);
/* Two recorded members' JSON texts compared (either NULL: no members): one
 * row per member that differs, [{name, change: "added", "removed" or
 * "changed", keys: eras_key_changes of its file}]. */
json_t *eras_members_changes(const char *from_json, const char *to_json);

#endif
