/* synth's answer and tokenizer: the byte-level vocabulary, the ChatML
 * template, and answer=TEXT's rows.
 *
 * answer=TEXT: every block's weights are zero, so every block adds nothing
 * to the residual stream: the last hidden state is the current token's
 * embedding, and the output matrix maps it to the next token. The payload
 * is then a table "this token is followed by that one", which greedy
 * decoding (and sampling: the margin is ~64 logits) follows exactly:
 *
 *   "\n" (the generation prompt's last token) -> "</think>" -> ANSWER -> <|im_end|>
 *
 * ANSWER is one vocabulary entry whose text is the whole answer, so any
 * text works. Each of the four tokens that carry a step has an embedding
 * of its own (a one-hot row, state 0..3); output_norm is ones; the rest of
 * token_embd and output stays zero. alt=TEXT2 is a fifth entry that only
 * an adapter on output.weight reaches (synth_lora_answer).
 *
 * image_answer=TEXT: an answer a red image turns. The blocks of a payload
 * that answers are zero, so nothing an image adds to the sequence reaches
 * the last token. image_answer opens one path:
 *
 * - the projector (`synth clip --set red=1`): its patch embedding reads
 *   how red each patch is ((R - G) / 2 of the normalised pixels: 1 for red,
 *   0 for white, grey or black, -1 for green) into dimension 0, mm.0 passes
 *   it to hidden 0, GELU, and mm.2 writes it to dimension IMG_FLAG of the
 *   text model's embedding, beside a constant 1 in IMG_ONE (so the text
 *   model's RMS norm keeps the sign and the size: red 0.64, green -0.16 of
 *   the norm's scale);
 * - the text model's block 0: attn_norm reads IMG_FLAG only, attn_q and
 *   attn_k stay zero (every position attends to every earlier one alike),
 *   attn_v copies IMG_FLAG (x IMG_V) into head 0, attn_output writes it
 *   back to IMG_FLAG. The last token's state gains f x e_IMG_FLAG, f the
 *   image tokens' share of the context times ~1.3 for red;
 * - output: image_answer's row reads state 1 ("</think>") at
 *   ANS_WEIGHT - IMG_MARGIN and IMG_FLAG at IMG_B, so it beats the answer
 *   once f > IMG_MARGIN / IMG_B (a red image a fifth of the context or
 *   more) and loses by IMG_MARGIN x 16 logits without an image; the rows of
 *   "</think>" and <|im_end|> read IMG_FLAG alike, so the other steps keep
 *   their successor whatever f is. image_answer is state 4, followed by
 *   <|im_end|>.
 */
#include <endian.h>
#include <stdio.h>
#include <string.h>

#include "../../base/util.h"
#include "../synth.h"
#include "synth_int.h"

int answer_mode(const struct synth_spec *s)
{
	return s->answer[0] != '\0';
}

int validate_answer(const struct synth_spec *s, const struct synth_family *f, char **err)
{
	if (!answer_mode(s))
		return s->alt[0] || s->image_answer[0] ? errorf(err, "--set %s needs --set answer (the base answer)",
								s->alt[0] ? "alt" : "image_answer")
						       : 0;
	/* a plain final norm and an output matrix of its own: gemma's tie the
	 * output to the embedding and scale it, lfm2's norm is another */
	if (f->flags & SF_NO_ANSWER)
		return errorf(err, "--set answer: %s ties or scales its output; use llama, qwen35, qwen3 or mistral3",
			      s->arch);
	if (s->n_embd < 4)
		return errorf(err, "--set answer needs embd >= 4 (one dimension per step of the answer)");
	if (s->alt[0] && strcmp(s->answer, s->alt) == 0)
		return errorf(err, "--set alt must differ from answer");
	if (s->image_answer[0]) {
		if (!(f->flags & SF_IMAGE))
			return errorf(err, "--set image_answer is written for llama only");
		if (s->wtype != 1)
			return errorf(err, "--set image_answer writes f16 weights: leave type at f16");
		if (s->n_embd < 8)
			return errorf(err, "--set image_answer needs embd >= 8");
		if (!strcmp(s->image_answer, s->answer) || (s->alt[0] && !strcmp(s->image_answer, s->alt)))
			return errorf(err, "--set image_answer must differ from answer and alt");
	}
	return 0;
}

/* f32 to IEEE half, for the few exact values written here (0, 1, 4). */
static uint16_t f16_bits(float f)
{
	uint32_t x;
	memcpy(&x, &f, sizeof(x));
	uint32_t sign = (x >> 16) & 0x8000, exp = (x >> 23) & 0xff, man = x & 0x7fffff;
	if (exp == 0)
		return (uint16_t)sign;
	return (uint16_t)(sign | ((exp - 127 + 15) << 10) | (man >> 13));
}

static void poke_f16(struct gguf_writer *w, uint64_t at, uint64_t elem, float v)
{
	uint16_t h = htole16(f16_bits(v));
	gw_poke(w, at + elem * 2, &h, 2);
}

void poke_f32(struct gguf_writer *w, uint64_t at, uint64_t elem, float v)
{
	uint32_t bits;
	memcpy(&bits, &v, sizeof(bits));
	bits = htole32(bits);
	gw_poke(w, at + elem * 4, &bits, 4);
}

/* The step table: state i's token and the token it is followed by. */
static void answer_table(const struct synth_spec *s, uint32_t tok[4], uint32_t next[4], unsigned *n)
{
	static const uint32_t t[4] = {ANS_NL, ANS_THINK_END, ANS_TOKEN, ANS_ALT};
	static const uint32_t f[4] = {ANS_THINK_END, ANS_TOKEN, TOK_IM_END, TOK_IM_END};
	*n = s->alt[0] ? 4 : 3;
	memcpy(tok, t, sizeof(t));
	memcpy(next, f, sizeof(f));
}

/* token_embd: state i's token is the one-hot e_i; output_norm: ones;
 * output: the row of state i's successor holds ANS_WEIGHT at i. */
void answer_weights(struct gguf_writer *w, const struct synth_spec *s, uint64_t embd_at, uint64_t norm_at,
		    uint64_t out_at)
{
	uint32_t tok[4], next[4];
	unsigned n;
	answer_table(s, tok, next, &n);
	for (uint32_t i = 0; i < s->n_embd; i++) {
		float one = 1.0f;
		uint32_t bits;
		memcpy(&bits, &one, sizeof(bits));
		bits = htole32(bits);
		gw_poke(w, norm_at + (uint64_t)i * 4, &bits, 4);
	}
	for (unsigned i = 0; i < n; i++) {
		poke_f16(w, embd_at, (uint64_t)tok[i] * s->n_embd + i, 1.0f);
		poke_f16(w, out_at, (uint64_t)next[i] * s->n_embd + i, ANS_WEIGHT);
	}
	if (s->image_answer[0]) {
		poke_f16(w, embd_at, (uint64_t)ANS_IMG * s->n_embd + IMG_STATE, 1.0f);
		poke_f16(w, out_at, (uint64_t)TOK_IM_END * s->n_embd + IMG_STATE, ANS_WEIGHT);
		poke_f16(w, out_at, (uint64_t)ANS_IMG * s->n_embd + 1, ANS_WEIGHT - IMG_MARGIN);
		static const uint32_t reads_flag[] = {ANS_IMG, ANS_THINK_END, TOK_IM_END};
		for (size_t i = 0; i < ARRAY_SIZE(reads_flag); i++)
			poke_f16(w, out_at, (uint64_t)reads_flag[i] * s->n_embd + IMG_FLAG, IMG_B);
	}
}

/* image_answer's block 0 (see IMG_FLAG): norm_at, v_at and o_at are
 * blk.0's attn_norm, attn_v and attn_output. */
void image_weights(struct gguf_writer *w, const struct synth_spec *s, uint64_t norm_at, uint64_t v_at, uint64_t o_at)
{
	uint64_t q = (uint64_t)s->head_dim * s->n_head;
	poke_f32(w, norm_at, IMG_FLAG, 1.0f);
	poke_f16(w, v_at, IMG_FLAG, IMG_V);    /* v row 0 (kv head 0) reads IMG_FLAG */
	poke_f16(w, o_at, IMG_FLAG * q, 1.0f); /* IMG_FLAG reads head 0's element 0 */
}

/* --- tokenizer and template ------------------------------------------- */

static const char *const specials[] = {
    "<|endoftext|>", "<|im_start|>", "<|im_end|>",	 "<think>",	   "</think>",
    "<tool_call>",   "</tool_call>", "<|vision_start|>", "<|vision_end|>", "<|image_pad|>",
};

/* GPT-2's byte-level alphabet: printable bytes stand for themselves, the
 * rest are shifted above 255 so every byte has a visible code point. */
size_t byte_token(unsigned b, char out[4])
{
	unsigned cp;
	if ((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255)) {
		cp = b;
	} else {
		unsigned k = 0;
		for (unsigned x = 0; x < b; x++)
			if (!((x >= 33 && x <= 126) || (x >= 161 && x <= 172) || (x >= 174 && x <= 255)))
				k++;
		cp = 256 + k;
	}
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	out[0] = (char)(0xC0 | (cp >> 6));
	out[1] = (char)(0x80 | (cp & 0x3F));
	return 2;
}

/* ChatML with thinking, tools and images; optionally restricting
 * reasoning_effort the way the seeds' template does (A08). */
static const char template_head[] =
    "{%- if reasoning_effort is defined and reasoning_effort not in ['xhigh', 'medium', 'low'] -%}"
    "{{ raise_exception('reasoning_effort must be one of xhigh, medium, low') }}"
    "{%- endif -%}\n";
static const char template_body[] =
    "{%- if tools %}{{ '<|im_start|>system\n# Tools\n<tools>' }}"
    "{%- for tool in tools %}{{ '\n' }}{{ tool | tojson }}{%- endfor %}"
    "{{ '\n</tools>\nTo call a function reply with <tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n"
    "</parameter>\n</function>\n</tool_call><|im_end|>\n' }}"
    "{%- endif %}"
    "{%- for message in messages %}"
    "{%- if message.role == 'tool' %}{{ '<|im_start|>user\n<tool_response>\n' }}{{ message.content }}"
    "{{ '\n</tool_response><|im_end|>\n' }}"
    "{%- else %}{{ '<|im_start|>' + message.role + '\n' }}"
    "{%- if message.content is string %}{{ message.content }}"
    "{%- elif message.content %}{%- for part in message.content %}"
    "{%- if part.type == 'text' %}{{ part.text }}"
    "{%- else %}{{ '<|vision_start|><|image_pad|><|vision_end|>' }}{%- endif %}"
    "{%- endfor %}{%- endif %}"
    "{%- if message.tool_calls %}{%- for call in message.tool_calls %}"
    "{{ '\n<tool_call>\n<function=' + call.function.name + '>\n' }}"
    "{%- if call.function.arguments is mapping %}{%- for k, v in call.function.arguments | items %}"
    "{{ '<parameter=' + k + '>\n' }}{{ v }}{{ '\n</parameter>\n' }}{%- endfor %}{%- endif %}"
    "{{ '</function>\n</tool_call>' }}{%- endfor %}{%- endif %}{{ '<|im_end|>\n' }}"
    "{%- endif %}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}"
    "{%- if enable_thinking is defined and not enable_thinking %}{{ '<think>\n\n</think>\n\n' }}"
    "{%- else %}{{ '<think>\n' }}{%- endif %}{%- endif %}";

void tokenizer(struct gguf_writer *w, const struct synth_spec *s)
{
	gw_str(w, "tokenizer.ggml.model", "gpt2");
	gw_str(w, "tokenizer.ggml.pre", "qwen2");
	gw_arr_begin(w, "tokenizer.ggml.tokens", GGUF_STRING, s->n_vocab);
	char buf[32];
	for (unsigned b = 0; b < 256; b++) {
		size_t n = byte_token(b, buf);
		gw_arr_str(w, buf, n);
	}
	for (size_t i = 0; i < ARRAY_SIZE(specials); i++)
		gw_arr_str(w, specials[i], strlen(specials[i]));
	for (uint32_t id = 256 + ARRAY_SIZE(specials); id < s->n_vocab; id++) {
		const char *text = id == ANS_TOKEN && answer_mode(s)	 ? s->answer
				   : id == ANS_ALT && s->alt[0]		 ? s->alt
				   : id == ANS_IMG && s->image_answer[0] ? s->image_answer
									 : NULL;
		if (text) { /* the answer, one entry in the byte-level alphabet */
			struct sb t = {0};
			for (const char *p = text; *p; p++)
				sb_add(&t, buf, byte_token((unsigned char)*p, buf));
			gw_arr_str(w, t.s, t.len);
			sb_release(&t);
			continue;
		}
		int n = snprintf(buf, sizeof(buf), "[pad%u]", id);
		gw_arr_str(w, buf, (uint64_t)n);
	}
	gw_arr_begin(w, "tokenizer.ggml.token_type", GGUF_I32, s->n_vocab);
	for (uint32_t id = 0; id < s->n_vocab; id++) {
		int32_t type = 1; /* normal */
		if (id >= 256 && id < 256 + 3)
			type = 3; /* control: <|endoftext|>, <|im_start|>, <|im_end|> */
		else if (id >= 256 && id < 256 + ARRAY_SIZE(specials))
			type = 4; /* user-defined, as Qwen's <think>, <tool_call>: text the grammar can match */
		gw_arr_i32(w, type);
	}
	gw_arr_begin(w, "tokenizer.ggml.merges", GGUF_STRING, 0);
	gw_u32(w, "tokenizer.ggml.eos_token_id", TOK_IM_END);
	gw_u32(w, "tokenizer.ggml.padding_token_id", TOK_EOT);
	gw_u32(w, "tokenizer.ggml.bos_token_id", TOK_EOT);
	gw_bool(w, "tokenizer.ggml.add_bos_token", 0);
	struct sb tpl = {0};
	if (s->efforts)
		sb_adds(&tpl, template_head);
	sb_adds(&tpl, template_body);
	gw_str(w, "tokenizer.chat_template", tpl.s);
	sb_release(&tpl);
}
