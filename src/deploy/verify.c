/* deploy's checks of a started engine (MainPID alone on the port, its
 * command line, the boot ledger, the probes) and the record of what was
 * verified (an era and its boot, or a restore's boot). */
#include <string.h>

#include "../base/crypto_lazy.h"
#include "../base/proc.h"
#include "../endpoint/router.h"
#include "../live/audit.h"
#include "../live/ledger_compare.h"
#include "../live/memory.h"
#include "../live/promfile.h"
#include "../plan/device.h"
#include "../plan/report.h"
#include "cause.h"
#include "deploy.h"
#include "deploy_int.h"

void deploy_sha256_hex(const char *s, size_t n, char hex[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned len = 0;
	hex[0] = '\0';
	if (!EVP_Digest(s, n, md, &len, EVP_sha256(), NULL) || len != 32)
		return;
	for (unsigned i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

/* A02: the port is answered by MainPID alone. */
int deploy_verify_mainpid(struct run *x, const char *name, long main_pid)
{
	double t = mono_s();
	pid_t l[16];
	size_t n = audit_listeners(x->port, l, 16);
	struct sb who = {0};
	int other = 0, mine = 0;
	for (size_t i = 0; i < n; i++) {
		sb_addf(&who, "%s%ld", i ? ", " : "", (long)l[i]);
		other |= (long)l[i] != main_pid;
		mine |= (long)l[i] == main_pid;
	}
	int rc;
	if (other || !mine)
		rc = step(x, name, "failed", t, "A02",
			  "port %u is answered by %s, not by %s's MainPID %ld alone: a leftover engine answers",
			  x->port, n ? who.s : "no process this host can see", x->r->unit_name, main_pid);
	else
		rc = step(x, name, "ok", t, NULL, "port %u answered by MainPID %ld alone", x->port, main_pid);
	sb_release(&who);
	return rc;
}

/* A01: the live command line is exactly the intended argv. */
int deploy_verify_cmdline(struct run *x, const char *name, long main_pid, char *const *want, size_t n_want)
{
	double t = mono_s();
	size_t n = 0;
	char **live = audit_read_vector((pid_t)main_pid, "cmdline", &n);
	int rc;
	if (!live)
		rc = step(x, name, "failed", t, "A01", "cannot read /proc/%ld/cmdline", main_pid);
	else {
		size_t i = 0;
		while (i < n && i < n_want && strcmp(live[i], want[i]) == 0)
			i++;
		if (i == n && i == n_want)
			rc = step(x, name, "ok", t, NULL, "/proc/%ld/cmdline = zealot argv (%zu arguments)", main_pid,
				  n);
		else
			rc =
			    step(x, name, "failed", t, "A01",
				 "/proc/%ld/cmdline differs from zealot argv at argument %zu: intended '%s', live '%s'",
				 main_pid, i, i < n_want ? want[i] : "(end)", i < n ? live[i] : "(end)");
	}
	audit_free_vector(live, n);
	return rc;
}

/* The engine has logged past its buffers (they come before these lines). */
static int ledger_logged(const char *j, void *arg)
{
	(void)arg;
	return strstr(j, "model loaded") || strstr(j, "listening on");
}

/* The boot ledger of this start, from the journal, against the plan. */
static int verify_ledger(struct run *x)
{
	double t = mono_s();
	char *err = NULL;
	char *j = deploy_journal_until(x, x->unit.invocation_id, x->unit.main_pid, 10.0, ledger_logged, NULL, &err);
	if (!j) {
		int rc = step(x, "ledger", "failed", t, "C05", "cannot read the journal of this start: %s", err);
		free(err);
		return rc;
	}
	free(err);
	x->ledger = xcalloc(1, sizeof(*x->ledger));
	ledger_parse(j, strlen(j), x->ledger);
	struct cause c;
	int m10 = x->gpu && cause_classify(j, strlen(j), 1, &c) && strcmp(c.law, "M10") == 0;
	if (m10) {
		int rc = step(x, "ledger", "failed", t, "M10", "%s: %s", c.what, c.line ? c.line : "");
		cause_release(&c);
		free(j);
		return rc;
	}
	if (x->gpu)
		cause_release(&c);
	free(j);
	if (x->ledger->recognised == 0 || !x->ledger->target.present)
		return step(x, "ledger", "failed", t, "C05",
			    "the journal of this start holds no boot ledger (VERBOSITY must be 4 to prove the sizes)");
	struct ledger_comparison lc;
	ledger_compare(&x->plan, x->ledger, &lc);
	size_t exact = 0;
	double worst = 0;
	for (size_t i = 0; i < lc.n; i++) {
		exact += lc.v[i].exact;
		if (!lc.v[i].exact && lc.v[i].ledger != 0 && fabs(lc.v[i].error_pct) > worst)
			worst = fabs(lc.v[i].error_pct);
	}
	int rc;
	if (lc.diverged) {
		char *s = ledger_comparison_summary(&lc, 4);
		rc = step(x, "ledger", "failed", t, "A01",
			  "the boot ledger differs from the plan on an exact term: %s (the engine booted another shape "
			  "than the one gated)",
			  s);
		free(s);
	} else {
		rc = step(x, "ledger", "ok", t, NULL,
			  "every exact term matches the plan (%zu exact rows; modelled terms within %.2f %%)", exact,
			  worst);
	}
	ledger_comparison_release(&lc);
	return rc;
}

static int verify_probes(struct run *x)
{
	double t = mono_s();
	struct http_client hc = {x->http_base, x->api_key, 120000};
	struct probe_expect e;
	char *err = NULL;
	if (probe_expect_load(x->ep, &x->sc, &x->plan, &e, &err)) {
		int rc = step(x, "probes", "failed", t, "S12", "%s", err);
		free(err);
		return rc;
	}
	/* the previous era's answers: the same prompts are asked, each change named */
	char *base = NULL;
	if (x->have_prev && store_baseline_get(x->st, x->prev.id, &base, NULL, &err) < 0) {
		warn(x, "era %lld's baseline: %s", (long long)x->prev.id, err);
		free(err);
		err = NULL;
	}
	probe_expect_baseline(&e, base);
	char *only = probe_only_expected(x->o->probes, &e);
	probe_run(&hc, &e, only, &x->probes);
	free(only);
	probe_expect_release(&e);
	struct sb ch = {0};
	if (base && probe_compare(base, &x->probes, &ch) == 0)
		sb_adds(&ch, "the same answers");
	free(base);
	char against[48] = "";
	if (ch.len)
		snprintf(against, sizeof(against), "; against era %lld: ", (long long)x->prev.id);
	size_t pass = 0, fail = 0, skip = 0;
	const struct probe_result *first = NULL;
	for (size_t i = 0; i < x->probes.n; i++) {
		const struct probe_result *p = &x->probes.v[i];
		pass += p->status == PROBE_PASS;
		skip += p->status != PROBE_PASS && !probe_failed(p);
		if (probe_failed(p) && !fail++)
			first = p;
	}
	int rc;
	if (first)
		rc = step(x, "probes", "failed", t, first->law, "%zu of %zu probes failed; %s: %s%s%s", fail,
			  x->probes.n, first->name, first->evidence, against, ch.len ? ch.s : "");
	else
		rc =
		    step(x, "probes", "ok", t, NULL, "%zu pass, %zu skip%s%s", pass, skip, against, ch.len ? ch.s : "");
	sb_release(&ch);
	return rc;
}

/* The memory the engine holds after its probes, against the plan (M10: a
 * term spilled off the card fails the step; M09 and a host excess warn). */
static int verify_memory(struct run *x)
{
	double t = mono_s();
	int card =
	    x->gpu && x->plan.device->backend == DEVICE_CUDA ? (int)device_card_of(endpoint_value(x->ep, K_GPU)) : -1;
	struct memory_settled m;
	char *err = NULL;
	if (memory_read(x->unit.main_pid, card, &m, &err)) {
		int rc = step(x, "memory", "skipped", t, NULL, "%s", err);
		free(err);
		return rc;
	}
	struct memory_report r;
	memory_judge(&x->plan, x->ledger, &m, &r);
	char *s = memory_summary(&r);
	const struct memory_row *worst = NULL;
	for (size_t i = 0; i < r.n && !worst; i++)
		if (r.rows[i].error)
			worst = &r.rows[i];
	for (size_t i = 0; i < r.n && !worst; i++)
		if (r.rows[i].law)
			worst = &r.rows[i];
	int rc = step(x, "memory",
		      r.errors	   ? "failed"
		      : r.warnings ? "warning"
				   : "ok",
		      t, worst ? worst->law : NULL, "%s", s);
	free(s);
	return rc;
}

/* o as the commands print it with --json (`zealot plan --json`, `zealot
 * ledger --json`: compact, in order, 12 digits), o released. */
static char *json_text(json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
	json_decref(o);
	return s;
}

static char *probes_json(const struct probe_results *r)
{
	return probe_results_json(r);
}

/* What the era and its boot record as the plan: the shape's as modelled,
 * or a router's members priced (`zealot plan --json` of either). */
static char *era_plan_json(const struct run *x)
{
	return json_text(x->router ? router_price_json(&x->rp) : plan_to_json(x->ep, &x->sc, &x->plan_model));
}

/* The endpoint's card (GPU), asked by its index. */
static int64_t settled_used_mib(const struct run *x)
{
	if (!x->gpu)
		return -1;
	return device_nvidia_mib(device_card_of(endpoint_value(x->ep, K_GPU)), "memory.used");
}

/* A boot row's figures this run measured: the runtime's version, the
 * device, the payload, the ledger and probes (their JSON allocated: the
 * caller frees b->ledger_json and b->probes_json), the plan, the settled
 * memory. */
static void boot_measured(struct run *x, struct store_boot *b, char *plan_json)
{
	b->runtime_version = x->runtime_version;
	/* a router's boot: its children's ledgers, under a device no
	 * calibration matches (each child is its member's, not the router's) */
	b->device = x->router ? "router" : (char *)x->plan.device->name;
	b->payload_sha256 = x->model_sha;
	b->payload_bytes = x->model_bytes;
	b->ledger_json =
	    x->router ? xstrdup(x->router_ledger ? x->router_ledger : "{}") : json_text(ledger_to_json(x->ledger));
	b->plan_json = plan_json;
	b->settled_used_mib = x->router ? -1 : settled_used_mib(x);
	b->probes_json = probes_json(&x->probes);
}

int deploy_record(struct run *x)
{
	double t = mono_s();
	char sha[65];
	deploy_sha256_hex(x->env_text, strlen(x->env_text), sha);
	json_t *av = json_array();
	for (size_t i = 0; i < x->argv.n; i++)
		json_array_append_new(av, json_string(x->argv.v[i]));
	char *argv_json = json_dumps(av, JSON_COMPACT);
	json_decref(av);
	char *plan_json = era_plan_json(x);
	struct store_era e = {0};
	e.endpoint = x->name;
	e.endpoint_path = x->r->env_path;
	e.env_text = x->env_text;
	e.env_sha256 = sha;
	e.pins_json = x->pins_json;
	e.runtime = x->runtime ? x->runtime : (char *)endpoint_value(x->ep, K_RUNTIME);
	e.runtime_version = x->runtime_version;
	e.argv_json = argv_json;
	e.plan_json = plan_json;
	e.unit_text = x->unit_text;
	e.unit_name = x->r->unit_name;
	e.reason = x->reason;
	e.started = (int64_t)time(NULL);
	char *err = NULL;
	int rc = 0;
	if (store_era_add(x->st, &e, &err)) {
		rc = step(x, "record", "failed", t, NULL, "%s", err);
		goto done;
	}
	x->r->era = e.id;
	if (deploy_router_record(x, e.id, &err)) {
		rc = step(x, "record", "failed", t, NULL, "era %lld recorded, its members not: %s", (long long)e.id,
			  err);
		goto done;
	}
	struct store_boot b = {0};
	b.era_id = e.id;
	b.endpoint = x->name;
	b.at = (int64_t)time(NULL);
	b.source = "deploy";
	b.runtime = e.runtime;
	boot_measured(x, &b, plan_json);
	int brc = store_boot_add(x->st, &b, &err);
	x->r->boot = b.id;
	free(b.ledger_json);
	free(b.probes_json);
	if (x->o->prom_file && !x->router) {
		struct promfile pf = {x->name, &x->plan, x->ledger, b.settled_used_mib, e.id, &x->probes};
		char *text = promfile_text(&pf), *perr = NULL;
		if (promfile_write(x->o->prom_file, text, &perr))
			warn(x, "the textfile metrics: %s", perr);
		free(perr);
		free(text);
	}
	if (brc) /* the era is current and serves: a missing boot row is said, not undone */
		rc = step(x, "record", "warning", t, NULL, "era %lld recorded; its boot was not: %s", (long long)e.id,
			  err);
	else
		rc = step(x, "record", "ok", t, NULL, "era %lld, boot %lld", (long long)e.id, (long long)b.id);
done:
	free(err);
	free(argv_json);
	free(plan_json);
	return rc;
}

/* A boot of the current era: its ledger, probes and the bench figures. */
int deploy_record_boot(struct run *x)
{
	double t = mono_s();
	char *plan_json = era_plan_json(x);
	struct store_boot b = {0};
	b.era_id = x->prev.id;
	b.endpoint = x->name;
	b.at = (int64_t)time(NULL);
	b.source = (char *)(x->o->boot_source ? x->o->boot_source : "restore");
	b.runtime = x->runtime ? x->runtime : (char *)endpoint_value(x->ep, K_RUNTIME);
	boot_measured(x, &b, plan_json);
	b.bench_json = (char *)x->o->bench_json;
	char *err = NULL;
	x->r->era = x->prev.id;
	int rc;
	if (store_boot_add(x->st, &b, &err)) /* it serves, verified: a missing row is said, not undone */
		rc = step(x, "record", "warning", t, NULL, "era %lld serves; its boot was not recorded: %s",
			  (long long)x->prev.id, err);
	else
		rc = step(x, "record", "ok", t, NULL, "era %lld, boot %lld%s", (long long)x->prev.id, (long long)b.id,
			  b.bench_json ? " (with its bench figures)" : "");
	x->r->boot = b.id;
	free(b.ledger_json);
	free(b.probes_json);
	free(plan_json);
	free(err);
	return rc;
}

int deploy_verify(struct run *x)
{
	long pid = x->unit.main_pid;
	char inv[40];
	memcpy(inv, x->unit.invocation_id, sizeof(inv));
	inv[sizeof(inv) - 1] = '\0';
	return deploy_wait_health(x, "health", pid, inv, mono_s()) || deploy_verify_mainpid(x, "mainpid", pid) ||
		       deploy_verify_cmdline(x, "cmdline", pid, x->argv.v, x->argv.n) ||
		       (x->router ? deploy_router_verify(x) : verify_ledger(x) || verify_probes(x) || verify_memory(x))
		   ? -1
		   : 0;
}
