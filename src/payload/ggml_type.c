#include "ggml_type.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "../base/util.h"

/* ggml/src/ggml.c type_traits and ggml-common.h block layouts. */
static const struct ggml_type_info types[] = {
    {0, "f32", 1, 4},	      {1, "f16", 1, 2},		{2, "q4_0", 32, 18},	  {3, "q4_1", 32, 20},
    {6, "q5_0", 32, 22},      {7, "q5_1", 32, 24},	{8, "q8_0", 32, 34},	  {9, "q8_1", 32, 36},
    {10, "q2_K", 256, 84},    {11, "q3_K", 256, 110},	{12, "q4_K", 256, 144},	  {13, "q5_K", 256, 176},
    {14, "q6_K", 256, 210},   {15, "q8_K", 256, 292},	{16, "iq2_xxs", 256, 66}, {17, "iq2_xs", 256, 74},
    {18, "iq3_xxs", 256, 98}, {19, "iq1_s", 256, 50},	{20, "iq4_nl", 32, 18},	  {21, "iq3_s", 256, 110},
    {22, "iq2_s", 256, 82},   {23, "iq4_xs", 256, 136}, {24, "i8", 1, 1},	  {25, "i16", 1, 2},
    {26, "i32", 1, 4},	      {27, "i64", 1, 8},	{28, "f64", 1, 8},	  {29, "iq1_m", 256, 56},
    {30, "bf16", 1, 2},	      {34, "tq1_0", 256, 54},	{35, "tq2_0", 256, 66},	  {39, "mxfp4", 32, 17},
    {40, "nvfp4", 64, 36},    {41, "q1_0", 128, 18},	{42, "q2_0", 64, 18},
};

/* llama.h's enum llama_ftype, spelled as llama-model-loader.cpp's
 * llama_ftype_name spells each (the ids the pinned engine lists; 4-6 and
 * 33-35 were removed from it). */
static const struct {
	int id;
	const char *name;
} ftypes[] = {
    {0, "all F32"},
    {1, "F16"},
    {2, "Q4_0"},
    {3, "Q4_1"},
    {7, "Q8_0"},
    {8, "Q5_0"},
    {9, "Q5_1"},
    {10, "Q2_K - Medium"},
    {11, "Q3_K - Small"},
    {12, "Q3_K - Medium"},
    {13, "Q3_K - Large"},
    {14, "Q4_K - Small"},
    {15, "Q4_K - Medium"},
    {16, "Q5_K - Small"},
    {17, "Q5_K - Medium"},
    {18, "Q6_K"},
    {19, "IQ2_XXS - 2.0625 bpw"},
    {20, "IQ2_XS - 2.3125 bpw"},
    {21, "Q2_K - Small"},
    {22, "IQ3_XS - 3.3 bpw"},
    {23, "IQ3_XXS - 3.0625 bpw"},
    {24, "IQ1_S - 1.5625 bpw"},
    {25, "IQ4_NL - 4.5 bpw"},
    {26, "IQ3_S - 3.4375 bpw"},
    {27, "IQ3_S mix - 3.66 bpw"},
    {28, "IQ2_S - 2.5 bpw"},
    {29, "IQ2_M - 2.7 bpw"},
    {30, "IQ4_XS - 4.25 bpw"},
    {31, "IQ1_M - 1.75 bpw"},
    {32, "BF16"},
    {36, "TQ1_0 - 1.69 bpw ternary"},
    {37, "TQ2_0 - 2.06 bpw ternary"},
    {38, "MXFP4 MoE"},
    {39, "NVFP4"},
    {40, "Q1_0"},
    {41, "Q2_0"},
};

/* File types a fork defines past the engine's list, as their payloads
 * declare them (PrismML's PQ2_0: general.file_type 141 over tensors of
 * custom type 142). */
static const struct {
	int id;
	const char *name;
} custom_ftypes[] = {
    {141, "PQ2_0"},
};

/* Tensor types a fork defines past ggml's list (PrismML's PQ2_0 = 142). */
static const struct {
	uint32_t id;
	const char *name;
} custom_types[] = {
    {142, "PQ2_0"},
};

const char *ggml_custom_type_name(uint32_t id)
{
	for (size_t i = 0; i < ARRAY_SIZE(custom_types); i++)
		if (custom_types[i].id == id)
			return custom_types[i].name;
	return NULL;
}

const char *ggml_ftype_name(int64_t ft, int *custom)
{
	*custom = 0;
	for (size_t i = 0; i < ARRAY_SIZE(ftypes); i++)
		if (ftypes[i].id == ft)
			return ftypes[i].name;
	*custom = 1;
	for (size_t i = 0; i < ARRAY_SIZE(custom_ftypes); i++)
		if (custom_ftypes[i].id == ft)
			return custom_ftypes[i].name;
	return NULL;
}

const struct ggml_type_info *ggml_type_get(uint32_t id)
{
	for (size_t i = 0; i < ARRAY_SIZE(types); i++)
		if (types[i].id == id)
			return &types[i];
	return NULL;
}

const struct ggml_type_info *ggml_type_by_name(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(types); i++)
		if (strcasecmp(types[i].name, name) == 0)
			return &types[i];
	return NULL;
}

uint64_t ggml_row_bytes(const struct ggml_type_info *t, uint64_t n)
{
	if (!t || n % t->blck)
		return 0;
	return n / t->blck * t->size;
}
