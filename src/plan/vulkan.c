#include "vulkan.h"

#include <stdlib.h>
#include <string.h>

#include "../base/util.h"

enum { T_F32 = 0, T_F16 = 1, T_Q4_0 = 2, T_Q4_1 = 3, T_Q5_0 = 6, T_Q5_1 = 7, T_Q8_0 = 8, T_IQ4_NL = 20, T_BF16 = 30 };

/* lavapipe: vkGetPhysicalDeviceProperties2 on this machine (Mesa 22.3.6,
 * llvmpipe LLVM 15, Debian 12), 2026-12: minStorageBufferOffsetAlignment
 * 16, minMemoryMapAlignment 64, maxStorageBufferRange 134,217,728,
 * maxMemoryAllocationSize 2 GiB, no VK_EXT_shader_64bit_indexing; its
 * flash attention runs (boots here); CPU-type (law C13). The cards'
 * figures, none measured here: RADV's and ANV's alignments (storage 4,
 * map 4096) are Mesa's limits tables in its source; their ranges and all
 * of NVIDIA's are drivers' reports as published on vulkan.gpuinfo.org.
 * Replace them with the card's own `vulkaninfo` before trusting a compute
 * figure to the byte. */
static const struct vulkan_limits limits[] = {
    {"lavapipe", 16, 64, 134217728ull, 2147483648ull, 1, "measured here (Mesa 22.3.6 lavapipe)", 1},
    {"rx7900xtx", 4, 4096, 4294967295ull, 4294967292ull, 1,
     "alignments from Mesa RADV's limits table (source), ranges from RADV reports on vulkan.gpuinfo.org; "
     "not measured here",
     0},
    {"arc-a770", 4, 4096, 4294967295ull, 4294967295ull, 1,
     "alignments from Mesa ANV's limits table (source), ranges from ANV reports on vulkan.gpuinfo.org; "
     "not measured here",
     0},
    {"rtx3090-vk", 16, 64, 4294967295ull, 4294967295ull, 1,
     "NVIDIA's proprietary driver's reports on vulkan.gpuinfo.org, not checked against a card; not measured "
     "here",
     0},
};

const struct vulkan_limits *vulkan_limits_of(const char *profile)
{
	for (size_t i = 0; profile && i < ARRAY_SIZE(limits); i++)
		if (strcmp(limits[i].profile, profile) == 0)
			return &limits[i];
	return NULL;
}

static int fa_type_ok(uint32_t t)
{
	static const uint32_t ok[] = {T_F32, T_F16, T_BF16, T_Q8_0, T_Q5_1, T_Q5_0, T_Q4_1, T_Q4_0, T_IQ4_NL};
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++)
		if (ok[i] == t)
			return 1;
	return 0;
}

int vulkan_fa_ok(const struct vulkan_limits *l, uint32_t k_type, uint32_t v_type, int64_t dk, int64_t dv)
{
	if (dk % 8 || dv % 8)
		return 0;
	if (!fa_type_ok(k_type) || !fa_type_ok(v_type))
		return 0;
	if ((k_type == T_BF16) != (v_type == T_BF16))
		return 0;
	return l ? l->subgroup_fa : 1;
}

/* ggml_backend_vk_device_supports_op's tensor_size_supported */
static int size_ok(const struct vulkan_limits *l, uint64_t bytes)
{
	if (bytes > l->max_alloc)
		return 0;
	return !l->max_storage_range || bytes <= l->max_storage_range;
}

int vulkan_supports_op(const struct ga_graph *g, int t, int backend, const void *rules)
{
	const struct vulkan_rules *r = rules;
	if (backend < 0 || backend >= 16 || !r->lim[backend])
		return 1;
	const struct vulkan_limits *l = r->lim[backend];
	const struct ga_tensor *x = &g->t[t];
	if (!size_ok(l, x->bytes))
		return 0;
	for (int s = 0; s < x->n_src; s++)
		if (x->src[s] >= 0 && !size_ok(l, g->t[x->src[s]].bytes))
			return 0;
	if (x->op == GA_OP_MUL_MAT && x->quant_strided)
		return 0;
	/* MUL_MAT needs src0->ne[3] == src1->ne[3]; a weight's is 1 and the
	 * product's is src1's (MLA's v_mla over a 4-D attention output) */
	if (x->op == GA_OP_MUL_MAT && x->n_src > 0 && g->t[x->src[0]].weight && x->ne[3] > 1)
		return 0;
	/* an FA node a builder did not describe (dk 0) is assumed to run */
	if (x->op == GA_OP_FA && x->fa.dk)
		return vulkan_fa_ok(l, x->fa.k_type, x->fa.v_type, x->fa.dk, x->fa.dv);
	return 1;
}

/* SSM_SCAN as the loader probes it for the weight it reads (ssm_a:
 * weight_buft_supported, with the payload's state size and head width):
 * no quantized source, A laid out as Mamba-2's (nb[1] one float: ssm_a
 * {1, heads}; Mamba-1's {d_state, d_inner} never is), a state of 128 or
 * 256 and heads a multiple of 16 wide. Its shared memory (d_state floats,
 * 1 KiB at most) is under every device's minimum, and every profile's
 * driver has basic subgroups in compute (lavapipe: measured, a state of
 * 128 runs on it). */
int vulkan_ssm_scan_ok(const struct vulkan_limits *l, int a_quantized, uint64_t a_nb1, int64_t d_state,
		       int64_t head_dim)
{
	(void)l;
	if (a_quantized || a_nb1 != 4)
		return 0;
	return (d_state == 128 || d_state == 256) && head_dim > 0 && head_dim % 16 == 0;
}

/* --- graph_optimize (ggml_vk_graph_optimize) ----------------------------- */

/* The ops its rules name: a node's gop when a builder tagged it, else
 * read from the scheduler's kind, a view (ggml's empty ops: VIEW,
 * RESHAPE, PERMUTE, TRANSPOSE alike) or a write into a cache (SET_ROWS). */
enum vop {
	V_OTHER,
	V_EMPTY,
	V_ROPE,
	V_FA,
	V_MUL_MAT,
	V_MUL_MAT_ID,
	V_GET_ROWS,
	V_SET_ROWS,
	V_GOP /* + enum ga_gop */
};
#define G(x)	  (V_GOP + GA_G_##x)
#define MIN(a, b) ((a) < (b) ? (a) : (b))

static int vop(const struct ga_graph *g, int i)
{
	const struct ga_tensor *t = &g->t[i];
	if (t->gop)
		return V_GOP + t->gop;
	if (t->view_op)
		return V_EMPTY;
	if (t->is_view && !t->dep) /* a sink: SET_ROWS into a cache, CPY into a state */
		return t->n_src >= 2 && g->t[t->src[1]].input ? V_SET_ROWS : V_OTHER;
	switch (t->op) {
	case GA_OP_ROPE: return V_ROPE;
	case GA_OP_FA: return V_FA;
	case GA_OP_MUL_MAT: return V_MUL_MAT;
	case GA_OP_MUL_MAT_ID: return V_MUL_MAT_ID;
	case GA_OP_GET_ROWS: return V_GET_ROWS;
	default: return V_OTHER;
	}
}

/* ggml op NONE: a leaf (an input, a weight, a cache, a copy) */
static int is_none(const struct ga_graph *g, int i)
{
	return !g->t[i].is_view && g->t[i].n_src == 0;
}

static int base_of(const struct ga_graph *g, int i)
{
	return g->t[i].is_view && g->t[i].view_src >= 0 ? g->t[i].view_src : i;
}

/* is_src_of: dst reads src, or a view of one reads or overwrites the
 * other's storage, or both view the same tensor */
static int is_src_of(const struct ga_graph *g, int dst, int src)
{
	const struct ga_tensor *d = &g->t[dst], *s = &g->t[src];
	int empty = d->view_op || s->view_op;
	for (int k = 0; k < GA_MAX_SRC; k++) {
		int ds = k < d->n_src ? d->src[k] : -1, ss = k < s->n_src ? s->src[k] : -1;
		if (ds == src)
			return 1;
		if (empty)
			continue;
		if (ds >= 0 && base_of(g, ds) == base_of(g, src))
			return 1;
		if (ss >= 0 && base_of(g, dst) == base_of(g, ss))
			return 1;
	}
	return base_of(g, dst) == base_of(g, src);
}

#define E V_EMPTY
static const uint8_t pat_softmax_norm[] = {G(SOFT_MAX), E,	     G(ARGSORT), E,	 V_GET_ROWS,
					   E,		G(SUM_ROWS), G(CLAMP),	 G(DIV), E};
static const uint8_t pat_sigmoid_norm_bias[] = {G(UNARY), E,	       G(ADD),	 G(ARGSORT), E, V_GET_ROWS,
						E,	  G(SUM_ROWS), G(CLAMP), G(DIV),     E};
static const uint8_t pat_softplus_norm_bias[] = {G(UNARY),   G(SQRT), E,	   G(ADD),   G(ARGSORT), E,
						 V_GET_ROWS, E,	      G(SUM_ROWS), G(CLAMP), G(DIV),	 E};
static const uint8_t pat_softmax[] = {G(SOFT_MAX), E, G(ARGSORT), E, V_GET_ROWS};
static const uint8_t pat_late_softmax[] = {G(ARGSORT), E, V_GET_ROWS, E, G(SOFT_MAX), E};
#undef E
static const struct {
	const uint8_t *op;
	int n;
} patterns[] = {
    {pat_softmax_norm, sizeof(pat_softmax_norm)},
    {pat_sigmoid_norm_bias, sizeof(pat_sigmoid_norm_bias)},
    {pat_softplus_norm_bias, sizeof(pat_softplus_norm_bias)},
    {pat_softmax, sizeof(pat_softmax)},
    {pat_late_softmax, sizeof(pat_late_softmax)},
};

struct vko {
	const struct ga_graph *g;
	const int *nodes;
	int n;
	uint8_t *used;	 /* by position */
	uint8_t *in_new; /* by tensor: already in the new order (used_node_set) */
	int *set, n_set;
	int *out, n_out;
};

static int match(const struct vko *o, int p, int start)
{
	const struct ga_graph *g = o->g;
	if (start + patterns[p].n > o->n)
		return 0;
	for (int j = 0; j < patterns[p].n; j++)
		if (vop(g, o->nodes[start + j]) != patterns[p].op[j] || o->used[start + j])
			return 0;
	return 1;
}

static int in_any_pattern(const struct vko *o, int start)
{
	for (size_t p = 0; p < ARRAY_SIZE(patterns); p++)
		if (match(o, (int)p, start))
			return 1;
	return 0;
}

static void emit(struct vko *o, int pos)
{
	if (o->n_out < o->n) /* the engine's loop copies n nodes back */
		o->out[o->n_out++] = o->nodes[pos];
	o->in_new[o->nodes[pos]] = 1;
	o->used[pos] = 1;
}

/* A dependency of j on c that fusion allows (c the set's last, j right after) */
static int fusable(const struct vko *o, int c, int j)
{
	static const uint8_t pairs[][2] = {{G(RMS_NORM), G(MUL)},  {V_MUL_MAT, G(ADD)}, {V_MUL_MAT_ID, G(ADD_ID)},
					   {V_MUL_MAT_ID, G(MUL)}, {G(ADD), G(ADD)},	{G(SSM_CONV), G(ADD)},
					   {G(SSM_CONV), G(UNARY)}};
	if (j != c + 1 || c != o->set[o->n_set - 1])
		return 0;
	int a = vop(o->g, o->nodes[c]), b = vop(o->g, o->nodes[j]);
	for (size_t k = 0; k < ARRAY_SIZE(pairs); k++)
		if (pairs[k][0] == a && pairs[k][1] == b)
			return 1;
	return 0;
}

static void take(struct vko *o, int k)
{
	o->set[o->n_set++] = k;
	o->used[k] = 1;
}

/* After j joined the set: the chains ggml-vulkan pulls in with it
 * (RMS_NORM + MUL + ROPE, ROPE + VIEW + SET_ROWS, MUL_MAT_ID + ADD_ID +
 * MUL, MUL_MAT + ADD + ADD, SSM_CONV + ADD + UNARY). */
static void pull_chains(struct vko *o, int j)
{
	const struct ga_graph *g = o->g;
	const int *nd = o->nodes;
	int n = o->n, rope = j, prev = j > 0 ? vop(g, nd[j - 1]) : -1, cur = vop(g, nd[j]);
	if (cur == G(MUL) && prev == G(RMS_NORM))
		for (int k = j + 1; k < MIN(j + 15, n); k++) {
			const struct ga_tensor *t = &g->t[nd[k]];
			if (vop(g, nd[k]) == V_ROPE && t->src[0] == nd[j] && t->n_src >= 2 && is_none(g, t->src[1]) &&
			    (t->n_src < 3 || is_none(g, t->src[2]))) {
				rope = k;
				take(o, k);
				break;
			}
		}
	if (vop(g, nd[rope]) == V_ROPE) {
		int view = -1, rows = -1;
		for (int k = rope + 1; k < MIN(rope + 10, n) && rows < 0; k++) {
			const struct ga_tensor *t = &g->t[nd[k]];
			if (view < 0 && vop(g, nd[k]) == V_EMPTY && t->src[0] == nd[rope])
				view = k;
			else if (view >= 0 && vop(g, nd[k]) == V_SET_ROWS && t->src[0] == nd[view])
				rows = k;
		}
		if (rows >= 0) {
			take(o, view);
			take(o, rows);
		}
	}
	int want = cur == G(ADD_ID) && prev == V_MUL_MAT_ID ? G(MUL)
		   : cur == G(ADD) && prev == V_MUL_MAT	    ? G(ADD)
		   : cur == G(ADD) && prev == G(SSM_CONV)   ? G(UNARY)
							    : -1;
	for (int k = j + 1; want >= 0 && k < MIN(j + 15, n); k++) {
		const struct ga_tensor *t = &g->t[nd[k]];
		if (vop(g, nd[k]) != want || t->src[0] != nd[j])
			continue;
		if (want != G(UNARY) && !(t->n_src >= 2 && (is_none(g, t->src[1]) || o->in_new[t->src[1]])))
			continue;
		take(o, k);
		break;
	}
}

#define NUM_TO_CHECK 20

/* One set: the first unused node, the real nodes of the next 20 that
 * depend on no unused node (fusion aside), then the views. */
static void one_set(struct vko *o, int first)
{
	const struct ga_graph *g = o->g;
	const int *nd = o->nodes;
	int end = MIN(first + NUM_TO_CHECK, o->n);
	o->n_set = 0;
	o->set[o->n_set++] = first;
	for (int j = first + 1; j < end; j++) {
		if (o->used[j] || g->t[nd[j]].view_op || in_any_pattern(o, j))
			continue;
		int ok = 1;
		for (int c = first; c < j && ok; c++)
			if (!o->used[c] && is_src_of(g, nd[j], nd[c]) && !fusable(o, c, j))
				ok = 0;
		if (ok) {
			o->set[o->n_set++] = j;
			pull_chains(o, j);
		}
	}
	if (vop(g, nd[o->set[o->n_set - 1]]) != G(ADD))
		for (int j = first + 1; j < end; j++) {
			if (o->used[j] || !g->t[nd[j]].view_op)
				continue;
			int ok = 1;
			for (int c = first; c < j && ok; c++) {
				int in_set = 0;
				for (int q = 0; q < o->n_set && !in_set; q++)
					in_set = o->set[q] == c;
				if (!o->used[c] && is_src_of(g, nd[j], nd[c]) && !in_set)
					ok = 0;
			}
			if (ok)
				o->set[o->n_set++] = j;
		}
	for (int q = 0; q < o->n_set; q++)
		emit(o, o->set[q]);
}

void vulkan_graph_optimize(const struct ga_graph *g, int *nodes, int n, int backend, const void *rules)
{
	const struct vulkan_rules *r = rules;
	if (n <= 0 || backend < 0 || backend >= 16 || !r->lim[backend] || !r->reorder)
		return;
	struct vko o = {g, nodes, n, xcalloc((size_t)n, 1), xcalloc((size_t)g->n, 1), NULL, 0, NULL, 0};
	o.set = xmalloc(((size_t)n * 5 + 8) * sizeof(*o.set));
	o.out = xmalloc((size_t)n * sizeof(*o.out));
	int first = 0;
	while (first < n) {
		int kept = 0;
		for (size_t p = 0; p < ARRAY_SIZE(patterns) && !kept; p++)
			if (match(&o, (int)p, first)) {
				for (int j = 0; j < patterns[p].n; j++)
					emit(&o, first + j);
				kept = 1;
			}
		if (!kept)
			one_set(&o, first);
		while (first < n && o.used[first])
			first++;
	}
	memcpy(nodes, o.out, (size_t)o.n_out * sizeof(*nodes));
	free(o.used);
	free(o.in_new);
	free(o.set);
	free(o.out);
}
