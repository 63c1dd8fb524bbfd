#include <stdlib.h>
#include <string.h>

#include "plan/place.h"
#include "tap.h"

/* A model of n blocks: the placement reads only the block count. */
static struct model model_of(uint32_t n)
{
	struct model m;
	memset(&m, 0, sizeof(m));
	m.n_layer_all = n;
	return m;
}

static struct place_request req(uint32_t ngl)
{
	struct place_request r;
	memset(&r, 0, sizeof(r));
	r.ngl = ngl;
	r.kv_offload = 1;
	return r;
}

void test_place(void)
{
	struct placement pl;
	char *err = NULL;
	const struct device *cpu = device_find("cpu"), *card = device_find("rtx3090");

	/* the colleague's boot: two rpc-servers, -ngl 5 --tensor-split 1,2, 8 layers:
	 * layers 4..7 and the output offloaded, 4-5 on the first, 6-7 + output on the second */
	struct model m8 = model_of(8);
	struct place_request r = req(5);
	r.rpc = "127.0.0.1:50061,127.0.0.1:50062";
	r.tensor_split = "1,2";
	ok(place_make(&r, cpu, &m8, &pl, &err) == 0, "rpc x2: placed (%s)", tap_s(err));
	ok(pl.n_dev == 2 && strcmp(pl.dev[0].name, "RPC0[127.0.0.1:50061]") == 0 &&
	       strcmp(pl.dev[1].name, "RPC0[127.0.0.1:50062]") == 0,
	   "rpc x2: buffers named RPC0[endpoint], in --rpc order");
	ok(pl.offloaded == 5, "rpc x2: offloaded 5 (of 9)");
	ok(pl.layer[3] == PLACE_HOST && pl.layer[4] == 0 && pl.layer[5] == 0 && pl.layer[6] == 1 && pl.layer[7] == 1 &&
	       pl.layer[8] == 1,
	   "rpc x2: layers 0-3 host, 4-5 RPC0, 6-7 and the output the second server");
	ok(place_weight(&pl, "token_embd.weight", -1) == PLACE_HOST, "the input layer stays on the CPU");
	ok(place_cache(&pl, 5) == 0 && place_cache(&pl, 2) == PLACE_HOST, "a layer's KV lives with the layer");
	ok(!pl.pipeline, "no pipeline parallelism with layers on the CPU");
	ok(strcmp(place_cpu_buft(&pl), "CPU") == 0, "an RPC device lends no pinned host buffer");
	place_release(&pl);

	/* every layer offloaded across two devices: pipeline parallelism */
	r = req(99);
	r.rpc = "a:1,b:2";
	ok(place_make(&r, cpu, &m8, &pl, &err) == 0 && pl.pipeline, "all offloaded on 2 devices: pipeline");
	ok(pl.layer[0] == 0 && pl.layer[8] == 1, "default split: equal memory, halves");
	place_release(&pl);
	r.kv_offload = 0;
	ok(place_make(&r, cpu, &m8, &pl, &err) == 0 && !pl.pipeline && place_cache(&pl, 7) == PLACE_HOST,
	   "KV_OFFLOAD=0: no pipeline, every cache on the CPU");
	place_release(&pl);

	/* --n-cpu-moe: blk.i.ffn_(up|down|gate|gate_up)_(ch|)exps for i < N */
	r = req(99);
	r.rpc = "127.0.0.1:1";
	r.n_cpu_moe = 2;
	ok(place_make(&r, cpu, &m8, &pl, &err) == 0 && pl.n_over == 2, "N_CPU_MOE=2: two patterns");
	ok(place_weight(&pl, "blk.1.ffn_up_exps.weight", 1) == PLACE_HOST &&
	       place_weight(&pl, "blk.0.ffn_gate_up_exps.weight", 0) == PLACE_HOST &&
	       place_weight(&pl, "blk.0.ffn_down_chexps.weight", 0) == PLACE_HOST,
	   "N_CPU_MOE: the first layers' experts on the CPU");
	ok(place_weight(&pl, "blk.2.ffn_up_exps.weight", 2) == 0 &&
	       place_weight(&pl, "blk.1.ffn_gate_inp.weight", 1) == 0 &&
	       place_weight(&pl, "blk.1.ffn_up.weight", 1) == 0,
	   "N_CPU_MOE: later experts, the router and dense FFNs stay");
	ok(!pl.pipeline, "an override turns pipeline parallelism off");
	place_release(&pl);
	struct model m12 = model_of(12);
	r.n_cpu_moe = 1;
	ok(place_make(&r, cpu, &m12, &pl, &err) == 0 && place_weight(&pl, "blk.10.ffn_up_exps.weight", 10) == 0 &&
	       place_weight(&pl, "blk.1.ffn_up_exps.weight", 1) == 0,
	   "N_CPU_MOE=1 takes blk.0 only, not blk.10 or blk.1");
	place_release(&pl);

	/* -ot: first match wins; a device's buffer by its name */
	r = req(2);
	r.rpc = "127.0.0.1:7";
	r.override_tensor = "blk\\.[0-3]\\.attn_q=RPC0[127.0.0.1:7],attn=CPU";
	ok(place_make(&r, cpu, &m8, &pl, &err) == 0, "-ot: two patterns (%s)", tap_s(err));
	ok(place_weight(&pl, "blk.2.attn_q.weight", 2) == 0 &&
	       place_weight(&pl, "blk.7.attn_k.weight", 7) == PLACE_HOST &&
	       place_weight(&pl, "blk.7.ffn_up.weight", 7) == 0,
	   "-ot: to the RPC buffer, to the CPU, else the layer's device");
	place_release(&pl);
	free(err);
	err = NULL;
	r.override_tensor = "\\d+=CPU";
	ok(place_make(&r, cpu, &m8, &pl, &err) == -1 && strstr(err, "ECMAScript"), "-ot: \\d is refused by name");
	free(err);
	err = NULL;
	r.override_tensor = "x=CUDA0";
	ok(place_check(&r, cpu, &err) == -1 && strstr(err, "CUDA0") && strstr(err, "RPC0[127.0.0.1:7]"),
	   "-ot: a buffer no device has is refused, naming those there are");
	free(err);
	err = NULL;
	r.override_tensor = "blk.(=CPU";
	ok(place_check(&r, cpu, &err) == -1 && strstr(err, "not a valid pattern"), "-ot: a broken pattern");
	free(err);
	err = NULL;

	/* devices */
	r = req(99);
	r.rpc = "h:1";
	r.devices = "rpc:8000,rtx3090,rtx3060";
	ok(place_make(&r, cpu, &m8, &pl, &err) == 0 && pl.n_dev == 3 && strcmp(pl.dev[1].name, "CUDA0") == 0 &&
	       strcmp(pl.dev[2].name, "CUDA1") == 0 && pl.dev[0].addressable_mib == 8000 && pl.host_buft,
	   "DEVICES: rpc, then CUDA0, CUDA1; :MIB; a card lends its host buffer");
	ok(strcmp(place_cpu_buft(&pl), "CPU") == 0, "the CPU compute buffer follows the first device (RPC)");
	place_release(&pl);
	r.devices = "rtx3090,rpc";
	ok(place_check(&r, cpu, &err) == -1 && strstr(err, "first"), "DEVICES: RPC servers come first");
	free(err);
	err = NULL;
	r = req(99);
	ok(place_make(&r, card, &m8, &pl, &err) == 0 && pl.n_dev == 1 && strcmp(pl.dev[0].name, "CUDA0") == 0 &&
	       strcmp(place_cpu_buft(&pl), "CUDA_Host") == 0,
	   "DEVICE=rtx3090: CUDA0, and the CPU's buffer is CUDA_Host");
	place_release(&pl);
	r.split_mode = "row";
	ok(place_check(&r, card, &err) == -1 && strstr(err, "not mirrored"), "SPLIT_MODE=row: not mirrored, said");
	free(err);
	err = NULL;
	r = req(99);
	r.rpc = "a:1,b:2";
	r.split_mode = "none";
	ok(place_make(&r, cpu, &m8, &pl, &err) == 0 && pl.n_dev == 1 && pl.layer[8] == 0,
	   "SPLIT_MODE=none: the first device only");
	place_release(&pl);
	r = req(99);
	r.rpc = "a:1";
	r.tensor_split = "1,1";
	ok(place_check(&r, cpu, &err) == -1 && strstr(err, "TENSOR_SPLIT"), "TENSOR_SPLIT beyond the devices");
	free(err);
	err = NULL;
	r.tensor_split = NULL;
	r.rpc = "a:1,a:1";
	ok(place_check(&r, cpu, &err) == -1 && strstr(err, "twice"), "RPC: a server listed twice");
	free(err);
	err = NULL;
	r.rpc = "nohost";
	ok(place_check(&r, cpu, &err) == -1 && strstr(err, "HOST:PORT"), "RPC: HOST:PORT");
	free(err);

	/* no device: everything on the host, whatever NGL says */
	r = req(99);
	ok(place_make(&r, cpu, &m8, &pl, NULL) == 0 && pl.n_dev == 0 && pl.layer[8] == PLACE_HOST && pl.offloaded == 0,
	   "no device: all on the CPU");
	place_release(&pl);
}
