/* deepseek4's memory in a boot ledger (llama_kv_cache_dsv4): the raw
 * cache's window half is kv_swa, its base half and the three compressed
 * caches add up to kv, the three compressor states to the recurrent
 * state. The lines as the pinned engine printed them for synth deepseek4
 * on 2 slots of 2048. */
#include <stdlib.h>
#include <string.h>

#include "live/ledger.h"
#include "tap.h"

static int near(double a, double b)
{
	return a - b < 0.0001 && b - a < 0.0001;
}

void test_ledger_dsv4(void)
{
	struct ledger *l = calloc(1, sizeof(*l));
	const char *log = "I llama_kv_cache_dsv4: creating DSV4 raw KV cache\n"
			  "I llama_kv_cache_iswa: creating non-SWA KV cache, size = 2048 cells\n"
			  "I llama_kv_cache: size =    0.00 MiB (  2048 cells,   0 layers,  2/2 seqs), K (f16):    "
			  "0.00 MiB, V (f16):    0.00 MiB\n"
			  "I llama_kv_cache_iswa: creating     SWA KV cache, size = 768 cells\n"
			  "I llama_kv_cache:        CPU KV buffer size =     1.50 MiB\n"
			  "I llama_kv_cache: size =    1.50 MiB (   768 cells,   4 layers,  2/2 seqs), K (f16):    "
			  "1.50 MiB, V (f16):    0.00 MiB\n"
			  "I llama_kv_cache_dsv4: creating DSV4 CSA compressed KV cache, size = 512 cells\n"
			  "I llama_kv_cache:        CPU KV buffer size =     0.50 MiB\n"
			  "I llama_kv_cache: size =    0.50 MiB (   512 cells,   2 layers,  2/2 seqs), K (f16):    "
			  "0.50 MiB, V (f16):    0.00 MiB\n"
			  "I llama_kv_cache_dsv4: creating DSV4 HCA compressed KV cache, size = 16 cells\n"
			  "I llama_kv_cache:        CPU KV buffer size =     0.12 MiB\n"
			  "I llama_kv_cache: size =    0.12 MiB (   256 cells,   1 layers,  2/2 seqs), K (f16):    "
			  "0.12 MiB, V (f16):    0.00 MiB\n"
			  "I llama_kv_cache_dsv4: creating DSV4 lightning-indexer KV cache, size = 512 cells\n"
			  "I llama_kv_cache:        CPU KV buffer size =     0.25 MiB\n"
			  "I llama_kv_cache: size =    0.25 MiB (   512 cells,   2 layers,  2/2 seqs), K (f16):    "
			  "0.25 MiB, V (f16):    0.00 MiB\n"
			  "I llama_kv_cache_dsv4: creating DSV4 CSA compressor state\n"
			  "I llama_dsv4_comp_state:        CPU DSV4 csa state buffer size =     0.06 MiB\n"
			  "I llama_dsv4_comp_state: csa ratio = 4, state = 8 x 256, streams = 2, rs_seq = 0, layers = "
			  "2, size =    0.06 MiB\n"
			  "I llama_kv_cache_dsv4: creating DSV4 HCA compressor state\n"
			  "I llama_dsv4_comp_state:        CPU DSV4 hca state buffer size =     0.25 MiB\n"
			  "I llama_dsv4_comp_state: hca ratio = 128, state = 128 x 128, streams = 2, rs_seq = 0, "
			  "layers = 1, size =    0.25 MiB\n"
			  "I llama_kv_cache_dsv4: creating DSV4 lightning-indexer compressor state\n"
			  "I llama_dsv4_comp_state:        CPU DSV4 lid state buffer size =     0.03 MiB\n"
			  "I llama_dsv4_comp_state: lid ratio = 4, state = 8 x 128, streams = 2, rs_seq = 0, layers = "
			  "2, size =    0.03 MiB\n";
	ledger_parse(log, strlen(log), l);
	const struct ledger_kv *kv = &l->target.kv, *swa = &l->target.kv_swa;
	ok(swa->present && near(swa->mib, 1.50) && swa->cells == 768 && swa->layers == 4 && near(swa->v_mib, 0),
	   "dsv4: the raw window cache is kv_swa (1.50 MiB, 768 cells, 4 layers, K only)");
	ok(kv->present && near(kv->mib, 0.87) && kv->layers == 5 && kv->cells == 2048 && kv->lines == 4,
	   "dsv4: the base half and the CSA, HCA and indexer caches add up to kv (4 lines, 5 layers)");
	ok(kv->n_bufs == 1 && near(kv->bufs[0].mib, 0.87) && kv->bufs[0].lines == 3,
	   "dsv4: the compressed caches' buffers add up (3 lines)");
	const struct ledger_rs *rs = &l->target.rs;
	ok(rs->present && near(rs->mib, 0.34375) && near(rs->r_mib, 0.171875) && rs->cells == 2 && rs->layers == 5 &&
	       rs->seqs == 2 && rs->rs_seq == 0,
	   "dsv4: the compressor states priced exactly from their counts (0.34375 MiB, a cell per stream)");
	ok(rs->n_bufs == 1 && strcmp(rs->bufs[0].buft, "CPU") == 0 && near(rs->bufs[0].mib, 0.34),
	   "dsv4: the states' buffers per device");
	free(l);
}
