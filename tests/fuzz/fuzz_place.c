/* libFuzzer target: the placement keys (OVERRIDE_TENSOR patterns and
 * buffers, TENSOR_SPLIT, RPC, DEVICES, SPLIT_MODE) as place.c parses them,
 * then where a few tensors land. The input is five fields split on '\n'. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan/place.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	char *f[5] = {NULL, NULL, NULL, NULL, NULL};
	char *p = buf;
	for (int i = 0; i < 5 && p; i++) {
		f[i] = p;
		p = strchr(p, '\n');
		if (p)
			*p++ = '\0';
	}
	struct place_request r;
	memset(&r, 0, sizeof(r));
	r.ngl = size % 40;
	r.n_cpu_moe = size % 7;
	r.kv_offload = (int)(size & 1);
	r.override_tensor = f[0];
	r.tensor_split = f[1];
	r.rpc = f[2];
	r.devices = f[3];
	r.split_mode = f[4];
	struct model m;
	memset(&m, 0, sizeof(m));
	m.n_layer_all = 1 + size % 33;
	struct placement pl;
	char *err = NULL;
	if (place_make(&r, device_find(size & 2 ? "rtx3090" : "cpu"), &m, &pl, &err) == 0) {
		place_weight(&pl, "blk.0.ffn_up_exps.weight", 0);
		place_weight(&pl, "token_embd.weight", -1);
		place_weight(&pl, "output.weight", m.n_layer_all);
		place_cache(&pl, 0);
		place_cpu_buft(&pl);
		place_release(&pl);
	}
	free(err);
	free(buf);
	return 0;
}
