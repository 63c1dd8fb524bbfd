/* The family table: one row per architecture synth writes, in the order
 * `synth` lists them. A row is the architecture's name, its SF_* flags
 * for the shared writers, its family file's variant, and the family's
 * hooks (synth_int.h); docs/hacking.md, "Adding an architecture to synth",
 * says how a new one is added. */
#include <stdio.h>
#include <string.h>

#include "../../base/util.h"
#include "../synth.h"
#include "synth_int.h"

/* clang-format off */
/* the flags of llama's dense kin */
#define RF_D (SF_ROPE_FULL | SF_DENSE)
/* a family's rows: its hooks, the row's name, flags and variant */
#define LLAMA(a, fl, v)      {a, fl, v, llama_defaults, llama_validate, llama_keys, llama_tensors, NULL, 0, 0}
#define QWEN(a, fl, t)       {a, fl, 0, NULL, NULL, NULL, t, NULL, 0, 0}
#define QWENMOE(a, fl, t)    {a, fl, 0, qwen_moe_defaults, NULL, qwen_moe_keys, t, NULL, 0, 0}
#define QWEN35(a, fl, v)     {a, fl, v, qwen35_defaults, qwen35_validate, qwen35_keys, qwen35_tensors, NULL, 0, 1e7f}
#define GEMMA(a, v, val, t)  {a, SF_TIED | SF_NO_ANSWER, v, gemma_defaults, val, gemma_keys, t, NULL, 0, 0}
#define SSM(a, v, t, l, ffl) {a, 0, v, ssm_defaults, ssm_validate, ssm_keys, t, l, ffl, 0}
#define LFM2(a, v)           {a, SF_NO_ANSWER | SF_EMBD_NORM | SF_HEADS_EMBD, v, lfm2_defaults, lfm2_validate, \
			      lfm2_keys, lfm2_tensors, ssm_layer, 0, 0}
#define MOE(a, fl, v, t)     {a, fl, v, moe_kin_defaults, moe_kin_validate, moe_kin_keys, t, NULL, 0, 0}
#define DENSE(a, fl, v, t)   {a, fl, v, dense_defaults, dense_validate, dense_keys, t, NULL, 0, 0}
#define RWKV(a, v, t)        {a, SF_NO_HEADS | SF_OWN_KV, v, rwkv_defaults, rwkv_validate, rwkv_keys, t, NULL, 0, 0}
/* the classic decoders: layer norms (with biases: LNB), no answer= */
#define CL(a, fl, v)         {a, fl, v, classic_defaults, classic_validate, classic_keys, classic_tensors, NULL, 0, 0}
#define LNB (SF_NORM_BIAS | SF_HEADS_EMBD | SF_DENSE | SF_NO_ANSWER)
#define MOE2(a, fl, v)       {a, fl, v, moe2_defaults, moe2_validate, moe2_keys, moe2_tensors, NULL, 0, 0}
#define BERT(a, v)           {a, SF_TIED | SF_NO_ANSWER | SF_EMBD_NORM | SF_HEADS_EMBD | SF_DENSE, v, bert_defaults, \
			      bert_validate, bert_keys, bert_tensors, NULL, 0, 0}
#define MLA(a, v)            {a, SF_MTP | SF_MLA | SF_MHA_V, v, ds2_defaults, mla_validate, mla_keys, ds2_tensors, \
			      NULL, 0, 0}

static const struct synth_family families[] = {
    LLAMA("llama", SF_IMAGE | RF_D, 0),
    QWEN35("qwen35", SF_MTP, 0),
    GEMMA("gemma3", 0, NULL, gemma3_tensors),
    QWENMOE("qwen3moe", SF_ROPE_FULL | SF_EXPERTS_SIZED, qwen3moe_tensors),
    LFM2("lfm2moe", V_EXPERTS),
    SSM("nemotron_h_moe", V_NEMOTRON | V_EXPERTS, nemotron_h_tensors, nemotron_layer, 1),
    SSM("granitehybrid", 0, granitehybrid_tensors, ssm_layer, 0),
    QWEN("qwen2", SF_ROPE_FULL | SF_HEADS_EMBD, qwen2_tensors),
    QWEN("qwen3", 0, qwen3_tensors),
    DENSE("phi3", SF_HEADS_EMBD, V_SWA_READ | V_PHI3_NAME, phi3_tensors),
    LFM2("lfm2", 0),
    LLAMA("mistral3", SF_ROPE_FULL, V_MOE_OPT | V_TEMP),
    SSM("mamba2", V_ALONE, granitehybrid_tensors, NULL, 0),
    SSM("falcon-h1", V_SIDE, falcon_h1_tensors, NULL, 0),
    SSM("nemotron_h", V_NEMOTRON, nemotron_h_tensors, nemotron_layer, 1),
    SSM("jamba", V_MAMBA1 | V_EXPERTS, jamba_tensors, ssm_layer, 0),
    SSM("mamba", V_MAMBA1 | V_ALONE, jamba_tensors, NULL, 0),
    {"gpt-oss", 0, 0, oss_defaults, oss_validate, oss_keys, oss_tensors, NULL, 0, 0},
    {"gemma4", SF_TIED | SF_NO_ANSWER | SF_OWN_KV, 0, gemma4_defaults, gemma4_validate, gemma4_keys, gemma4_tensors, NULL, 0, 0},
    {"gemma4-assistant", SF_TIED | SF_NO_ANSWER | SF_OWN_KV, 0, g4a_defaults, g4a_validate, g4a_keys, g4a_tensors, NULL, 0, 0},
    LLAMA("seed_oss", RF_D, V_SEED),
    LLAMA("smollm3", RF_D, 0),
    DENSE("olmo2", SF_ROPE_FULL | SF_HEADS_EMBD | SF_DENSE, 0, olmo2_tensors),
    LLAMA("granite", RF_D, V_GRANITE),
    LLAMA("granitemoe", SF_ROPE_FULL, V_GRANITE | V_MOE_REQ),
    {"graniteswitch", RF_D, V_GRANITE, NULL, NULL, switch_keys, switch_tensors, NULL, 0, 0},
    QWENMOE("qwen2moe", SF_HEADS_EMBD | SF_EXPERTS_SIZED, qwen2moe_tensors),
    MOE("olmoe", SF_ROPE_FULL, V_OLMOE | V_EXP_REQ, olmoe_ernie_tensors),
    MOE("ernie4_5-moe", SF_ROPE_FULL, V_FF_EXP | V_LEAD | V_BIAS | V_EXP_REQ | V_ERNIE, olmoe_ernie_tensors),
    MOE("hunyuan-moe", SF_ROPE_FULL, V_FF_EXP | V_EXP_REQ | V_HUNYUAN, hunyuan_moe_tensors),
    LLAMA("exaone", RF_D, 0),
    LLAMA("ernie4_5", RF_D, 0),
    MOE("deepseek", SF_ROPE_FULL | SF_HEADS_EMBD, V_FF_EXP | V_LEAD | V_DEEPSEEK, olmoe_ernie_tensors),
    DENSE("exaone4", SF_HEADS_EMBD, V_EXAONE4 | V_SWA, olmo2_tensors),
    DENSE("glm4", SF_HEADS_EMBD, 0, glm4_tensors),
    MOE("phimoe", SF_HEADS_EMBD, V_PHIMOE, phimoe_tensors),
    QWEN("qwen3vl", SF_MROPE, qwen3_tensors),
    {"qwen3tts", SF_MROPE | SF_CODEC_OUT, 0, qwen3tts_defaults, NULL, NULL, qwen3_tensors, NULL, 0, 0},
    QWENMOE("qwen3vlmoe", SF_MROPE | SF_EXPERTS_SIZED, qwen3moe_tensors),
    LLAMA("hunyuan-dense", RF_D, V_QK_NORM),
    LLAMA("xverse", RF_D, 0),
    LLAMA("baichuan", RF_D, 0),
    LLAMA("minicpm", RF_D, 0),
    QWEN("qwen2vl", SF_HEADS_EMBD | SF_MROPE, qwen2_tensors),
    LLAMA("maincoder", RF_D, V_QK_NORM),
    LLAMA("internlm2", RF_D | SF_HEADS_EMBD, 0),
    LLAMA("arcee", RF_D, V_NO_GATE),
    LLAMA("apertus", RF_D, V_APERTUS | V_NO_GATE),
    QWENMOE("mellum", SF_EXPERTS_SIZED, qwen3moe_tensors),
    LLAMA("orion", RF_D | SF_HEADS_EMBD | SF_NORM_BIAS, V_ORION),
    GEMMA("gemma2", V_GEMMA2, NULL, gemma3_tensors),
    GEMMA("gemma", V_GEMMA1, NULL, gemma3_tensors),
    GEMMA("gemma3n", V_GEMMA3N, gemma3n_validate, gemma3n_tensors),
    GEMMA("gemma-embedding", 0, NULL, gemma3_tensors),
    RWKV("rwkv7", 0, rwkv7_tensors),
    RWKV("rwkv6", V_RWKV6, rwkv6_tensors),
    RWKV("arwkv7", V_RWKV_RMS, rwkv7_tensors),
    RWKV("rwkv6qwen2", V_RWKV6 | V_RWKV_RMS, rwkv6_tensors),
    DENSE("command-r", SF_HEADS_EMBD | SF_TIED | SF_NO_ANSWER, V_COHERE | V_CMDR, cohere_tensors),
    DENSE("cohere2", SF_HEADS_EMBD | SF_TIED | SF_NO_ANSWER, V_COHERE | V_SWA | V_SWA_NEEDED, cohere_tensors),
    MOE("minimax-m2", 0, V_MINIMAX, minimax_m2_tensors),
    MOE("llama4", 0, V_FF_EXP | V_LLAMA4, llama4_tensors),
    MLA("deepseek2", 0),
    {"glm4moe", SF_MTP, 0, glm4moe_defaults, glm4moe_validate, glm4moe_keys, glm4moe_tensors, NULL, 0, 0},
    QWEN35("qwen35moe", SF_MTP, V_Q35_MOE),
    QWEN35("qwen3next", 0, V_Q35_MOE | V_NEXT),
    {"kimi-linear", SF_MLA, V_KIMI, kimi_defaults, mla_validate, mla_keys, kimi_tensors, ssm_layer, 0, 0},
    {"kimi-k3", SF_MLA, V_KIMI, kimik3_defaults, kimik3_validate, kimik3_keys, kimik3_tensors, ssm_layer, 0, 0},
    MLA("mistral4", 0),
    MLA("deepseek32", V_DS32),
    BERT("bert", 0),
    BERT("nomic-bert", V_ROPE | V_SILU),
    BERT("jina-bert-v2", V_ALIBI),
    BERT("jina-bert-v3", V_ROPE),
    {"nomic-bert-moe", SF_TIED | SF_NO_ANSWER | SF_EMBD_NORM | SF_HEADS_EMBD, V_ROPE | V_BMOE, bert_moe_defaults,
     bert_moe_validate, bert_moe_keys, bert_tensors, NULL, 0, 0},
    {"t5encoder", SF_TIED | SF_NO_ANSWER | SF_ENC_NORM | SF_DENSE, 0, t5encoder_defaults, t5encoder_validate,
     t5encoder_keys, t5encoder_tensors, NULL, 0, 0},
    {"t5", SF_TIED | SF_NO_ANSWER | SF_ENC_NORM | SF_DENSE, 0, t5encoder_defaults, t5encoder_validate,
     t5encoder_keys, t5_tensors, NULL, 0, 0},
    LLAMA("llama-embed", RF_D, 0),
    LLAMA("dream", RF_D, 0),
    LLAMA("llada", RF_D, 0),
    QWENMOE("llada-moe", SF_ROPE_FULL | SF_HEADS_EMBD | SF_EXPERTS_SIZED, qwen3moe_tensors),
    QWENMOE("rnd1", SF_ROPE_FULL | SF_EXPERTS_SIZED, qwen3moe_tensors),
    LLAMA("eurobert", RF_D | SF_TIED | SF_NO_ANSWER, 0),
    {"neo-bert", RF_D | SF_HEADS_EMBD | SF_TIED | SF_NO_ANSWER | SF_ENC_NORM, 0, NULL, NULL, NULL, neo_bert_tensors,
     NULL, 0, 0},
    {"modern-bert", RF_D | SF_HEADS_EMBD | SF_TIED | SF_NO_ANSWER | SF_EMBD_NORM, V_MODERN | V_ROPE, bert_defaults,
     bert_validate, bert_keys, neo_bert_tensors, NULL, 0, 0},
    CL("starcoder2", LNB | SF_ROPE_FULL, VC_NORM_B | VC_QKV_B | VC_WO_B | VC_GELU | VC_FFN_B),
    CL("phi2", LNB, VC_NORM_B | VC_FUSED | VC_QKV_B | VC_WO_B | VC_GELU | VC_FFN_B | VC_NO_FFN_NORM | VC_OUT_B |
       VC_PARTIAL),
    CL("stablelm", LNB, VC_NORM_B | VC_QKV_B | VC_PARTIAL),
    CL("olmo", SF_NO_OUT_NORM | SF_ROPE_FULL | SF_HEADS_EMBD | SF_DENSE | SF_NO_ANSWER, VC_NO_NORM),
    CL("qwen", SF_HEADS_EMBD | SF_DENSE, VC_RMS | VC_FUSED | VC_QKV_B | VC_HALF_FF | VC_MHA),
    CL("gpt2", LNB, VC_NORM_B | VC_FUSED | VC_QKV_B | VC_WO_B | VC_GELU | VC_FFN_B | VC_POS),
    CL("gptneox", LNB, VC_NORM_B | VC_FUSED | VC_QKV_B | VC_WO_B | VC_GELU | VC_FFN_B | VC_PAR_RES | VC_PARTIAL),
    CL("falcon", LNB | SF_ROPE_FULL, VC_NORM_B | VC_FUSED | VC_GELU | VC_NO_FFN_NORM),
    CL("mpt", SF_HEADS_EMBD | SF_DENSE | SF_NO_ANSWER, VC_FUSED | VC_GELU | VC_ALIBI),
    CL("bloom", LNB, VC_NORM_B | VC_FUSED | VC_QKV_B | VC_WO_B | VC_GELU | VC_FFN_B | VC_TOK_NORM),
    CL("starcoder", LNB, VC_NORM_B | VC_FUSED | VC_QKV_B | VC_WO_B | VC_GELU | VC_FFN_B | VC_POS),
    CL("refact", SF_DENSE, VC_RMS),
    CL("codeshell", LNB, VC_NORM_B | VC_FUSED | VC_QKV_B | VC_WO_B | VC_GELU | VC_FFN_B),
    CL("jais", LNB, VC_NORM_B | VC_FUSED | VC_QKV_B | VC_WO_B | VC_FFN_B | VC_ALIBI),
    CL("jais2", LNB, VC_NORM_B | VC_QKV_B | VC_WO_B | VC_GELU | VC_FFN_B | VC_MHA),
    CL("nemotron", LNB, VC_NORM_B | VC_GELU | VC_PARTIAL),
    CL("plamo", SF_HEADS_EMBD | SF_DENSE, VC_RMS | VC_NO_FFN_NORM),
    CL("chameleon", SF_HEADS_EMBD | SF_DENSE | SF_NO_ANSWER, VC_RMS | VC_QK_NORM2),
    CL("bitnet", SF_TIED | SF_HEADS_EMBD | SF_DENSE | SF_NO_ANSWER, VC_RMS | VC_SUBNORM),
    CL("chatglm", SF_HEADS_EMBD | SF_DENSE, VC_RMS | VC_FUSED | VC_QKV_B | VC_SWIGLU1 | VC_PARTIAL),
    CL("plamo3", SF_DENSE | SF_NO_ANSWER, VC_RMS | VC_FUSED | VC_QK_NORM1 | VC_POST | VC_SWIGLU1),
    CL("pockettts", LNB | SF_ROPE_FULL | SF_TIED, VC_NORM_B | VC_GELU),
    CL("talkie", SF_NO_OUT_NORM | SF_DENSE | SF_NO_ANSWER, VC_RMS | VC_NO_NORM | VC_TALKIE),
    CL("nanbeige", SF_DENSE, VC_RMS),
    {"deci", SF_HEADS_EMBD | SF_DENSE, VC_RMS, classic_defaults, classic_validate, classic_keys, classic_tensors,
     deci_layer, 0, 0},
    CL("pangu-embedded", SF_DENSE, VC_RMS | VC_WO_B),
    CL("openelm", SF_TIED | SF_DENSE | SF_NO_ANSWER, VC_RMS | VC_FUSED | VC_QK_NORM1),
    MOE2("dbrx", SF_ROPE_FULL | SF_HEADS_EMBD, V2_DBRX),
    MOE2("arctic", SF_ROPE_FULL | SF_HEADS_EMBD, V2_ARCTIC),
    MOE2("grok", SF_ROPE_FULL | SF_HEADS_EMBD, V2_GROK),
    MOE2("dots1", SF_ROPE_FULL, V2_SHARED | V2_GATED | V2_QK_NORM | V2_KV_H),
    MOE2("bailingmoe", SF_ROPE_FULL, V2_SHARED),
    MOE2("bailingmoe2", SF_HEADS_EMBD, V2_SHARED | V2_GATED | V2_QK_NORM | V2_FUSED),
    {"bailingmoe3", SF_MLA | SF_MTP, V_KIMI, bailing3_defaults, bailing3_validate, bailing3_keys, bailing3_tensors, bailing3_layer, 0, 0},
    MOE2("smallthinker", SF_ROPE_FULL, V2_THINKER),
    LLAMA("hunyuan_vl", RF_D, V_QK_NORM),
    MOE2("deepseek2-ocr", SF_ROPE_FULL | SF_HEADS_EMBD, V2_SHARED | V2_GATED | V2_KV_H | V2_GATE_UP),
    MOE2("granite_swa", SF_ROPE_FULL, V2_GRANITE | V2_GATE_UP),
    MOE2("grovemoe", SF_ROPE_FULL, V2_GROVE | V2_QK_NORM | V2_THINKER),
    MOE2("hy_v3", SF_ROPE_FULL, V2_SHARED | V2_GATED | V2_QK_NORM | V2_GATE_UP | V2_SH1),
    MOE2("cohere2moe", SF_ROPE_FULL, V2_SHARED | V2_GATED | V2_GATE_UP | V2_COHERE),
    MOE2("laguna", 0, V2_SHARED | V2_GATED | V2_QK_NORM | V2_AGATE),
    MOE2("mimo2", 0, V2_MIMO),
    MOE2("step35", 0, V2_MIMO | V2_STEP | V2_QK_NORM | V2_AGATE),
    MOE2("muse-glimmer", SF_DENSE, V2_MUSE),
    MOE2("afmoe", 0, V2_SHARED | V2_GATED | V2_QK_NORM | V2_SWA | V2_AFMOE),
    MOE2("exaone-moe", SF_ROPE_FULL, V2_SHARED | V2_GATED | V2_QK_NORM | V2_SWA),
    {"plm", SF_TIED | SF_NO_ANSWER | SF_MHA_V | SF_DENSE, 0, plm_defaults, plm_validate, plm_keys, plm_tensors, NULL, 0, 0},
    {"minicpm3", SF_NO_ANSWER | SF_MHA_V | SF_DENSE, V_MINICPM3, plm_defaults, plm_validate, plm_keys, plm_tensors, NULL,
     0, 0},
    LLAMA("paddleocr", RF_D | SF_MROPE, 0),
    MLA("glm-dsa", V_DS32 | V_IDX_TYPES),
    SSM("plamo2", V_PLAMO2, plamo2_tensors, ssm_layer, 0),
    CL("cogvlm", SF_ROPE_FULL | SF_HEADS_EMBD | SF_DENSE, VC_RMS | VC_FUSED | VC_MHA | VC_VISEXP),
    {"deepseek4", 0, 0, ds4_defaults, ds4_validate, ds4_keys, ds4_tensors, NULL, 0, 0},
    {"qwen4exp", SF_NO_OUT_NORM | SF_NO_ANSWER, V_Q35_MOE, qwen4_defaults, qwen4_validate, qwen4_keys, qwen4_tensors,
     NULL, 0, 1e7f},
    {"dots3note", SF_MTP | SF_MLA | SF_MHA_V | SF_HEADS_SWA, 0, dots3_defaults, dots3_validate, dots3_keys, dots3_tensors, NULL, 0, 0},
    {"minimax-01", SF_NO_ANSWER, 0, minimax_defaults, minimax_validate, minimax_keys, minimax_tensors, NULL, 0, 0},
    {"minimax-m3", 0, V_MM3, minimax_defaults, minimax_validate, minimax_keys, minimax_tensors, NULL, 0, 0},
    {"wavtokenizer-dec", SF_TIED | SF_NO_ANSWER | SF_NORM_BIAS | SF_DENSE, 0, wavtok_defaults, wavtok_validate,
     wavtok_keys, wavtok_tensors, NULL, 0, 0},
    {"eagle3", SF_TIED | SF_NO_ANSWER | SF_DENSE, 0, drafter_defaults, drafter_validate, drafter_keys, drafter_tensors, NULL, 0, 0},
    {"dflash", SF_TIED | SF_NO_ANSWER | SF_DENSE, V_DFLASH, drafter_defaults, drafter_validate, drafter_keys, drafter_tensors, NULL, 0, 0},
};
/* clang-format on */

const struct synth_family *synth_family_find(const char *arch)
{
	for (size_t i = 0; i < ARRAY_SIZE(families); i++)
		if (strcmp(arch, families[i].arch) == 0)
			return &families[i];
	return NULL;
}

int synth_family_known(const char *arch, char **err)
{
	if (synth_family_find(arch))
		return 0;
	struct near nr = near_start(arch, 2);
	struct sb all = {0};
	for (size_t j = 0; j < ARRAY_SIZE(families); j++) {
		sb_addf(&all, "%s%s", j ? ", " : "", families[j].arch);
		near_try(&nr, families[j].arch);
	}
	if (nr.best)
		errorf(err, "unknown architecture '%s' (did you mean %s?)", arch, nr.best);
	else
		errorf(err, "unknown architecture '%s' (synth knows %s)", arch, all.s);
	sb_release(&all);
	return -1;
}

size_t synth_family_count(void)
{
	return ARRAY_SIZE(families);
}

const struct synth_family *synth_family_at(size_t i)
{
	return i < ARRAY_SIZE(families) ? &families[i] : NULL;
}
