#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../slurp.h"
#include "base/proc.h"
#include "base/util.h"
#include "deploy/arm.h"
#include "deploy/cause.h"
#include "deploy/install.h"
#include "deploy/systemd.h"
#include "endpoint/endpoint.h"
#include "tap.h"

/* Classify a fixture; the law ("" for none) and the term in *term. */
static int classify(const char *name, int gpu, struct cause *c)
{
	char path[256];
	snprintf(path, sizeof(path), "tests/data/journal/%s", name);
	size_t len = 0;
	char *j = slurp(path, &len);
	if (!j) {
		memset(c, 0, sizeof(*c));
		return -1;
	}
	int found = cause_classify(j, len, gpu, c);
	free(j);
	return found;
}

static void test_cause(void)
{
	struct cause c;
	int found;
	found = classify("203-exec.log", 0, &c);
	ok(found == 1 && strcmp(c.law, "C08") == 0 && c.line && strstr(c.line, "Exec format"),
	   "cause: a script without a shebang is 203/EXEC, C08 (%s)", tap_s(c.line));
	cause_release(&c);
	found = classify("78-refused.log", 0, &c);
	ok(found == 1 && strcmp(c.law, "C03") == 0 && strstr(c.what, "78") && !c.partial,
	   "cause: serve's refusal (78) names the law it gave: C03 (%s), whole", c.law);
	cause_release(&c);
	/* the exit before serve's own line: journald had not read the stream */
	const char *exit78 = "e1.service: Main process exited, code=exited, status=78/CONFIG\n"
			     "e1.service: Failed with result 'exit-code'.\n";
	ok(cause_classify(exit78, strlen(exit78), 0, &c) == 1 && c.partial && c.law[0] == '\0',
	   "cause: status 78 without serve's line is a refusal still partial (read the journal again)");
	cause_release(&c);
	found = classify("cuda-oom-kv.log", 1, &c);
	ok(found == 1 && strcmp(c.law, "M09") == 0 && c.term && strcmp(c.term, "kv") == 0,
	   "cause: cudaMalloc out of memory, asked by the kv cache (term %s)", tap_s(c.term));
	cause_release(&c);
	found = classify("cuda-oom-draft-compute.log", 1, &c);
	ok(found == 1 && strcmp(c.law, "M09") == 0 && c.term && strcmp(c.term, "draft_compute") == 0,
	   "cause: cudaMalloc out of memory after the MTP draft context: draft_compute (term %s)", tap_s(c.term));
	cause_release(&c);
	found = classify("no-cuda-device.log", 1, &c);
	ok(found == 1 && strcmp(c.law, "A09") == 0 && strstr(c.fix, "nvidia-modprobe"),
	   "cause: no CUDA device is A09 with the nvidia-modprobe fix, not the model error after it");
	cause_release(&c);
	found = classify("kv-host.log", 1, &c);
	ok(found == 1 && strcmp(c.law, "M10") == 0, "cause: a CPU KV buffer on a GPU endpoint is M10");
	cause_release(&c);
	found = classify("kv-host.log", 0, &c);
	ok(found == 0, "cause: a CPU KV buffer on a cpu endpoint is no cause");
	cause_release(&c);
	found = classify("port-taken.log", 0, &c);
	ok(found == 1 && strcmp(c.law, "A02") == 0,
	   "cause: couldn't bind the port is A02 (a leftover engine holds it)");
	cause_release(&c);
	found = classify("226-namespace.log", 0, &c);
	ok(found == 1 && c.law[0] == '\0' && strstr(c.what, "sandbox"), "cause: 226/NAMESPACE is the unit's sandbox");
	cause_release(&c);
	const char *torch = "RuntimeError: No CUDA GPUs are available\n";
	ok(cause_classify(torch, strlen(torch), 1, &c) == 1 && strcmp(c.law, "A09") == 0,
	   "cause: 'No CUDA GPUs are available' is A09");
	cause_release(&c);
	ok(cause_classify("", 0, 0, &c) == 0 && c.line == NULL, "cause: an empty journal names nothing");
	cause_release(&c);
	const char nul[] = "x\0cudaMalloc failed: out of memory\nfailed to allocate buffer for kv cache";
	ok(cause_classify(nul, sizeof(nul) - 1, 1, &c) == 1 && c.line && !memchr(c.line, '\0', strlen(c.line)),
	   "cause: a NUL byte in the journal is evidence, not a terminator");
	cause_release(&c);
}

static void test_show(void)
{
	const char *s =
	    "MainPID=4242\nExecMainPID=4241\nInvocationID=0123456789abcdef0123456789abcdef\nActiveState=active\n"
	    "SubState=running\nResult=success\nLoadState=loaded\nExecMainStatus=0\nNRestarts=2\n"
	    "DropInPaths=/etc/systemd/system/e1.service.d/ptq1.conf /run/systemd/system/service.d/x.conf\n";
	struct systemd_unit u;
	systemd_parse_show(s, strlen(s), &u);
	ok(u.main_pid == 4242 && u.exec_main_pid == 4241 &&
	       strcmp(u.invocation_id, "0123456789abcdef0123456789abcdef") == 0 && strcmp(u.active, "active") == 0 &&
	       strcmp(u.sub, "running") == 0 && u.n_restarts == 2,
	   "systemctl show: MainPID, ExecMainPID, InvocationID, states, NRestarts");
	ok(u.n_dropins == 2 && strcmp(u.dropins[0], "/etc/systemd/system/e1.service.d/ptq1.conf") == 0,
	   "systemctl show: DropInPaths split");
	systemd_unit_release(&u);
	const char *junk = "MainPID=-3\nActiveState=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n=x\nDropInPaths=\n";
	systemd_parse_show(junk, strlen(junk), &u);
	ok(u.main_pid == 0 && strlen(u.active) < sizeof(u.active) && u.n_dropins == 0,
	   "systemctl show: a negative pid, an overlong state, an empty list");
	systemd_unit_release(&u);
}

static void test_install(void)
{
	char dir[] = "/tmp/zealot-unit-install.XXXXXX";
	ok(mkdtemp(dir) != NULL, "install: a temp dir");
	struct sb p = {0};
	sb_addf(&p, "%s/sub/dir/e1.env", dir);
	char *err = NULL;
	ok(install_write(p.s, "A=1\n", 4, 0644, &err) == 0, "install: write creates the directories (%s)", tap_s(err));
	size_t len = 0;
	char *back = install_read(p.s, &len, &err);
	struct stat st;
	ok(back && len == 4 && strcmp(back, "A=1\n") == 0 && stat(p.s, &st) == 0 && (st.st_mode & 0777) == 0644,
	   "install: read back, mode 0644");
	free(back);
	ok(install_write(p.s, "B=2\n", 4, 0644, &err) == 0 && (back = install_read(p.s, &len, &err)) &&
	       strcmp(back, "B=2\n") == 0,
	   "install: a second write replaces it");
	free(back);
	ok(install_remove(p.s, &err) == 0 && install_read(p.s, &len, &err) == NULL && err == NULL,
	   "install: removed; reading an absent file is NULL without an error");
	ok(install_remove(p.s, &err) == 0, "install: removing an absent file is fine");
	free(err);
	sb_release(&p);

	const char *src =
	    "# the model\nMODEL_FILE=payloads/q.gguf\nMMPROJ_FILE=/abs/mm.gguf\nLORA_FILE=\n"
	    "RUNTIME=llama-server\nAPI_KEY_FILE=\"key dir/k\"\nEXTRA_ARGS=--foo \\\n  --bar\nCTX_SIZE=4096\n";
	struct endpoint *ep = endpoint_parse(src, strlen(src), "/srv/ep/e1.env", &err);
	ok(ep != NULL, "install: the source endpoint parses (%s)", tap_s(err));
	char *out = ep ? install_env_text(ep, src, strlen(src)) : NULL;
	ok(out && strstr(out, "\nMODEL_FILE=/srv/ep/payloads/q.gguf\n"),
	   "env text: a relative payload becomes absolute");
	ok(out && strstr(out, "\nMMPROJ_FILE=/abs/mm.gguf\n") && strstr(out, "\nLORA_FILE=\n") &&
	       strstr(out, "\nRUNTIME=llama-server\n"),
	   "env text: absolute paths, empty opt-outs and a bare RUNTIME stay as written");
	ok(out && strstr(out, "\nAPI_KEY_FILE=\"/srv/ep/key dir/k\"\n"), "env text: a path with a blank is quoted");
	ok(out && strstr(out, "# the model\n") && strstr(out, "EXTRA_ARGS=--foo \\\n  --bar\n"),
	   "env text: comments and continued lines kept");
	struct endpoint *again = out ? endpoint_parse(out, strlen(out), "/etc/zealot/e1.env", &err) : NULL;
	char *mp = again ? endpoint_path(again, "MODEL_FILE") : NULL;
	char *kp = again ? endpoint_path(again, "API_KEY_FILE") : NULL;
	ok(mp && strcmp(mp, "/srv/ep/payloads/q.gguf") == 0 && kp && strcmp(kp, "/srv/ep/key dir/k") == 0 &&
	       endpoint_entry(again, "CTX_SIZE")->line == endpoint_entry(ep, "CTX_SIZE")->line,
	   "env text: installed elsewhere it names the same files, on the same lines");
	free(mp);
	free(kp);
	endpoint_free(again);
	free(out);
	endpoint_free(ep);
	const char *cont = "MODEL_FILE=a/\\\nb.gguf\nCTX_SIZE=1\n";
	ep = endpoint_parse(cont, strlen(cont), "/m/e.env", &err);
	out = ep ? install_env_text(ep, cont, strlen(cont)) : NULL;
	ok(out && strcmp(out, "MODEL_FILE=/m/a/b.gguf\n\nCTX_SIZE=1\n") == 0,
	   "env text: a continued relative path is joined, an empty line keeps the numbering (%s)", tap_s(out));
	free(out);
	endpoint_free(ep);
	free(err);
	rmdir(dir);
	struct sb d = {0};
	sb_addf(&d, "%s/sub/dir", dir);
	rmdir(d.s);
	sb_release(&d);
	sb_addf(&d, "%s/sub", dir);
	rmdir(d.s);
	sb_release(&d);
	rmdir(dir);
}

/* The endpoint file's mode as installed: the source's, never wider than
 * 0644; a secret takes other's read away; USER reads it by its group. */
static void test_env_mode(void)
{
	char dir[] = "/tmp/zealot-envmode-XXXXXX";
	if (!mkdtemp(dir))
		return;
	char src[64];
	snprintf(src, sizeof(src), "%s/src.env", dir);
	FILE *f = fopen(src, "w");
	if (f)
		fclose(f);
	const char *plain = "MODEL_FILE=/m.gguf\nCTX_SIZE=4096\n";
	const char *secret = "MODEL_FILE=/m.gguf\nMODEL_URL=http://u:pw@h/m.gguf\nCTX_SIZE=4096\n";
	const char *secret_user = "MODEL_FILE=/m.gguf\nMODEL_URL=http://u:pw@h/m.gguf\nUSER=nobody\nCTX_SIZE=4096\n";
	long gid = 0;
	chmod(src, 0600);
	ok(install_env_mode(plain, strlen(plain), src, &gid) == 0600 && gid == -1, "a 0600 source stays 0600");
	chmod(src, 0664);
	ok(install_env_mode(plain, strlen(plain), src, &gid) == 0644, "a 0664 source: at most 0644");
	ok(install_env_mode(plain, strlen(plain), NULL, &gid) == 0644, "no source: 0644");
	ok(install_env_mode(secret, strlen(secret), src, &gid) == 0640 && gid == -1,
	   "a URL password: 0640, no other user reads it");
	unsigned m = install_env_mode(secret_user, strlen(secret_user), src, &gid);
	ok(m == 0640 && (geteuid() == 65534 || gid == 65534),
	   "a URL password and USER=nobody: 0640, group nobody's (%o, %ld)", m, gid);
	chmod(src, 0600);
	m = install_env_mode(secret_user, strlen(secret_user), src, &gid);
	ok(m == 0640 && (geteuid() == 65534 || gid == 65534),
	   "a 0600 source and USER: 0640 root:USER, so serve reads it");
	char dst[64];
	snprintf(dst, sizeof(dst), "%s/dst.env", dir);
	struct stat st;
	ok(install_env(dst, secret_user, strlen(secret_user), src, NULL) == 0 && stat(dst, &st) == 0 &&
	       (st.st_mode & 07777) == 0640 && (geteuid() != 0 || st.st_gid == 65534),
	   "install_env writes it so");
	unlink(dst);
	unlink(src);
	rmdir(dir);
}

static void test_proc(void)
{
	const char *argv[] = {"sh", "-c", "echo out; echo err >&2; exit 3", NULL};
	struct proc_result r;
	char *err = NULL;
	ok(proc_run(argv, 10000, 1024, &r, &err) == 0 && r.status == 3 && strcmp(r.out.s, "out\n") == 0 &&
	       strcmp(r.err.s, "err\n") == 0,
	   "proc: status, stdout and stderr apart");
	proc_result_release(&r);
	const char *slow[] = {"sleep", "10", NULL};
	ok(proc_run(slow, 200, 1024, &r, &err) == 0 && r.timed_out && r.status == 128 + 9,
	   "proc: killed at the time limit");
	proc_result_release(&r);
	const char *none[] = {"/nonexistent/zealot-nothing", NULL};
	ok(proc_run(none, 1000, 1024, &r, &err) == -1 && err && strstr(err, "No such file"),
	   "proc: a program that cannot start is an error (%s)", tap_s(err));
	free(err);
	err = NULL;
	proc_result_release(&r);
	const char *big[] = {"sh", "-c", "head -c 300000 /dev/zero", NULL};
	ok(proc_run(big, 10000, 1000, &r, &err) == 0 && r.status == 0 && r.out.len == 1000,
	   "proc: output past the cap is drained and dropped");
	proc_result_release(&r);
}

/* The candidate's endpoint file: each --set key's line replaced (however it
 * was written), the rest kept, the keys appended; it parses. */
static void test_arm_env(void)
{
	const char *text = "RUNTIME=llama-server\nMODEL_FILE=/m.gguf\n  UBATCH_SIZE=512\nLISTEN_PORT=8080\n"
			   "# UBATCH_SIZE=1 in a comment stays\nUBATCH_SIZE_X=1\n";
	const char *sets[] = {"UBATCH_SIZE=256", "CTX_SIZE=8192"};
	char *t = arm_env_text(text, sets, 2);
	ok(!strstr(t, "UBATCH_SIZE=512") && strstr(t, "\nUBATCH_SIZE=256\n") && strstr(t, "\nCTX_SIZE=8192\n") &&
	       strstr(t, "# UBATCH_SIZE=1 in a comment stays") && strstr(t, "UBATCH_SIZE_X=1") &&
	       strstr(t, "LISTEN_PORT=8080"),
	   "arm: the candidate's file replaces the set keys' lines and keeps the rest");
	const char *one[] = {"LISTEN_PORT=9090"};
	char *u = arm_env_text("LISTEN_PORT=8080", one, 1);
	ok(strcmp(u, "\n# zealot arm:\nLISTEN_PORT=9090\n") == 0,
	   "arm: a last line without a newline is replaced, leaving its line empty (lines keep their numbers)");
	free(u);
	free(t);
}

void test_deploy(void)
{
	test_arm_env();
	test_cause();
	test_show();
	test_install();
	test_env_mode();
	test_proc();
}
