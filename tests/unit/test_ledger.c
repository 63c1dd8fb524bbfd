#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../slurp.h"
#include "base/util.h"
#include "live/ledger.h"
#include "tap.h"

static int near(double a, double b)
{
	return a - b < 0.001 && b - a < 0.001;
}

void test_ledger(void)
{
	size_t len;
	struct ledger *l = calloc(1, sizeof(*l));
	char *log = slurp("tests/data/ledger/seeds-9b-cuda-journal.log", &len);
	ok(log != NULL, "seed journal fixture readable");
	if (log) {
		ledger_parse(log, len, l);
		ok(l->n_model == 2 && near(l->model[0].mib, 2283.29) && strcmp(l->model[0].buft, "CUDA0") == 0 &&
		       near(l->model[1].mib, 257.66) && strcmp(l->model[1].buft, "CPU_Mapped") == 0,
		   "journal: model buffers CUDA0 2283.29 + CPU_Mapped 257.66");
		ok(l->target.kv.present && near(l->target.kv.mib, 14406.00) && near(l->target.kv.k_mib, 9408.00) &&
		       near(l->target.kv.v_mib, 4998.00),
		   "journal: KV 14406.00 = 9408.00 + 4998.00");
		ok(l->target.kv.cells == 200704 && l->target.kv.layers == 8 && l->target.kv.seqs == 3 &&
		       l->target.kv.streams == 3 && strcmp(l->target.kv.k_type, "f16") == 0 &&
		       strcmp(l->target.kv.v_type, "q8_0") == 0,
		   "journal: 200704 cells, 8 layers, 3/3 seqs, f16/q8_0");
		ok(l->target.rs.present && near(l->target.rs.mib, 452.25) && near(l->target.rs.r_mib, 20.25) &&
		       near(l->target.rs.s_mib, 432.00) && l->target.rs.cells == 3 && l->target.rs.rs_seq == 2,
		   "journal: RS 452.25 (R 20.25 + S 432.00), 3 cells, 2 rs_seq");
		ok(l->target.n_ctx == 602112 && l->target.n_ctx_seq == 200704 && l->target.kv_unified == 0 &&
		       l->target.n_rs_seq == 2,
		   "journal: n_ctx 602112, n_ctx_seq 200704, not unified");
		ok(l->target.n_compute == 2 && near(ledger_sum(l->target.compute, 2), 2089.88),
		   "journal: target compute 1665.00 + 424.88");
		ok(l->draft_announced && l->draft.kv.present && near(l->draft.kv.mib, 2352.00) &&
		       l->draft.kv.layers == 1,
		   "journal: the draft context's KV 2352.00 over 1 layer");
		ok(l->draft.n_compute == 2 && near(l->draft.compute[0].mib, 480.97),
		   "journal: draft compute 480.97 CUDA0");
		ok(l->has_projector && near(l->projector_model_mib, 595.29) && near(l->projector_worst_mib, 868.32) &&
		       near(ledger_sum(l->projector_compute, l->n_projector_compute), 273.03),
		   "journal: projector 595.29 + compute 248.10 + 24.93, worst case 868.32");
		ok(l->n_lora == 1 && near(l->lora[0].mib, 3.01), "journal: LoRA buffer 3.01");
		ok(l->n_slots == 3 && l->slot_n_ctx == 200704 && l->slot_lines == 3, "journal: 3 slots of 200704");
		ok(l->has_fit && near(l->fit_projected_mib, 21639) && near(l->fit_free_mib, 23404) && l->fit_short &&
		       near(l->fit_target_mib, 1867) && near(l->fit_reduce_mib, 102),
		   "journal: the engine's fit projection and its shortfall");
		free(log);
	}

	log = slurp("tests/data/ledger/qwen35-mtp-cpu.log", &len);
	ok(log != NULL, "cpu boot fixture readable");
	if (log) {
		ledger_parse(log, len, l);
		ok(l->target.kv.present && l->target.kv.cells == 3584 && l->target.kv.layers == 2 &&
		       l->target.kv.streams == 3,
		   "cpu log: KV 3584 cells, 2 layers, 3 streams");
		ok(l->draft.kv.present && l->draft.kv.layers == 1, "cpu log: draft KV 1 layer");
		ok(l->target.n_compute == 1 && strcmp(l->target.compute[0].buft, "CPU") == 0,
		   "cpu log: one CPU compute buffer");
		ok(l->draft.n_compute == 1, "cpu log: a re-reserved draft buffer is counted once, not summed");
		/* every truncation parses without reading past the end */
		int clean = 1;
		for (size_t cut = 0; cut < len; cut += 97) {
			char *c = xstrndup(log, cut);
			ledger_parse(c, cut, l);
			clean &= l->lines >= 0;
			free(c);
		}
		ok(clean, "cpu log: every truncation parses");
		free(log);
	}

	log = slurp("tests/data/ledger/qwen35-two-rpc.log", &len);
	ok(log != NULL, "two-server boot fixture readable");
	if (log) {
		ledger_parse(log, len, l);
		ok(l->n_model == 3 && strcmp(l->model[1].buft, "RPC0[127.0.0.1:50081]") == 0 &&
		       near(l->model[2].mib, 3.01),
		   "rpc log: model buffers named RPC0[host:port], colon and all");
		ok(l->target.kv.n_bufs == 2 && strcmp(l->target.kv.bufs[1].buft, "RPC0[127.0.0.1:50082]") == 0 &&
		       near(l->target.kv.bufs[0].mib, 4.0),
		   "rpc log: a KV buffer per device");
		ok(l->target.rs.n_bufs == 3 && strcmp(l->target.rs.bufs[0].buft, "CPU") == 0 &&
		       near(l->target.rs.bufs[1].mib, 0.07),
		   "rpc log: an RS buffer per device");
		ok(l->target.n_compute == 3 && strcmp(l->target.compute[2].buft, "CPU") == 0 &&
		       near(l->target.compute[0].mib, 7.02),
		   "rpc log: a compute buffer per backend");
		free(log);
	}

	const char *junk = "hello\nworld\n\x01\x02 size = (((\nllama_kv_cache: size = abc\n";
	ledger_parse(junk, strlen(junk), l);
	ok(l->recognised <= 1 && !l->target.kv.layers, "junk: nothing recognised as a ledger term");
	ledger_parse("", 0, l);
	ok(l->recognised == 0 && l->lines == 0, "empty log: empty ledger");
	const char *failed = "0.00.02 E llama_model_load: error loading model: unknown type 142\n";
	ledger_parse(failed, strlen(failed), l);
	ok(strstr(l->engine_error, "unknown type 142") != NULL, "a failed boot's error line is kept");
	/* deepseek32's DSA cache: the MLA cache, then the indexer's (lines as
	 * the pinned engine printed them for synth deepseek32 on 2 slots) */
	const char *dsa =
	    "I llama_kv_cache_dsa: creating main KV cache, size = 2048 cells\n"
	    "I llama_kv_cache:        CPU KV buffer size =     2.50 MiB\n"
	    "I llama_kv_cache: size =    2.50 MiB (  2048 cells,   4 layers,  2/2 seqs), K (f16):    2.50 "
	    "MiB, V (f16):    0.00 MiB\n"
	    "I llama_kv_cache_dsa: creating indexer KV cache, size = 2048 cells\n"
	    "I llama_kv_cache:        CPU KV buffer size =     2.00 MiB\n"
	    "I llama_kv_cache: size =    2.00 MiB (  2048 cells,   4 layers,  2/2 seqs), K (f16):    2.00 "
	    "MiB, V (f16):    0.00 MiB\n";
	ledger_parse(dsa, strlen(dsa), l);
	ok(l->target.kv.present && near(l->target.kv.mib, 4.50) && near(l->target.kv.k_mib, 4.50) &&
	       near(l->target.kv.v_mib, 0) && l->target.kv.layers == 8 && l->target.kv.cells == 2048 &&
	       l->target.kv.n_bufs == 1 && near(l->target.kv.bufs[0].mib, 4.50),
	   "DSA cache: the indexer cache's size line adds to the MLA cache's (4.50 MiB, 8 layers, one CPU buffer)");
	const char *plain = "I llama_kv_cache: size =    2.50 MiB (  2048 cells,   4 layers,  2/2 seqs), K (f16):    "
			    "2.50 MiB, V (f16):    0.00 MiB\n"
			    "I llama_kv_cache: size =    2.00 MiB (  2048 cells,   4 layers,  2/2 seqs), K (f16):    "
			    "2.00 MiB, V (f16):    0.00 MiB\n";
	ledger_parse(plain, strlen(plain), l);
	ok(near(l->target.kv.mib, 2.00) && l->target.kv.layers == 4, "no DSA marker: a second size line replaces");
	free(l);
}
