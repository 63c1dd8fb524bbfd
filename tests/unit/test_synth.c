#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "payload/census.h"
#include "payload/gguf.h"
#include "payload/synth.h"
#include "tap.h"

static struct census *roundtrip(const struct synth_spec *s, const char *path, struct gguf_file **f, char **err)
{
	uint64_t bytes;
	if (synth_write(s, path, &bytes, NULL, err))
		return NULL;
	*f = gguf_open(path, NULL, err);
	if (!*f)
		return NULL;
	ok((*f)->g->file_size == bytes, "%s: file size is what synth reported", s->arch);
	return census_take((*f)->g, err);
}

void test_synth(void)
{
	char path[] = "/tmp/zealot-unit-XXXXXX";
	int fd = mkstemp(path);
	close(fd);
	struct synth_spec s;
	char *err = NULL;
	struct gguf_file *f = NULL;

	ok(synth_preset(&s, "bonsai-9b", &err) == 0, "bonsai-9b preset");
	struct census *c = roundtrip(&s, path, &f, &err);
	ok(c && c->model, "bonsai-9b reads back (%s)", err ? err : "ok");
	if (c && c->model) {
		const struct model *m = c->model;
		ok(m->n_layer_all == 33 && m->n_kind[LAYER_ATTENTION] == 8 && m->n_kind[LAYER_RECURRENT] == 24 &&
		       m->n_kind[LAYER_NEXTN] == 1,
		   "bonsai-9b: 33 blocks = 8 attention + 24 recurrent + 1 nextn");
		ok(m->n_vocab == 248320 && m->n_ctx_train == 262144, "bonsai-9b: vocab 248,320, context 262,144");
		ok(model_n_embd_k_gqa(m, 3) == 1024, "bonsai-9b: K width 1024");
		ok(m->mtp_tensors == 4 && m->mtp_blocks == 1, "bonsai-9b: nextn tensors present");
		struct stat st;
		stat(path, &st);
		ok((uint64_t)st.st_blocks * 512 < 64ull << 20 && f->g->file_size > 16ull << 30,
		   "bonsai-9b: %llu-byte file takes %llu bytes of disk (sparse)", (unsigned long long)f->g->file_size,
		   (unsigned long long)st.st_blocks * 512);
	}
	census_free(c);
	gguf_close(f);

	ok(synth_preset(&s, "ghost-mtp", &err) == 0, "ghost-mtp preset");
	c = roundtrip(&s, path, &f, &err);
	ok(c && c->model && c->model->n_nextn == 1 && c->model->mtp_tensors == 0, "ghost-mtp: declared, no tensors");
	census_free(c);
	gguf_close(f);

	synth_defaults(&s, "qwen35", &err);
	ok(synth_set(&s, "type=142", &err) == 0, "custom type settable");
	c = roundtrip(&s, path, &f, &err);
	ok(c && c->custom_tensors > 0 && c->n_types >= 2, "custom type written and sized from gaps");
	int custom_named = 0;
	for (size_t i = 0; c && i < c->n_types; i++)
		custom_named |= c->types[i].type == 142 && c->types[i].name == NULL && c->types[i].bytes > 0;
	ok(custom_named, "type 142 counted as custom with bytes");
	census_free(c);
	gguf_close(f);

	synth_defaults(&s, "gemma3", &err);
	c = roundtrip(&s, path, &f, &err);
	ok(c && c->model && c->model->n_kind[LAYER_SWA] == 5 && c->model->n_kind[LAYER_ATTENTION] == 1,
	   "gemma3: 5 sliding + 1 global of 6");
	ok(c && c->has_template && c->tpl.n_effort == 3, "template restricts reasoning_effort to 3 values");
	census_free(c);
	gguf_close(f);

	{
		int c_ = synth_defaults(&s, "olmo3", &err) == -1 && strstr(err, "olmo");
		ok(c_, "unknown arch refused: %s", tap_s(err));
	}
	synth_defaults(&s, "llama", &err);
	{
		int c_ = synth_set(&s, "heads=3", &err) == 0 && synth_write(&s, path, NULL, NULL, &err) == -1 &&
			 strstr(err, "multiple");
		ok(c_, "heads not a multiple of kv_heads refused: %s", tap_s(err));
	}
	{
		int c_ = synth_set(&s, "bogus=1", &err) == -1 && strstr(err, "unknown key 'bogus'");
		ok(c_, "unknown --set key: %s", tap_s(err));
	}
	ok(synth_set(&s, "layers=x", &err) == -1, "non-numeric value refused");
	synth_defaults(&s, "llama", &err);
	synth_set(&s, "nextn=1", &err);
	{
		int c_ = synth_write(&s, path, NULL, NULL, &err) == -1 && strstr(err, "qwen35");
		ok(c_, "nextn on llama refused: %s", tap_s(err));
	}

	/* every --set key once: a second row of a name is never reached
	 * (temp_scale was two, mistral3's set deepseek2's field) */
	{
		int dup = 0;
		for (size_t i = 0; i < synth_key_count(); i++)
			for (size_t j = 0; j < i; j++)
				dup |= strcmp(synth_key_name(i), synth_key_name(j)) == 0;
		ok(synth_key_count() > 40 && !dup, "%zu --set keys, each name once", synth_key_count());
	}
	/* mistral3's temp_scale reaches its header (it wrote no key) */
	synth_defaults(&s, "mistral3", &err);
	ok(synth_set(&s, "temp_scale=1", &err) == 0 && s.temp_scale10 == 1, "mistral3 temp_scale=1 sets temp_scale10");
	{
		double t = 0;
		int c_ = synth_write(&s, path, NULL, NULL, &err) == 0 && (f = gguf_open(path, NULL, &err)) != NULL &&
			 gguf_kv_f64(gguf_find(f->g, "mistral3.attention.temperature_scale"), &t) == 0 && t > 0.099 &&
			 t < 0.101;
		ok(c_, "mistral3 temp_scale=1: attention.temperature_scale 0.1 in the header (%g)", t);
		gguf_close(f);
		f = NULL;
	}
	free(err);
	unlink(path);
}
