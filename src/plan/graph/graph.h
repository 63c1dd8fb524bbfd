/* graph: the engine's compute graphs, rebuilt node for node for the
 * allocator replay (galloc.h) and the scheduler replay (sched.c). Internal
 * to the planner: compute.c drives it; each family's builder lives in its
 * own file (graph_<family>.c) and is listed in graph.c's table.
 *
 * A builder mirrors src/models/<arch>.cpp of the pinned engine: the same
 * nodes, of the same sizes, in the order ggml_build_forward_expand visits
 * them, with views and in-place ops marked as such, weights and caches
 * held where place.h puts them. The allocator's answer depends on all of
 * that, so a builder is proven only by a boot (tests/live/).
 */
#ifndef ZEALOT_GRAPH_H
#define ZEALOT_GRAPH_H

#include <stdint.h>

#include "../../payload/gguf.h"
#include "../../payload/model.h"
#include "../place.h"
#include "galloc.h"

enum { F32 = 0, F16 = 1, I32 = 2, I64 = 3 };

/* Where weights and caches live, by backend (the devices in order, the CPU
 * last), and what the graph callback pins. */
struct where {
	const struct placement *pl;
	const struct gguf *gg;
	uint32_t n_layer_all;
	int cpu;	   /* the CPU backend's index */
	int force_norm;	   /* n_tokens < 32 or every layer offloaded: norms go to their layer's device */
	int has_output;	   /* output.weight exists (else the output layer copies token_embd) */
	int64_t max_nodes; /* the engine's node budget of each graph (ga_graph's), 0: none */
};

struct dims {
	const struct where *w;
	int64_t T, n_out, n_seq;
	int64_t E, F, V;
	int64_t D, H, Hkv;	/* head size, heads, KV heads */
	int64_t n_kv, n_kv_swa; /* cells per stream the masks span */
	int64_t kv_size, kv_size_swa, n_stream;
	uint64_t k_row, v_row; /* bytes per cell of one layer's K and V (cache types) */
	int fa;
	int mrope;	      /* positions are 4 per token */
	int64_t k_rot, v_rot; /* Hadamard rotation sizes for quantized caches, 0 = none */
	/* Gated DeltaNet */
	int64_t d_state, n_group, dt_rank, d_conv;
	int64_t n_embd_r, n_embd_s;
	int64_t rs_k; /* state snapshots the delta net writes: n_rs_seq + 1 */
	/* experts */
	int64_t n_expert, n_expert_used, F_exp;
	uint32_t k_type, v_type; /* the cache types' ggml ids (a backend's FA kernels read them) */
	int kq_ops;		 /* in-place ops on KQ before the softmax (grok's soft cap: 3) */
	int pool;		 /* EMBEDDINGS=on: the pooling (llama_pooling_type: 0 none .. 4 rank); -1 off */
	int64_t n_rs;		 /* recurrent cells s_copy spans when more than n_seq (0: n_seq) */
	/* the layers whose input is a graph output (a drafter of the target's
	 * hidden states extracts them: llama_set_embeddings_layer_inp), a bit each */
	uint64_t layer_out[4];
};

struct inputs {
	int tokens, pos, k_idx, v_idx, mask, k_idx_swa, v_idx_swa, mask_swa, out_ids, s_copy;
	int s_main, s_extra;			/* s_copy's two views (build_rs_inp_impl), made once */
	int k_rot, v_rot, k_rot_swa, v_rot_swa; /* each KV cache has its own rotation inputs */
	int attn_scale;				/* per-token attention temperature (deepseek2) */
	int k_idx_lid, mask_lid, k_rot_lid;	/* the DSA lightning indexer's cache (deepseek32) */
	int top_k;				/* the last full indexer layer's top-k cells (glm-dsa) */
	/* qwen4exp's QSA inputs, shared by the layers of one compress ratio */
	int qsa_ratio, qsa_kidx, qsa_cell_blk, qsa_blk_cells, qsa_blk_pos, qsa_bias;
};

#define S(...) ((const int[]){__VA_ARGS__, -2})

/* The builders' steps, each a node (or a few) of the engine's graph. */
int gr_op_kind(struct ga_graph *g, int t, int kind);
int gr_rotate(struct ga_graph *g, int x, int64_t elems, int64_t n, int *slot);
int gr_backend_of(const struct where *w, int dev);
int gr_weight(struct ga_graph *g, const struct dims *d, int il, const char *suffix);
/* The weight NAME held where the placement puts layer `layer`'s tensors
 * (-1: the input layer's; n_layer_all: the output layer's). */
int gr_weight_at(struct ga_graph *g, const struct dims *d, const char *name, int64_t layer);
int gr_cache(struct ga_graph *g, const struct dims *d, int il);
int gr_mm(struct ga_graph *g, const struct dims *d, int il, const char *w, int x, int64_t ne0, int64_t ne1);
/* gr_mm (ne0 x T) and its bias b added where the payload has it */
int gr_mm_b(struct ga_graph *g, const struct dims *d, int il, const char *w, const char *b, int x, int64_t ne0,
	    int64_t T);
int gr_input_once(struct ga_graph *g, int *slot, uint64_t bytes);
/* A graph input of type (F32 ... I64) and shape ne (an op over it may
 * take its memory in place); leaf: a leaf that no input flag marks
 * (ggml_new_tensor) */
int gr_input_nd(struct ga_graph *g, int leaf, uint8_t type, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3);
/* A contiguous view of x (a reshape, a slice of whole rows): its copy on
 * another backend (ggml_dup_tensor_layout) spans the view and has the
 * layout of an f32 op of its shape, so an in-place op there may take the
 * copy's memory (ggml_are_same_layout). */
int gr_cview(struct ga_graph *g, int x, int64_t ne0, int64_t ne1, int64_t ne2);
/* s_copy_main (extra 0) or s_copy_extra (1): the views of s_copy that
 * build_rs_inp_impl makes once per graph and every layer's build_rs reads
 * (in->s_copy made first). One tensor, so the scheduler copies it to a
 * backend once (its tensor_id_copy), not once per layer. */
int gr_s_view(struct ga_graph *g, struct inputs *in, int extra);
int gr_input_embd(struct ga_graph *g, const struct dims *d, struct inputs *in);
int gr_norm(struct ga_graph *g, const struct dims *d, int x, int64_t ne0, int64_t ne1, int64_t ne2, int il,
	    const char *w);
/* build_norm with LLM_NORM: ggml_norm (never in place), named "norm"
 * and pinned like gr_norm's, then the weight (in place) */
int gr_lnorm(struct ga_graph *g, const struct dims *d, int x, int64_t ne0, int64_t ne1, int64_t ne2, int il,
	     const char *w);
int gr_ffn(struct ga_graph *g, const struct dims *d, int il, int x, int64_t T);
int gr_moe(struct ga_graph *g, const struct dims *d, int il, int x, int64_t T);
/* gr_moe with the chosen experts' weights normalised or not (graph_moe.c) */
int gr_moe_norm(struct ga_graph *g, const struct dims *d, int il, int x, int64_t T, int norm_w);
/* The cache a layer's attention uses, as build_attn with kv_iswa picks
 * it (swa: the window's): the cells its masks span, its size, and its
 * index and mask inputs' slots */
struct gr_kv {
	int64_t n_kv, size;
	int *k_idx, *v_idx, *mask;
};
void gr_kv_of(const struct dims *d, struct inputs *in, int swa, struct gr_kv *c);
int gr_attend(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int q, int k, int v, int swa);
/* the same with an attention sink per head (gpt-oss): a source of the
 * flash-attention op or of the softmax; sinks < 0: none */
int gr_attend_sinks(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int q, int k, int v, int swa,
		    int sinks);
/* gr_attend_sinks in its two halves, for a builder whose graph visits
 * something between them (build_attn expands the cache stores, not the
 * attention): K and V into the caches of layer il (cache[0], cache[1]),
 * then the attention over them */
void gr_attend_store(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int k, int v, int swa,
		     int *cache);
int gr_attend_core(struct ga_graph *g, const struct dims *d, struct inputs *in, int q, int swa, int sinks,
		   const int *cache);
/* build_attn_mha without flash attention over the cache views kc and vc
 * (n_kv cells): kq = k*q, the softmax in place (with the sinks when
 * sinks >= 0), kqv = v*kq, permute + cont; without KV offload the graph
 * pins the cont to the CPU */
/* Mark a KQ MUL_MAT over a K cache of hkv heads whose quantized view is
 * not contiguous in dims 0-1 (a Vulkan device sends it to the CPU). */
void gr_kq_strided(struct ga_graph *g, const struct dims *d, int kq, int64_t hkv);
int gr_attn_kqv(struct ga_graph *g, const struct dims *d, int qp, int kc, int vc, int mask, int64_t n_kv, int sinks);
/* A mask the graph builds where the attention visits it (qwen4exp's QSA
 * mask from its top-k cells): build returns it. gr_attend_core_fn and
 * gr_attn_kqv_fn are gr_attend_core and gr_attn_kqv with it in place of
 * the mask input (NULL: the input). */
struct gr_mask_fn {
	int (*build)(struct ga_graph *g, void *ctx);
	void *ctx;
};
int gr_attn_kqv_fn(struct ga_graph *g, const struct dims *d, int qp, int kc, int vc, int mask, int64_t n_kv, int sinks,
		   const struct gr_mask_fn *fn);
int gr_attend_core_fn(struct ga_graph *g, const struct dims *d, struct inputs *in, int q, int swa, int sinks,
		      const int *cache, const struct gr_mask_fn *fn);
int gr_rope(struct ga_graph *g, int x, int pos, int64_t ne0, int64_t ne1, int64_t ne2);
/* build_moe_ffn's options beyond qwen3moe's (gr_moe) */
struct gr_moe_opts {
	int sigmoid;			/* gating by sigmoid, else softmax (same nodes) */
	int gating;			/* expert_gating_func: 3 softmax over the chosen weights, 4 sqrt(softplus) */
	int probs_b;			/* exp_probs_b: a selection bias */
	int norm_w;			/* weights normalised by their sum */
	int scale;			/* expert_weights_scale neither 0 nor 1 */
	int64_t n_groups, n_group_used; /* expert groups, 0: none */
	int logits_in;			/* the router's logits given (probs_in): their index + 1; 0: built over x */
	int sel_sigmoid;		/* grovemoe: the selection over sigmoid(logits), beside the gating */
	int chunk;			/* grovemoe's chunk experts: the choice cast, scaled, cast back */
};
int gr_moe_ex(struct ga_graph *g, const struct dims *d, int il, int x, int64_t T, const struct gr_moe_opts *o);
/* The routing as the payload sets it, what the engine's builders pass to
 * build_moe_ffn from hparams: its gating function (sigmoid when 2), its
 * weights' normalisation and their scale (graph_moe.c); a builder
 * overrides what its engine builder passes as a constant. */
struct gr_moe_opts gr_moe_opts_of(const struct model *m);
/* The same gated by softmax, norm_w as the builder passes it: the call of
 * qwen3moe.cpp and its kin (the payload's scale alone) */
struct gr_moe_opts gr_moe_opts_softmax(const struct model *m, int norm_w);
/* build_lora_mm_id: the matmul of the expert stack blk.il.w over x for the
 * chosen experts sel (k per token), ne0 rows out (graph_moe.c) */
int gr_mm_id(struct ga_graph *g, const struct dims *d, int il, const char *w, int x, int sel, int64_t ne0, int64_t k,
	     int64_t T);
/* gr_moe_ex's two halves (graph_moe.c), for a builder that visits them
 * apart: the routing (its weights w and the chosen experts sel), then the
 * experts over x weighted by it (act 0 SwiGLU, 1 squared ReLU without a
 * gate, 2 and 3 situ, 4 GELU without a gate), their sum not yet cont'ed
 * when one expert is used. */
struct gr_moe_routed {
	int w, sel;
	int chexps; /* grovemoe: the ffn_*_chexps stacks, not ffn_*_exps */
};
void gr_moe_route(struct ga_graph *g, const struct dims *d, int il, int x, int64_t T, const struct gr_moe_opts *o,
		  struct gr_moe_routed *r);
int gr_moe_experts(struct ga_graph *g, const struct dims *d, int il, int x, int64_t T, const struct gr_moe_routed *r,
		   int act);
int gr_ffn_shexp(struct ga_graph *g, const struct dims *d, int il, int x, int64_t T, int64_t F);
/* gr_moe_ex and gr_ffn_shexp of width F_sh over x, added (graph_moe.c) */
int gr_moe_shared(struct ga_graph *g, const struct dims *d, int il, int x, int64_t T, const struct gr_moe_opts *o,
		  int64_t F_sh);
/* build_moe_ffn's steps: the chosen weights w (k per token) normalised by
 * their sum (a view); the weighted experts' k views, built first, then
 * added up (one expert: the view itself, which the caller conts). */
int gr_moe_norm_w(struct ga_graph *g, int w, int64_t k, int64_t T);
int gr_moe_sum(struct ga_graph *g, const struct dims *d, int experts, int64_t k, int64_t T);
/* The payload holds blk.IL.SUFFIX (an optional tensor of layer il). */
int gr_has_tensor(const struct dims *d, int il, const char *suffix);

/* A family's FFN step of layer il over x (T rows): dense, routed experts,
 * shared ones, as the family builds it. */
typedef int gr_ffn_fn(struct ga_graph *g, const struct model *m, const struct dims *d, int il, int x, int64_t T);
/* gr_ffn as a gr_ffn_fn: the dense SiLU-gated FFN of every layer */
gr_ffn_fn gr_ffn_dense;
/* A family's attention of layer il over its normed input an. */
typedef int gr_attn_fn(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il,
		       int an);
/* A layer's body over its input x and its attention-normed input an
 * (last: the trunk's last layer); returns the layer's output. */
typedef int gr_layer_fn(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il,
			int x, int an, int last, const void *ctx);
/* The trunk's walk, as the engine's builders write it: the input
 * embedding (build_inp_embd), then per layer (but the MTP blocks) the
 * attention norm (build_norm, attn_norm) and the layer's body; returns
 * the last layer's output. */
int gr_layers(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, gr_layer_fn *layer,
	      const void *ctx);
/* The trunk deepseek2.cpp and glm4-moe.cpp build alike: per layer the
 * attention norm, attn, the last layer's output rows, the FFN half (its
 * norm ffn_norm); then result_norm (h_nextn too: a graph output) over
 * the output rows and the LM head. */
void gr_trunk_moe(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, gr_attn_fn *attn,
		  const char *ffn_norm, gr_ffn_fn *ffn);
/* An MTP head as its own context's graph, as qwen35.cpp, glm4-moe.cpp
 * and deepseek2.cpp build graph_mtp alike: gr_mtp_input, the attention
 * norm, attn, the FFN half, gr_mtp_output. */
void gr_mtp_block(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il,
		  gr_attn_fn *attn, const char *ffn_norm, gr_ffn_fn *ffn);
/* The last layer keeps only the output rows: out_ids, then the GET_ROWS
 * of the attention's output (*cur) and of the residual (*res); returns
 * the rows kept. The engine builds them always (build_inp_out_ids);
 * when_fewer: only when there are fewer outputs than tokens, as the
 * dense builders (llama, gpt-oss, dense, mistral3) have it. */
int64_t gr_out_rows(struct ga_graph *g, const struct dims *d, struct inputs *in, int *cur, int *res, int when_fewer);
/* The inputs of a layer's cache rotation (swa: the window cache's) into
 * *krot and *vrot; the K rotation's input made now (ggml finds it, src0
 * of q's rotation, before the positions, and allocates leafs so). */
void gr_rot_inputs(struct ga_graph *g, const struct dims *d, struct inputs *in, int swa, int **krot, int **vrot);
/* build_attn's end: gr_attend, the output's rotation undone, attn_output
 * (llama's, llama4's and olmo2's attention alike) */
int gr_attn_wo(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int q, int k, int v, int swa,
	       int *vrot);
/* A layer's tail: in the last layer (last) only the output rows of cur
 * and of the residual x (gr_out_rows), then gr_ffn_half; returns the
 * layer's output. */
int gr_layer_end(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il, int last,
		 int cur, int x, int when_fewer, const char *ffn_norm, gr_ffn_fn *ffn);
/* A layer's FFN half: the residual add of cur and res, the FFN norm
 * (named norm), the FFN, the residual add; returns the layer's output. */
int gr_ffn_half(struct ga_graph *g, const struct model *m, const struct dims *d, int il, int cur, int res, int64_t T,
		const char *norm, gr_ffn_fn *ffn);
/* The MTP head's input (graph_mtp of qwen35.cpp, glm4-moe.cpp and
 * deepseek2.cpp alike): the token's embedding and the target's hidden
 * state, each normed, concatenated and projected by nextn.eh_proj. */
int gr_mtp_input(struct ga_graph *g, const struct dims *d, struct inputs *in, int il);
/* The MTP head's output (the same three): h_nextn normed by the block's
 * nextn.shared_head_norm (output_norm where the payload has none), a
 * graph output, then gr_lm_rows. */
void gr_mtp_output(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int x);
/* result_norm over the output rows x (the last layer kept), then the LM
 * head, its logits a graph output; returns result_norm. */
int gr_result(struct ga_graph *g, const struct dims *d, int x);
/* The LM head over the output rows of h: out_ids, the GET_ROWS,
 * output.weight; the logits a graph output. */
void gr_lm_rows(struct ga_graph *g, const struct dims *d, struct inputs *in, int h);

/* A family's graph: the whole forward pass of one ubatch, as the engine's
 * llm_build_<arch> builds it. */
typedef void gr_build_fn(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in);
/* An MTP head as its own context's graph: the nextn block il. */
typedef void gr_draft_fn(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il);

gr_build_fn gr_llama, gr_qwen35;
gr_build_fn gr_deepseek2;
gr_build_fn gr_glm4moe;
gr_build_fn gr_granite_hybrid;
gr_build_fn gr_dense;
gr_build_fn gr_bert;	    /* graph_bert.c */
gr_build_fn gr_llama_nc;    /* graph_bert.c: llama-embed, dream, llada */
gr_build_fn gr_modern_bert; /* graph_bert.c */
gr_build_fn gr_t5encoder;   /* graph_t5.c */
gr_build_fn gr_t5;	    /* graph_t5.c: the decoder (graph<false>) */
/* build_attn_mha over K and V that are no cache's (graph_bert.c): the
 * views qp (T tokens), kp and vp (n_kv rows each); flash attention casts
 * K and V to f16, else V is copied transposed first, then KQ, the
 * softmax, KQV, the merged heads' cont */
int gr_attend_rows(struct ga_graph *g, const struct dims *d, int qp, int kp, int vp, int mask, int64_t n_kv);
/* build_pooling over the last hidden states x (T rows) when the endpoint
 * serves embeddings (d->pool >= 0): mean (a matmul with the mean
 * input), cls and last (the rows of the input's ids), rank (cls's rows,
 * then the classification head the payload has) */
void gr_pooling(struct ga_graph *g, const struct dims *d, int x, int64_t T);

gr_draft_fn gr_qwen35_mtp;
gr_build_fn gr_oss;		  /* graph_oss.c */
gr_build_fn gr_gemma4;		  /* graph_gemma4.c */
gr_build_fn gr_gemma4_assistant;  /* graph_g4a.c */
gr_build_fn gr_eagle3, gr_dflash; /* graph_drafter.c: the drafters of a target's hidden states */
/* 1 when arch's graph (the engine's builder this table mirrors) records its
 * layers' inputs, which a draft-eagle3/dflash drafter reads; 0 when it
 * does not (the engine asserts); -1 when arch is not mirrored */
int gr_records_layer_inp(const char *arch);
/* Gemma 4's widths of layer il (graph_gemma4.c): its head size (the window's
 * when swa) and KV heads, its K and V row bytes, its cache's rotations. */
void gr_gemma4_dims(struct dims *dl, const struct dims *d, const struct model *m, uint32_t il, int swa);
/* Gemma 4's query (graph_gemma4.c): projected, normed per head, roped (with
 * the proportional table freqs on a full layer, else freqs < 0). */
int gr_gemma4_q(struct ga_graph *g, const struct dims *d, const struct dims *dl, int L, int an, int pos, int freqs);
gr_build_fn gr_gemma3n;					  /* graph_gemma3n.c */
gr_build_fn gr_rwkv7, gr_rwkv6, gr_arwkv7, gr_rwkv6qwen2; /* graph_rwkv.c */
/* build_attn over an iSWA cache (graph_gemma4.c): K and V (each < 0:
 * none, a layer reading an earlier layer's cache) into the cache of layer
 * kv_il, then attention over it; a transposed V spans vmax_row bytes a
 * cell (the widest layer's). */
int gr_attend_kv(struct ga_graph *g, const struct dims *dl, struct inputs *in, int kv_il, int q, int k, int v, int swa,
		 uint64_t vmax_row);
/* A weight outside the blk.N. names, held in layer `layer`'s buffer (-1: the
 * input layer; graph_gemma4.c). */
int gr_named_weight(struct ga_graph *g, const struct dims *d, const char *name, int64_t layer);
/* project_per_layer_inputs (gemma3n, gemma4): x0 projected to every layer's
 * slice [P, NL, T] (reshaped through a contiguous copy when cont, gemma3n's,
 * else a view), normed, added to the token rows, scaled and permuted to
 * [P, T, NL] (a cont). */
int gr_per_layer_project(struct ga_graph *g, const struct dims *d, int x0, int rows, int64_t P, int64_t NL, int cont);
gr_build_fn gr_mistral3;      /* graph_mistral3.c */
gr_build_fn gr_olmo2;	      /* graph_olmo2.c */
gr_build_fn gr_classic;	      /* graph_classic.c: starcoder2, phi2, gpt2, falcon ... */
gr_build_fn gr_cohere;	      /* graph_cohere.c */
gr_build_fn gr_llama4;	      /* graph_llama4.c */
gr_build_fn gr_moe_kin;	      /* graph_moe2.c: dbrx, arctic, grok, dots1, bailingmoe(2), smallthinker */
gr_build_fn gr_deepseek2_ocr; /* graph_moe2.c */
gr_build_fn gr_plm;	      /* graph_plm.c: plm, minicpm3 */
gr_draft_fn gr_glm4moe_mtp;
gr_draft_fn gr_deepseek2_mtp;
struct gr_mla_mask;
/* Kimi-K3 (graph_kimik3.c) over kimi-linear's layers (graph_linear.c):
 * the Kimi delta attention layer il over its normed input an (K3's
 * full-rank gate and sigmoid decay where the payload has them), and the
 * MLA layer up to build_attn's output (wo NULL: K3 gates it first) */
gr_build_fn gr_kimi_k3;
/* what of a kimi-k3 payload's MLA graph_kimik3.c does not replay (synth
 * writes neither), or NULL */
const char *gr_kimi_k3_unmirrored(const struct gguf *gg, const struct model *m);
int gr_kimi_kda(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il, int an);
int gr_kimi_mla_kqv(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il, int an);
/* situ(gate, up) (kimi-k3.cpp, build_moe_ffn's LLM_FFN_SITU) over
 * [ne0, ne1, ne2]: the gate's half beta*tanh(gate/beta)*sigmoid(gate)
 * (visited before up is), then up through lb*tanh(up/lb) when linear
 * (situ_linear_beta > 0) and the product (graph_kimik3.c) */
int gr_situ_gate(struct ga_graph *g, int gate, int64_t ne0, int64_t ne1, int64_t ne2);
int gr_situ_up(struct ga_graph *g, int act, int up, int linear, int64_t ne0, int64_t ne1, int64_t ne2);
/* deepseek2.cpp's MLA attention of layer il over its normed input an
 * (graph_deepseek2.c): q through its latent, the K-only cache, attn_v_b.
 * mk (NULL: the cache's mask) builds the attention's mask where the
 * attention reaches it, from the normed q latent qr (deepseek32's top-k
 * mask over the cache's). */
typedef int gr_mla_mask_fn(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il,
			   int an, int qr);
/* A mask hook and what it reads: the model, the layer's normed input an
 * and the normed q latent qr. */
struct gr_mla_mask {
	gr_mla_mask_fn *fn;
	const struct model *m;
	int an, qr;
};
int gr_mla_attention(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il, int an,
		     gr_mla_mask_fn *mk);
/* deepseek2's FFN: dense in the leading layers, else the routed experts
 * beside the shared ones */
int gr_ds2_ffn(struct ga_graph *g, const struct model *m, const struct dims *d, int il, int x, int64_t T);
gr_build_fn gr_deepseek32; /* graph_deepseek32.c */
gr_build_fn gr_deepseek4;  /* graph_deepseek4.c */
/* deepseek4's placements the mirror was not proven on (a CUDA or Vulkan
 * device): the reason, or NULL */
const char *gr_deepseek4_unmirrored(const struct placement *pl);
/* never: the compressed caches' cells, PAD(ceil(n_ctx_seq / ratio), 256),
 * are not affine in the cells the masks span, so no memo piece holds */
uint64_t gr_deepseek4_affine_from(const struct model *m);
/* set_rows' zeros of a mask rebuilt from k top cells per token (Tq a
 * stream, ns streams): a leaf of the graph (no input), filled in place */
int gr_topk_zeros(struct ga_graph *g, int64_t k, int64_t Tq, int64_t ns);
/* deepseek32 keeps min(n_kv, top_k) cells a token: affine in the cells
 * only from top_k up */
uint64_t gr_deepseek32_affine_from(const struct model *m);
/* build_attn with the K-only input and v_mla (graph_deepseek2.c): K's row
 * (lora + rope) cached, V a view of it, the output decompressed by
 * attn_v_b (dv per head) and projected by attn_output */
int gr_attend_mla(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int qcur, int kcur, int64_t lora,
		  int64_t dv, const struct gr_mla_mask *mk);
/* gr_attend_mla without attn_output: build_attn's output with wo NULL
 * (bailingmoe3 gates it per head first), [dv x H, T] */
int gr_attend_mla_kqv(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int qcur, int kcur,
		      int64_t lora, int64_t dv, const struct gr_mla_mask *mk);
/* gr_mla_attention (no mask hook) up to gr_attend_mla_kqv */
int gr_mla_attention_kqv(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il,
			 int an);
/* What dots3note's MLA does beside deepseek2's: the shared rope key
 * normed by the layer's k_norm weight before its rope (NULL: not), and
 * no attn_output in build_attn (no_wo: the output returned, dv per head) */
struct gr_mla_opts {
	const char *k_norm;
	int no_wo;
};
/* gr_mla_attention with o (NULL: deepseek2's own) */
int gr_mla_attention_ex(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il,
			int an, gr_mla_mask_fn *mk, const struct gr_mla_opts *o);
/* deepseek32's DSA attention of layer il (graph_deepseek32.c) with o: its
 * indexer keys cached (the rotation input made where first reached),
 * the attention masked by the indexer's top-k cells */
int gr_dsa_attention_ex(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il,
			int an, const struct gr_mla_opts *o);
gr_build_fn gr_dots3note;    /* graph_dots3.c */
gr_draft_fn gr_mistral4_mtp; /* graph_moe.c: the trunk again */
/* qwen35moe's FFN in qwen35's block: routed experts + the gated shared one */
int gr_qwen35moe_ffn(struct ga_graph *g, const struct model *m, const struct dims *d, int il, int x, int64_t T);
/* qwen35's gated attention in its two halves (graph_qwen35.c), for a
 * builder whose graph visits something between them: q, k and v, K and V
 * stored; then the attention over the cache, the gate and attn_output */
struct gr_q35_attn {
	int qf, q, swa, cache[2];
	int *vrot;
	const struct gr_mask_fn *mask; /* NULL: the mask input */
	int o;			       /* the attention's output, -1 until made */
};
void gr_qwen35_attn_in(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int an, int swa,
		       struct gr_q35_attn *a);
int gr_qwen35_attn_out(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, struct gr_q35_attn *a);
/* the attention over the cache alone (build_attn_mha expands it), made
 * once: gr_qwen35_attn_out then goes on from it */
int gr_qwen35_attn_core(struct ga_graph *g, const struct dims *d, struct inputs *in, struct gr_q35_attn *a);
/* qwen35's Gated DeltaNet of layer il over an; conv_cont: each rollback
 * slot's conv tail cont'ed before its copy (qwen4exp) */
int gr_qwen35_deltanet(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int an, int conv_cont);
gr_build_fn gr_qwen4exp; /* graph_qwen4.c */

/* The mamba2 mixer's steps (graph_mamba.c, build_mamba2_layer of
 * src/models/mamba-base.cpp), shared by the builders that hold one:
 * build_rs's gather of a layer's states (scale_inplace, get_rows, the extra
 * states copied back); the mixer up to what it expands (conv window and
 * new state into the cache); its tail (the gate, the grouped norm, the
 * output projection) once a later expand reaches it. */
struct gr_mamba2 {
	int y_ssm, x, zxbcdt;
};
int gr_rs_zero(struct ga_graph *g, int cache);
/* A mamba layer's conv window (w wide) copied from conv_x into the conv
 * cache rcache `sinks` times, then build_rs's zeroing of the SSM cache
 * scache; returns the view of scache the scan reads. */
int gr_conv_window(struct ga_graph *g, const struct dims *d, struct inputs *in, int conv_x, int64_t w, int rcache,
		   int scache, int64_t sinks);
/* ggml_ssm_scan (K = 1) over the states s4 and x, dt, A, B, C (xdabc),
 * then build_rs's untouched states copied back and the new states
 * written into scache; returns the scan's output */
int gr_ssm_scan(struct ga_graph *g, const struct dims *d, struct inputs *in, int scache, int s4, const int xdabc[5]);
int gr_mamba_rs(struct ga_graph *g, const struct dims *d, struct inputs *in, int cache, int64_t size);
/* build_rs as Gated DeltaNet and Kimi's delta attention read it, over
 * whole-cache views and the s_copy views (gr_s_view): the zeroing, the states
 * gathered (returned), the extra states copied back. The caller has made
 * s_copy (gr_s_view reads it). */
int gr_rs_gather(struct ga_graph *g, const struct dims *d, struct inputs *in, int cache, int64_t size);
/* The conv step both mamba mixers share (build_mamba_layer,
 * build_mamba2_layer): gr_conv_window (its view in *s4), then
 * conv_x convolved with ssm_conv1d, biased and silu'd over w channels; the
 * result. */
int gr_ssm_conv(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int rcache, int scache, int conv_x,
		int64_t w, int64_t sinks, int *s4);
void gr_mamba2_head(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int an, int rcache,
		    int conv_states, struct gr_mamba2 *t);
int gr_mamba2_tail(struct ga_graph *g, const struct dims *d, int il, const struct gr_mamba2 *t);
gr_build_fn gr_falcon_h1, gr_jamba, gr_kimi_linear; /* graph_linear.c */
/* Kimi's delta attention (graph_linear.c): causal_conv1d's input of q, k
 * or v (c = 0, 1, 2: the projection, the gathered conv states before it,
 * the last window into the cache rcache), returning the concatenation;
 * then its depthwise conv and SiLU (q and k L2-normed) */
int gr_kda_conv_in(struct ga_graph *g, const struct dims *d, int il, int an, int rcache, int states, int c,
		   int64_t inner);
int gr_kda_conv(struct ga_graph *g, const struct dims *d, int il, int conv_x, int c, int64_t hd, int64_t H);
gr_build_fn gr_bailing3;     /* graph_bailing3.c */
gr_draft_fn gr_bailing3_mtp; /* graph_bailing3.c */
gr_build_fn gr_minimax01;    /* graph_minimax.c */
/* Whether sched_reserve reserves arch's prefill again with one sequence
 * (llama_context::sched_reserve: minimax-01), its buffers the larger. */
int gr_one_seq_prefill(const char *arch);
gr_build_fn gr_minimax_m3; /* graph_minimax.c: dense or MiniMax sparse attention */

/* The architectures whose graph zealot mirrors, as the engine's
 * llama_model::build_graph switch picks a builder by
 * general.architecture. */
struct graph_family {
	const char *arch;
	gr_build_fn *build;
	gr_draft_fn *draft; /* NULL: the family has no MTP head */
	const char *source; /* the engine's builder, for notes */
	/* the cells from which the graph is affine in them (the memo's
	 * pieces hold), NULL: from the first */
	uint64_t (*affine_from)(const struct model *m);
};

/* The family of an architecture, or NULL when its graph is not mirrored. */
const struct graph_family *gr_family(const char *arch);

/* The builder zealot prices an unmirrored architecture with: the closest
 * mirrored one by metadata (Gated DeltaNet keys: qwen35's; else llama's).
 * Its figures are estimates, and the plan says so. */
const struct graph_family *gr_fallback(const struct model *m);

/* How zealot prices an architecture's compute graph, for the table of every
 * architecture the engine knows: 1 and *source (the engine's builder) when
 * mirrored; 0 and *source = the estimate's rule when not. */
int gr_pricing(const char *arch, const char **source);
/* Why the pinned engine refuses to load arch though it knows the name (it
 * has no builder), or NULL. */
const char *gr_refused(const char *arch);

/* graph_wavtok.c: wavtokenizer-dec (a vocoder: not served, law S18) */
gr_build_fn gr_wavtok;
/* what of a wavtokenizer-dec placement graph_wavtok.c does not replay (its
 * layers on two devices or more: the scheduler's copies between the
 * blocks' turns), or NULL */
const char *gr_wavtok_unmirrored(const struct placement *pl);

/* graph_switch.c: graniteswitch */
gr_build_fn gr_granite_switch;

#endif
