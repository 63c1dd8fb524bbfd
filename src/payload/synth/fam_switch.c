/* Granite Switch (src/models/granite-switch.cpp of the pinned engine):
 * granite's scales over llama's block with one fused attn_qkv, and beside
 * every matrix a switched LoRA: per layer an [in, rank, slots] lora_a and
 * an [rank, out, slots] lora_b stack on attn_q, attn_k, attn_v,
 * attn_output, ffn_gate, ffn_up and ffn_down, slot 0 the base (a zero
 * delta), slot i+1 adapter i. The adapters' activation tokens (the last
 * ids of the vocabulary) and their substitutes (token 0) are keys; the
 * engine adds a router layer after the trunk from them, no tensors. */
#include <stdio.h>
#include <string.h>

#include "../../base/util.h"
#include "../synth.h"
#include "synth_int.h"

#define SW_ADAPTERS 3
#define SW_RANK	    32

void switch_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	char k[96];
	llama_keys(w, s, f); /* V_GRANITE: the logit, residual and embedding scales */
	akey_u32(w, s, "adapters.count", SW_ADAPTERS);
	akey_u32(w, s, "adapters.lora_rank", SW_RANK);
	akey_f32(w, s, "adapters.router_gain", 16.0f);
	akey(k, sizeof(k), s, "adapters.token_ids_activate");
	gw_arr_begin(w, k, GGUF_I32, SW_ADAPTERS);
	for (int i = 0; i < SW_ADAPTERS; i++)
		gw_arr_i32(w, (int32_t)s->n_vocab - 1 - i);
	akey(k, sizeof(k), s, "adapters.token_ids_substitute");
	gw_arr_begin(w, k, GGUF_I32, SW_ADAPTERS);
	for (int i = 0; i < SW_ADAPTERS; i++)
		gw_arr_i32(w, 0);
}

void switch_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	char nm[64];
	uint64_t E = s->n_embd, F = s->n_ff, nq = (uint64_t)s->head_dim * s->n_head;
	uint64_t nkv = (uint64_t)s->head_dim * s->n_head_kv, S = SW_ADAPTERS + 1;
	/* each switched matrix: its name, input and output widths */
	const struct {
		const char *a, *b;
		uint64_t in, out;
	} sw[] = {
	    {"attn_q.lora_a", "attn_q.lora_b", E, nq},	  {"attn_k.lora_a", "attn_k.lora_b", E, nkv},
	    {"attn_v.lora_a", "attn_v.lora_b", E, nkv},	  {"attn_output.lora_a", "attn_output.lora_b", nq, E},
	    {"ffn_gate.lora_a", "ffn_gate.lora_b", E, F}, {"ffn_up.lora_a", "ffn_up.lora_b", E, F},
	    {"ffn_down.lora_a", "ffn_down.lora_b", F, E},
	};
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", E);
		BM("attn_qkv.weight", E, nq + 2 * nkv);
		BM("attn_output.weight", nq, E);
		BV("ffn_norm.weight", E);
		ffn(t, s, il);
		for (size_t i = 0; i < ARRAY_SIZE(sw); i++) {
			expert_stack(t, il, sw[i].a, sw[i].in, SW_RANK, S);
			expert_stack(t, il, sw[i].b, SW_RANK, sw[i].out, S);
		}
	}
}
