/* libFuzzer target: CUDA_FA_QUANTS's pair-list parser (cuda.c) and the
 * kernel choice over whatever it accepts. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan/cuda.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	struct cuda_build b;
	memset(&b, 0, sizeof(b));
	if (cuda_build_set_pairs(&b, s) == 0) {
		static const uint32_t types[] = {0, 1, 2, 3, 6, 7, 8, 30, 142};
		struct ga_fa fa;
		memset(&fa, 0, sizeof(fa));
		fa.dk = fa.dv = size % 2 ? 128 : 256;
		fa.n_kv = 4096;
		fa.hkv = 2;
		fa.h = 8;
		fa.q_tok = (int64_t)(size % 5);
		fa.n_stream = 1;
		fa.mask = 1;
		for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
			for (size_t j = 0; j < sizeof(types) / sizeof(types[0]); j++) {
				fa.k_type = types[i];
				fa.v_type = types[j];
				(void)cuda_fa_kernel(&b, 86, &fa);
			}
	}
	free(s);
	return 0;
}
