#include "trust.h"

#include <errno.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/file.h"
#include "../base/util.h"
#include "../endpoint/flags.h"
#include "../plan/device.h"

/* --- the engine's config files ------------------------------------------ */

static const char *env_get(char *const *env, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; env && env[i]; i++)
		if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
			return env[i] + n + 1;
	return NULL;
}

char *trust_user_config(char *const *env)
{
	/* fs_get_config_directory: XDG_CONFIG_HOME, else HOME/.config, else
	 * the passwd entry's home; then llama.cpp/config.ini */
	const char *xdg = env ? env_get(env, "XDG_CONFIG_HOME") : TRUST_XDG_CONFIG_HOME;
	const char *home = env ? env_get(env, "HOME") : NULL;
	struct sb b = {0};
	if (xdg && *xdg) {
		sb_addf(&b, "%s%s", xdg, xdg[strlen(xdg) - 1] == '/' ? "" : "/");
	} else if (home && *home) {
		sb_addf(&b, "%s/.config/", home);
	} else {
		struct passwd *pw = getpwuid(getuid());
		if (!pw || !pw->pw_dir)
			return NULL;
		sb_addf(&b, "%s/.config/", pw->pw_dir);
	}
	sb_adds(&b, "llama.cpp/config.ini");
	return sb_detach(&b);
}

/* One setting of a section the engine applies. */
static void judge_setting(const char *path, int line, const char *key, const char *value, struct findings *out)
{
	const struct engine_flag *f = flags_find_ini(key);
	if (!f) {
		findings_add(out, "R03", SEV_INFO, NULL, K__COUNT, "",
			     "%s:%d: %s = %s: no flag of llama-server; the engine ignores it", path, line, key, value);
		return;
	}
	const char *fix = "remove the line: a setting reaches the engine through the endpoint file only";
	switch (f->cls) {
	case FLAG_KEY:
		findings_add(out, "R03", SEV_ERROR, NULL, K__COUNT, fix,
			     "%s:%d: %s = %s sets %s, a flag %s owns: the engine applies it before its argv", path,
			     line, key, value, f->name, f->arg);
		break;
	case FLAG_REFUSED:
		findings_add(out, "R03", SEV_ERROR, NULL, K__COUNT, fix, "%s:%d: %s = %s sets %s: %s (law %s)", path,
			     line, key, value, f->name, f->why, f->arg);
		break;
	case FLAG_PRICED:
		findings_add(out, "R03", SEV_ERROR, NULL, K__COUNT, "move it to EXTRA_ARGS, where the plan reads it",
			     "%s:%d: %s = %s sets %s, which the plan reads from EXTRA_ARGS only (law %s)", path, line,
			     key, value, f->name, f->arg);
		break;
	default:
		findings_add(out, "R03", SEV_WARNING, NULL, K__COUNT, "",
			     "%s:%d: %s = %s sets %s (harmless: neither memory nor a law's judgement): the engine "
			     "applies it",
			     path, line, key, value, f->name);
	}
}

static int ident_char(char c, int first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (!first && ((c >= '0' && c <= '9') || c == '.' || c == '-'));
}

/* One line of the INI grammar of common/preset.cpp; *section is the
 * current section (0 default, 1 "*", 2 another). Returns -1 when the line
 * is none of header, key = value, comment, blank. */
static int ini_line(const char *path, int no, char *s, int *section, struct findings *out)
{
	s += strspn(s, " \t");
	if (!*s || *s == ';' || *s == '#')
		return 0;
	if (*s == '[') {
		char *end = strchr(s, ']');
		if (!end)
			return -1;
		char *name = s + 1 + strspn(s + 1, " \t");
		size_t n = (size_t)(end - name);
		while (n && (name[n - 1] == ' ' || name[n - 1] == '\t'))
			n--;
		*section = n == 1 && name[0] == '*' ? 1 : n == 7 && strncmp(name, "default", 7) == 0 ? 0 : 2;
		return 0;
	}
	if (!ident_char(*s, 1))
		return -1;
	char *k = s;
	while (ident_char(*s, 0))
		s++;
	char *kend = s;
	s += strspn(s, " \t");
	if (*s != '=')
		return -1;
	*kend = '\0';
	s++;
	s += strspn(s, " \t");
	/* the value stops at blanks before a comment or the end */
	size_t n = strlen(s);
	for (char *c = s; *c; c++)
		if ((*c == ';' || *c == '#') && (c == s || c[-1] == ' ' || c[-1] == '\t')) {
			n = (size_t)(c - s);
			break;
		}
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	s[n] = '\0';
	if (*section != 2 && strcmp(k, "version") != 0)
		judge_setting(path, no, k, s, out);
	return 0;
}

size_t trust_config_text(const char *path, const char *text, struct findings *out)
{
	size_t before = out->n;
	char *copy = xstrdup(text);
	int section = 0, no = 0;
	for (char *line = copy; line;) {
		char *next = line + strcspn(line, "\r\n");
		char *rest = NULL;
		if (*next) {
			rest = next + 1 + (next[0] == '\r' && next[1] == '\n');
			*next = '\0';
		}
		no++;
		if (ini_line(path, no, line, &section, out)) {
			findings_add(out, "R03", SEV_ERROR, NULL, K__COUNT, "correct or remove the file",
				     "%s:%d: the engine cannot parse this line: it would refuse to start", path, no);
			break;
		}
		line = rest;
	}
	free(copy);
	size_t errors = 0;
	for (size_t i = before; i < out->n; i++)
		errors += out->v[i].sev == SEV_ERROR;
	return errors;
}

static size_t judge_file(const char *path, const char *root, struct findings *out, struct sb *read)
{
	struct sb p = {0};
	sb_addf(&p, "%s%s", root ? root : "", path);
	struct stat st;
	size_t errors = 0;
	/* std::filesystem::exists: a path stat cannot reach is no file to it */
	if (stat(p.s, &st) == 0) {
		sb_addf(read, "%s%s", read->len ? " " : "", path);
		size_t len = 0;
		char *err = NULL;
		char *text = read_file(p.s, 1u << 20, 0, &len, NULL, &err);
		if (!text) {
			findings_add(out, "R03", SEV_ERROR, NULL, K__COUNT, "remove the file, or make it readable",
				     "%s exists and cannot be read (%s): the engine would stop at it", path,
				     err ? err : strerror(errno));
			errors++;
		} else {
			errors += trust_config_text(path, text, out);
		}
		free(text);
		free(err);
	}
	sb_release(&p);
	return errors;
}

size_t trust_config_files(char *const *env, const char *root, struct findings *out, char **read_out)
{
	struct sb read = {0};
	size_t errors = judge_file(TRUST_SYSTEM_CONFIG, root, out, &read);
	char *user = trust_user_config(env);
	if (user)
		errors += judge_file(user, root, out, &read);
	free(user);
	if (read_out)
		*read_out = sb_detach(&read);
	else
		sb_release(&read);
	return errors;
}

/* --- the environment ---------------------------------------------------- */

/* What serve passes to the engine (LC_* too). */
static const char *const passed[] = {
    "PATH", "HOME",   "USER", "LOGNAME",  "SHELL",	   "LANG",	     "LANGUAGE",
    "TZ",   "TMPDIR", "TERM", "NO_COLOR", "INVOCATION_ID", "JOURNAL_STREAM", "SYSTEMD_EXEC_PID"};

/* What the engine, ggml, a GPU runtime or the loader reads: refused. */
static const struct {
	const char *prefix; /* a name, or a prefix ending in '_' */
	const char *why;
} refused[] = {
    {"LLAMA_ARG_", "it sets an engine flag outside argv"},
    {"LLAMA_", "llama.cpp reads it (LLAMA_API_KEY, LLAMA_CACHE, its debug switches)"},
    {"GGML_", "ggml reads it (GGML_BACKEND_PATH loads another backend; GGML_CUDA_* change allocation)"},
    {"LD_", "the dynamic loader reads it: other code than the judged runtime's"},
    {"HF_", "the engine reads it (a download token or hub endpoint)"},
    {"HUGGING_FACE_", "the engine reads it (a download token)"},
    {"MODEL_ENDPOINT", "the engine reads it (a download endpoint)"},
    {"AIP_", "the engine's Vertex AI mode reads it (another port and routes)"},
    {"CUDA_DEVICE_ORDER", "the CUDA runtime reads it: another card behind GPU's index"},
    {"CUDA_MPS_", "the CUDA runtime reads it: another process shares the card"},
    {"HIP_", "the ROCm runtime reads it (device selection)"},
    {"ROCR_", "the ROCm runtime reads it (device selection)"},
    {"HSA_", "the ROCm runtime reads it"},
    {"GPU_DEVICE_ORDINAL", "the ROCm runtime reads it (device selection)"},
    {"ONEAPI_DEVICE_SELECTOR", "the SYCL runtime reads it (device selection)"},
    {"VK_", "the Vulkan loader reads it (another driver)"},
    {"MTMD_", "the projector's library reads it (MTMD_BACKEND_DEVICE: another device)"},
    {"GLIBC_TUNABLES", "the C library reads it (the allocator's arenas: memory the plan does not bill)"},
    {"MALLOC_", "the C library reads it (the allocator: memory the plan does not bill)"},
};

static int name_is(const char *entry, const char *name)
{
	size_t n = strlen(name);
	return strncmp(entry, name, n) == 0 && entry[n] == '=';
}

static int has_prefix(const char *entry, const char *prefix)
{
	size_t n = strlen(prefix);
	return prefix[n - 1] == '_' ? strncmp(entry, prefix, n) == 0 : name_is(entry, prefix);
}

const struct key_def *trust_env_owner(const char *name)
{
	const struct key_def *k = key_owning_env(name);
	const struct engine_flag *f = flags_find_env(name);
	return k ? k : f && f->cls == FLAG_KEY ? key_by_name(f->arg) : NULL;
}

/* The variable that chooses the endpoint's card on its device's backend. */
static const char *visible_var(const struct endpoint *ep)
{
	const char *name = ep ? endpoint_value_of(ep, K_DEVICE) : NULL;
	return device_visible_var(device_find(name ? name : ""));
}

const char *trust_env_var(const struct endpoint *ep, const char *entry, char **why)
{
	*why = NULL;
	size_t n = strcspn(entry, "=");
	char name[128];
	snprintf(name, sizeof(name), "%.*s", (int)(n < 127 ? n : 127), entry);
	const char *value = entry[n] ? entry + n + 1 : "";
	if (strcmp(name, "CUDA_VISIBLE_DEVICES") == 0 || strcmp(name, "GGML_VK_VISIBLE_DEVICES") == 0) {
		const char *gpu = ep ? endpoint_value_of(ep, K_GPU) : NULL;
		if (gpu && *gpu && strcmp(gpu, value) == 0 && strcmp(name, visible_var(ep)) == 0)
			return NULL;
		*why = xstrf("%s=%s: the card is GPU's to choose (GPU=%s), and the unit sets %s from GPU", name, value,
			     gpu && *gpu ? gpu : "unset", visible_var(ep));
		return "R04";
	}
	/* the endpoint file is the unit's EnvironmentFile=: its own keys
	 * (CUDA_FA_QUANTS ...) are zealot's, and no engine reads them */
	if (key_by_name(name))
		return NULL;
	/* a variable the engine reads as a flag (its LLAMA_ARG_*, LLAMA_API_KEY,
	 * HF_TOKEN ...): a key's is C09's, any other R04's */
	const struct key_def *k = trust_env_owner(name);
	const struct engine_flag *f = flags_find_env(name);
	if (k) {
		*why = xstrf("%s, which sets %s, a flag %s owns", name, f ? f->name : "a flag", k->name);
		return "C09";
	}
	if (f) {
		*why = xstrf("%s, which sets %s outside argv%s%s", name, f->name, f->cls == FLAG_REFUSED ? ": " : "",
			     f->cls == FLAG_REFUSED ? f->why : "");
		return "R04";
	}
	for (size_t i = 0; i < ARRAY_SIZE(refused); i++)
		if (has_prefix(entry, refused[i].prefix)) {
			*why = xstrf("%s: %s", name, refused[i].why);
			return "R04";
		}
	return NULL;
}

static int is_passed(const char *entry)
{
	if (strncmp(entry, "LC_", 3) == 0)
		return 1;
	for (size_t i = 0; i < ARRAY_SIZE(passed); i++)
		if (name_is(entry, passed[i]))
			return 1;
	return 0;
}

static void push(char ***v, size_t *n, char *s)
{
	*v = xreallocarray(*v, *n + 2, sizeof(**v));
	(*v)[(*n)++] = s;
	(*v)[*n] = NULL;
}

size_t trust_env(const struct endpoint *ep, char *const *env, char ***engine_env, struct findings *out)
{
	size_t errors = 0, n = 0;
	char **v = NULL;
	for (size_t i = 0; env && env[i]; i++) {
		char *why = NULL;
		const char *law = trust_env_var(ep, env[i], &why);
		if (law) {
			findings_add(
			    out, law, SEV_ERROR, NULL, K__COUNT,
			    "unset it (systemctl unset-environment, the unit's drop-ins, the shell): serve builds "
			    "the engine's environment",
			    "the environment holds %s", why);
			errors++;
		} else if (is_passed(env[i]) || name_is(env[i], visible_var(ep))) {
			push(&v, &n, xstrdup(env[i]));
		}
		free(why);
	}
	push(&v, &n, xstrf("XDG_CONFIG_HOME=%s", TRUST_XDG_CONFIG_HOME));
	*engine_env = v;
	return errors;
}

void trust_env_free(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}
