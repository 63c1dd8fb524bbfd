#include <stdlib.h>
#include <string.h>

#include "plan/cuda.h"
#include "tap.h"

/* ggml type ids */
enum { F32 = 0, F16 = 1, Q4_0 = 2, Q4_1 = 3, Q8_0 = 8, BF16 = 30 };

/* The seeds' 9B full-attention layer: head 256, 16 heads over 4 KV heads,
 * 3 streams of 200,704 cells. */
static struct ga_fa fa(uint32_t k, uint32_t v, int64_t q_tok)
{
	struct ga_fa f;
	memset(&f, 0, sizeof(f));
	f.k_type = k;
	f.v_type = v;
	f.dk = f.dv = 256;
	f.n_kv = 200704;
	f.hkv = 4;
	f.h = 16;
	f.q_tok = q_tok;
	f.n_stream = 3;
	f.mask = 1;
	return f;
}

/* A one-node graph holding an FA output of the prefill's size. */
static uint64_t fa_alloc(const struct cuda_build *b, int cc, struct ga_fa f)
{
	struct ga_graph g;
	ga_init(&g);
	int t = ga_op(&g, 0, 0, 256, 16, f.q_tok * f.n_stream, 1, NULL);
	g.t[t].op = GA_OP_FA;
	g.t[t].fa = f;
	struct cuda_rules r;
	memset(&r, 0, sizeof(r));
	r.build = b;
	r.cc[0] = cc;
	uint64_t n = cuda_alloc_size(&g, t, 0, &r);
	uint64_t bytes = g.t[t].bytes;
	int runs = cuda_supports_op(&g, t, 0, &r), cpu = cuda_supports_op(&g, t, 1, &r);
	ga_release(&g);
	ok(cpu, "the CPU backend (no cc) runs every op");
	return runs ? (n ? n : bytes) : 0;
}

void test_cuda(void)
{
	struct cuda_build pinned, all;
	memset(&pinned, 0, sizeof(pinned));
	memset(&all, 0, sizeof(all));
	ok(cuda_build_set_pairs(&all, "all") == 0 && all.fa_all, "FA_QUANTS=all: every pair");

	/* fattn.cu: without GGML_CUDA_FA_ALL_QUANTS, K and V of one type only */
	struct ga_fa pp = fa(F16, Q8_0, 342), tg = fa(F16, Q8_0, 1);
	ok(cuda_fa_kernel(&pinned, 86, &pp) == CUDA_FA_NONE, "pinned defaults: no kernel for f16 K + q8_0 V");
	ok(cuda_fa_kernel(&all, 86, &pp) == CUDA_FA_MMA, "all quants, sm_86 prefill: the MMA kernel");
	ok(cuda_fa_kernel(&all, 86, &tg) == CUDA_FA_VEC, "all quants, sm_86 decode of a quantized V: vector");
	struct ga_fa two = fa(F16, Q8_0, 2);
	ok(cuda_fa_kernel(&all, 86, &two) == CUDA_FA_MMA && cuda_fa_kernel(&all, 89, &two) == CUDA_FA_VEC,
	   "two tokens per stream: MMA on Ampere, vector on Ada");
	struct ga_fa same = fa(Q8_0, Q8_0, 342);
	ok(cuda_fa_kernel(&pinned, 86, &same) == CUDA_FA_MMA, "pinned defaults: q8_0-q8_0 compiled");
	struct ga_fa q41 = fa(Q4_1, Q4_1, 342);
	ok(cuda_fa_kernel(&pinned, 86, &q41) == CUDA_FA_NONE && cuda_fa_kernel(&all, 86, &q41) == CUDA_FA_MMA,
	   "q4_1 needs GGML_CUDA_FA_ALL_QUANTS");
	struct ga_fa f32 = fa(F32, F32, 342);
	ok(cuda_fa_pair_compiled(&pinned, F32, F32), "an f32 K/V reads as f16");
	ok(cuda_fa_kernel(&pinned, 86, &f32) == CUDA_FA_MMA, "f32 K/V: the MMA kernel");
	struct ga_fa odd = fa(F16, F16, 342);
	odd.dv = 128;
	ok(cuda_fa_kernel(&all, 86, &odd) == CUDA_FA_NONE, "head 256 needs V of 256");
	odd = fa(F16, F16, 342);
	odd.dk = 192;
	odd.dv = 128;
	ok(cuda_fa_kernel(&all, 86, &odd) == CUDA_FA_NONE, "head 192: a GQA ratio of 8 or more");

	struct cuda_build listed;
	memset(&listed, 0, sizeof(listed));
	ok(cuda_build_set_pairs(&listed, "f16-q8_0;f16-f16") == 0, "a FA_QUANTS list parses");
	ok(cuda_fa_pair_compiled(&listed, F16, Q8_0) && !cuda_fa_pair_compiled(&listed, Q8_0, Q8_0),
	   "the list names the pairs compiled");
	ok(!cuda_fa_pair_compiled(&listed, Q8_0, F16), "a pair is ordered: q8_0-f16 is not f16-q8_0");
	ok(cuda_build_set_pairs(&listed, "f16-fp8") == -1 && cuda_build_set_pairs(&listed, "f16") == -1,
	   "a type that is not a cache type, or no pair, is refused");

	/* get_alloc_size: the FA output, then the f16 V copy, 128-aligned */
	uint64_t out = 256ull * 16 * 1026 * 4;
	uint64_t v16 = 256ull * 200704 * 4 * 3 * 2;
	ok(fa_alloc(&all, 86, fa(F16, Q8_0, 342)) == out + v16, "prefill f16 K + q8_0 V: output + 1,176 MiB f16 V");
	ok(fa_alloc(&all, 86, fa(Q8_0, Q8_0, 342)) == out + 2 * v16, "prefill q8_0 K + V: both copies");
	ok(fa_alloc(&all, 86, fa(F16, F16, 342)) == out, "f16 K + V: nothing more");
	ok(fa_alloc(&all, 86, fa(F16, Q8_0, 1)) == 256ull * 16 * 3 * 4, "decode: the vector kernel reads q8_0");
	struct cuda_build old = all;
	old.no_scratch = 1;
	ok(fa_alloc(&old, 86, fa(Q8_0, Q8_0, 342)) == out, "a build before PR #23907: the output only");
	ok(fa_alloc(&pinned, 86, fa(F16, Q8_0, 342)) == 0, "no kernel: the card does not run it");
	/* a q8_0 weight of 2,880-wide rows copied to the card: padded by
	 * 192 elements to 3,072 (MATRIX_ROW_PADDING 512), 34 bytes per 32 */
	struct ga_graph g;
	ga_init(&g);
	int w = ga_held(&g, 1, 1, 2880ull / 32 * 34 * 100);
	g.t[w].qtype = Q8_0 + 1;
	g.t[w].ne[0] = 2880;
	struct cuda_rules r;
	memset(&r, 0, sizeof(r));
	r.build = &pinned;
	r.cc[0] = 86;
	ok(cuda_alloc_size(&g, w, 0, &r) == 2880ull / 32 * 34 * 100 + 204,
	   "a quantized copy on the card: its last row padded to 512 (+204 bytes)");
	ok(cuda_alloc_size(&g, w, 1, &r) == 0, "in a host buffer: ggml_nbytes");
	ga_release(&g);
	ok(cuda_cc("rtx3090") == 86 && cuda_cc("rtx4090") == 89 && cuda_cc("nope") == 0, "profiles' sm");
}
