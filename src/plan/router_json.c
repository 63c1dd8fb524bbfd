/* plan --json of a router endpoint (plan/router.h). */
#include <stdlib.h>

#include "../base/util.h"
#include "report.h"
#include "router.h"

static json_t *mib(uint64_t bytes)
{
	return json_real(plan_r2(plan_mib(bytes)));
}

/* The names of mask's members, in the set's order. */
static json_t *names(const struct router_price *rp, uint32_t mask)
{
	json_t *a = json_array();
	for (size_t i = 0; i < rp->r.n; i++)
		if (mask & (1u << i))
			json_array_append_new(a, json_string(rp->r.m[i].name));
	return a;
}

static json_t *member_json(const struct router_price *rp, size_t i)
{
	const struct router_priced *m = &rp->m[i];
	json_t *o = json_object();
	json_object_set_new(o, "name", json_string(rp->r.m[i].name));
	json_object_set_new(o, "path", json_string(rp->r.m[i].path));
	json_object_set_new(o, "total_mib", mib(m->total));
	json_t *on = json_object();
	for (unsigned d = 0; d < rp->n_devs; d++)
		json_object_set_new(on, rp->devs[d].name, mib(m->on[d]));
	json_object_set_new(o, "on_mib", on);
	json_object_set_new(o, "cache_ram_mib", mib(m->cache_ram));
	json_object_set_new(o, "checkpoints_mib", mib(m->checkpoints));
	json_object_set_new(o, "swap",
			    json_pack("{s:I, s:I, s:f, s:s}", "disk_bytes", (json_int_t)m->disk_bytes, "card_bytes",
				      (json_int_t)m->card_bytes, "ms", m->swap_ms, "source", "stated rates"));
	json_object_set_new(o, "plan", plan_to_json(rp->r.m[i].ep, &m->c, &m->p));
	return o;
}

json_t *router_price_json(const struct router_price *rp)
{
	json_t *o = json_object();
	json_object_set_new(o, "endpoint", json_string(rp->r.ep->name));
	json_object_set_new(o, "router", json_true());
	json_t *ms = json_array();
	for (size_t i = 0; i < rp->r.n; i++)
		json_array_append_new(ms, member_json(rp, i));
	json_object_set_new(o, "members", ms);
	json_t *ds = json_array();
	for (unsigned d = 0; d < rp->n_devs; d++) {
		const struct router_dev *v = &rp->devs[d];
		json_t *x = json_object();
		json_object_set_new(x, "device", json_string(v->name));
		json_object_set_new(x, "addressable_mib", mib(v->addressable));
		json_object_set_new(x, "slack_mib", mib(v->slack));
		json_object_set_new(x, "worst_mib", mib(v->worst));
		json_object_set_new(x, "free_mib",
				    json_real(plan_r2(((double)v->addressable - (double)v->worst) / MIB_D)));
		json_object_set_new(x, "worst_set", names(rp, v->worst_set));
		json_object_set_new(x, "fits", json_boolean(v->fits));
		json_array_append_new(ds, x);
	}
	json_object_set_new(o, "devices", ds);
	json_object_set_new(o, "router_mib", mib(rp->self));
	json_object_set_new(o, "models_max", json_integer(rp->r.models_max));
	json_object_set_new(o, "safe_models_max", json_integer(rp->safe_max));
	json_t *ap = json_array();
	for (size_t i = 0; i < rp->n_apart; i++)
		json_array_append_new(ap, names(rp, rp->apart[i]));
	json_object_set_new(o, "never_together", ap);
	json_t *mx = json_array();
	for (size_t i = 0; i < rp->n_maximal; i++)
		json_array_append_new(mx, names(rp, rp->maximal[i]));
	json_object_set_new(o, "maximal_sets", mx);
	json_object_set_new(o, "verdict", json_string(rp->fits ? "fits" : "refused"));
	return o;
}
