#include "archs.h"

#include <string.h>

int archs_known(const char *arch)
{
	for (size_t i = 0; arch && i < archs_engine_count; i++)
		if (strcmp(archs_engine[i], arch) == 0)
			return 1;
	return 0;
}

/* The architectures the pinned engine loads (or names) but llama-server
 * cannot serve as a model of its own, each with the reason read from the
 * engine's source. */
static const struct {
	const char *arch, *why;
} unserved[] = {
    {"clip",
     "a vision/audio tower alone: its llama_model is a quant-only stub whose loader aborts (src/models/clip.cpp: "
     "\"CLIP has no inference graph via llama_model dispatch\"); the tower runs in tools/mtmd/clip.cpp, beside a "
     "text model (MMPROJ)"},
    {"wavtokenizer-dec", "a vocoder (src/models/wavtokenizer-dec.cpp): its output is spectrogram frames that llama-tts "
			 "(tools/tts/tts.cpp) turns into audio; llama-server has no speech endpoint"},
    {"qwen3tts",
     "the talker of a text-to-speech pipeline: llama-tts (tools/tts) runs it with its mmproj's audio generator "
     "(tools/mtmd/models/qwen3tts-gen.cpp); llama-server has no speech endpoint"},
    {"pockettts",
     "the text backbone of pocket-tts (src/models/pockettts.cpp: \"no lm_head, the audio latents are produced by the "
     "flow net inside the mmproj\"): llama-tts (tools/tts) runs it; llama-server has no speech endpoint"},
    {"eagle3",
     "a speculative drafter: its input is the target model's hidden states (target_hidden_size x extract_layers, "
     "src/models/eagle3.cpp), fed by common/speculative.cpp; llama-server runs it only beside its target "
     "(SPEC_TYPE=draft-eagle3 with SPEC_DRAFT_MODEL_FILE, law S22)"},
    {"dflash",
     "a speculative drafter: its input is the target model's hidden states (target_layers, src/models/dflash.cpp), "
     "fed by common/speculative.cpp; llama-server runs it only beside its target (SPEC_TYPE=draft-dflash with "
     "SPEC_DRAFT_MODEL_FILE, law S22)"},
#define DIFFUSION                                                                                                      \
	"a diffusion decoder: the engine gives it no memory (src/llama-model.cpp create_memory) and llama-server "     \
	"computes no logits without one (tools/server/server-context.cpp: \"the current context does not logits "      \
	"computation\"): every completion is HTTP 500; the engine's llama-diffusion-cli runs it"
    {"dream", DIFFUSION},
    {"llada", DIFFUSION},
    {"llada-moe", DIFFUSION},
    {"rnd1", DIFFUSION},
    {"t5", "an encoder-decoder, and llama-server never calls llama_encode (tools/server has no call): its decoder "
	   "cross-attends to the warm-up's encoding of BOS and EOS (common/common.cpp), never the prompt's, and to "
	   "nothing in a slot other than the first (src/llama-graph.cpp's cross mask); with --no-warmup the first "
	   "request aborts (\"llama_encode must be called first\")"},
    {"gemma4-assistant",
     "gemma 4's drafter: llama_context refuses it without its target's context (src/llama-context.cpp: "
     "\"Gemma4Assistant requires ctx_other to be set\"); llama-server runs it only beside its gemma4 target, "
     "as its drafter (SPEC_TYPE=draft-mtp with SPEC_DRAFT_MODEL_FILE, law S21)"},
};

const char *archs_unserved(const char *arch)
{
	for (size_t i = 0; arch && i < sizeof(unserved) / sizeof(unserved[0]); i++)
		if (strcmp(unserved[i].arch, arch) == 0)
			return unserved[i].why;
	return NULL;
}

const char *const archs_projectors[] = {
    "mlp",
    "ldp",
    "ldpv2",
    "resampler",
    "adapter",
    "qwen2vl_merger",
    "qwen2.5vl_merger",
    "qwen3vl_merger",
    "step3vl",
    "gemma3",
    "gemma3nv",
    "gemma3na",
    "gemma4v",
    "gemma4a",
    "gemma4uv",
    "gemma4ua",
    "phi4",
    "idefics3",
    "pixtral",
    "ultravox",
    "internvl",
    "llama4",
    "qwen2a",
    "qwen3a",
    "glma",
    "qwen2.5o",
    "voxtral",
    "meralion",
    "musicflamingo",
    "lfm2",
    "kimivl",
    "paddleocr",
    "lightonocr",
    "cogvlm",
    "janus_pro",
    "dots_ocr",
    "dots3note_v",
    "dots3note_a",
    "deepseekocr",
    "deepseekocr2",
    "deepseek4v",
    "lfm2a",
    "glm4v",
    "youtuvl",
    "yasa2",
    "kimik25",
    "nemotron_v2_vl",
    "exaone4_5",
    "hunyuanvl",
    "minicpmv4_6",
    "granite_speech",
    "mimovl",
    "minimax_m3",
    "granite4_vision",
    "mimo_audio",
    "parakeet",
    "qwen3tts_spkenc",
    "qwen3tts_gen",
    "pockettts_spkenc",
    "pockettts_gen",
    "muse-glimmer",
};
const size_t archs_projector_count = sizeof(archs_projectors) / sizeof(archs_projectors[0]);
