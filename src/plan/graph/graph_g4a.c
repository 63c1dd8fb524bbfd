/* graph_g4a: Gemma 4's assistant (src/models/gemma4-assistant.cpp of the
 * pinned engine), the draft-mtp drafter beside a gemma4 target: the
 * target's token rows (scaled) beside the target's hidden state, projected
 * down, then nextn blocks of Q-only attention over the target's cache (a
 * window layer reads the target's layer n-2, a full one n-1: the views
 * span the drafter's own cache sizes), GELU FFNs with post norms and an
 * output scale; the logits and the hidden state projected back up are
 * both outputs. */
#include "graph.h"

#include "../../payload/gguf.h"

/* the layer's window bit: attention.sliding_window_pattern per layer (the
 * census names every block nextn) */
static int g4a_swa(const struct dims *d, const struct model *m, uint32_t il)
{
	const struct gguf_kv *kv =
	    d->w->gg ? gguf_findf(d->w->gg, "%s.attention.sliding_window_pattern", m->arch) : NULL;
	uint64_t v = 0;
	return kv && il < kv->arr_n && gguf_arr_u64(kv, il, &v) == 0 && v;
}

void gr_gemma4_assistant(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int64_t T = d->T, Tn = T;
	const struct gguf_tensor *post = d->w->gg ? gguf_tensor_find(d->w->gg, "nextn.post_projection.weight") : NULL;
	int64_t Eb = post ? (int64_t)post->ne[1] : d->E;
	uint64_t vmax_row = d->v_row;
	int toks = gr_input_once(g, &in->tokens, (uint64_t)T * 4);
	int h = ga_input(g, (uint64_t)Eb * T * 4);
	/* the target's token_embd rows, scaled by sqrt(n_embd_backbone) */
	int x = gr_op_kind(g, ga_op(g, 0, F32, Eb, T, 1, 1, S(gr_named_weight(g, d, "token_embd.weight", -1), toks)),
			   GA_OP_GET_ROWS);
	x = ga_op(g, 1, F32, Eb, T, 1, 1, S(x));
	int xh = ga_op(g, 0, F32, 2 * Eb, T, 1, 1, S(x, h));
	x = gr_op_kind(g,
		       ga_op(g, 0, F32, d->E, T, 1, 1, S(gr_named_weight(g, d, "nextn.pre_projection.weight", 0), xh)),
		       GA_OP_MUL_MAT);
	for (uint32_t il = 0; il < m->n_layer_all; il++) {
		int L = (int)il, swa = g4a_swa(d, m, il);
		struct dims dl;
		gr_gemma4_dims(&dl, d, m, il, swa);
		int an = gr_norm(g, d, x, d->E, T, 1, L, "attn_norm.weight");
		int *krot, *vrot;
		gr_rot_inputs(g, &dl, in, swa, &krot, &vrot); /* a quantized cache's rotation, before the positions */
		int pos = gr_input_once(g, &in->pos, (uint64_t)T * 4);
		int freqs = swa ? -1 : gr_weight(g, d, L, "rope_freqs.weight");
		int q = gr_gemma4_q(g, d, &dl, L, an, pos, freqs);
		q = gr_rotate(g, q, dl.D * dl.H * T, dl.k_rot, krot);
		int o = gr_attend_kv(g, &dl, in, L, q, -1, -1, swa, vmax_row);
		o = gr_rotate(g, ga_view(g, o), dl.D * dl.H * T, dl.v_rot, vrot);
		int cur = gr_mm(g, d, L, "attn_output.weight", ga_view(g, o), d->E, T);
		if (il + 1 == m->n_layer_all && d->n_out < T) {
			int ids = gr_input_once(g, &in->out_ids, (uint64_t)d->n_out * 4);
			Tn = d->n_out;
			cur = gr_op_kind(g, ga_op(g, 0, F32, d->E, Tn, 1, 1, S(cur, ids)), GA_OP_GET_ROWS);
			x = gr_op_kind(g, ga_op(g, 0, F32, d->E, Tn, 1, 1, S(x, ids)), GA_OP_GET_ROWS);
		}
		cur = gr_norm(g, d, cur, d->E, Tn, 1, L, "post_attention_norm.weight");
		int attn_out = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(cur, x));
		cur = gr_norm(g, d, attn_out, d->E, Tn, 1, L, "ffn_norm.weight");
		cur = gr_ffn(g, d, L, cur, Tn);
		/* the post-FFN norm with il = -1: the callback pins nothing */
		cur = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(cur));
		cur = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(cur, gr_weight(g, d, L, "post_ffw_norm.weight")));
		x = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(cur, attn_out));
		x = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(x, gr_weight(g, d, L, "layer_output_scale.weight")));
	}
	int rn = gr_norm(g, d, x, d->E, Tn, 1, -1, "output_norm.weight");
	int logits = gr_mm(g, d, -1, "output.weight", rn, d->V, Tn);
	g->t[logits].output = 1;
	int hn = gr_op_kind(
	    g, ga_op(g, 0, F32, Eb, Tn, 1, 1, S(gr_named_weight(g, d, "nextn.post_projection.weight", -1), rn)),
	    GA_OP_MUL_MAT);
	g->t[hn].output = 1;
}
