#include "ansible.h"

#include <stdlib.h>
#include <string.h>

/* A string Ansible must take as it is: never templated, JSON-escaped
 * inside YAML double quotes (JSON's escapes are YAML's). */
static void unsafe(struct sb *b, const char *s)
{
	sb_adds(b, "!unsafe ");
	sb_add_json_str(b, s, strlen(s));
}

/* A line "KEY VALUE\n": key (its indent and colon included), then the
 * value as unsafe writes it. */
static void unsafe_line(struct sb *b, const char *key, const char *v)
{
	sb_adds(b, key);
	unsafe(b, v);
	sb_addc(b, '\n');
}

char *fleet_ansible_host(const struct fleet_member *m)
{
	char *k = fleet_host_key(m);
	for (char *p = k; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.' ||
		      *p == '_' || *p == '-'))
			*p = '-';
	return k;
}

/* The members grouped by host (host key order), as fleet_group does. */
static size_t hosts_of(const struct fleet *f, struct fleet_card **out)
{
	struct fleet_bill *b = xcalloc(f->n ? f->n : 1, sizeof(*b));
	for (size_t i = 0; i < f->n; i++)
		b[i] = (struct fleet_bill){i, -1};
	size_t n = fleet_group(f, b, f->n, out);
	free(b);
	return n;
}

static char *abs_path(const char *path)
{
	char *r = realpath(path, NULL);
	return r ? r : xstrdup(path);
}

int fleet_ansible_check(const struct fleet *f, char **err)
{
	int rc = 0;
	for (size_t i = 0; i < f->n && !rc; i++)
		for (size_t j = i + 1; j < f->n && !rc; j++) {
			const struct fleet_member *a = &f->m[i], *b = &f->m[j];
			char *ka = fleet_host_key(a), *kb = fleet_host_key(b);
			char *na = fleet_ansible_host(a), *nb = fleet_ansible_host(b);
			const char *ua = a->host.user ? a->host.user : "", *ub = b->host.user ? b->host.user : "";
			if (strcmp(ka, kb) != 0 && strcmp(na, nb) == 0)
				rc = errorf(err, "%s (%s) and %s (%s) would be one inventory host, %s", a->name, ka,
					    b->name, kb, na);
			else if (strcmp(ka, kb) == 0 && strcmp(ua, ub) != 0)
				rc =
				    errorf(err,
					   "%s and %s run on %s as different users ('%s', '%s'): the inventory has one "
					   "ansible_user per host",
					   a->name, b->name, ka, ua, ub);
			free(ka);
			free(kb);
			free(na);
			free(nb);
		}
	return rc;
}

char *fleet_ansible_inventory(const struct fleet *f, const char *ssh_config)
{
	struct sb b = {0};
	sb_adds(&b, "# Ansible inventory of the zealot fleet ");
	quote_one_line(&b, f->dir);
	sb_adds(&b, ", emitted by zealot: a host per HOST\n"
		    "# (ssh destination), local endpoints on localhost. The playbook is playbook.yml.\n"
		    "all:\n"
		    "  children:\n"
		    "    zealot_fleet:\n");
	if (ssh_config) {
		char *abs = abs_path(ssh_config);
		struct sb args = {0};
		sb_adds(&args, "-F ");
		quote_shell(&args, abs);
		sb_adds(&b, "      vars:\n"
			    "        # ssh reads this config (Host aliases, identities, known hosts)\n"
			    "        ansible_ssh_common_args: ");
		unsafe(&b, args.s);
		sb_addc(&b, '\n');
		sb_release(&args);
		free(abs);
	}
	sb_adds(&b, "      hosts:\n");
	struct fleet_card *h;
	size_t nh = hosts_of(f, &h);
	for (size_t i = 0; i < nh; i++) {
		const struct fleet_member *m = &f->m[h[i].idx[0]];
		char *name = fleet_ansible_host(m);
		sb_addf(&b, "        %s:\n", name);
		free(name);
		if (!m->remote) {
			sb_adds(&b, "          ansible_connection: local\n");
		} else {
			sb_adds(&b, "          ansible_host: ");
			unsafe(&b, m->host.host);
			sb_addc(&b, '\n');
			if (m->host.port)
				sb_addf(&b, "          ansible_port: %u\n", m->host.port);
			if (m->host.user) {
				sb_adds(&b, "          ansible_user: ");
				unsafe(&b, m->host.user);
				sb_addc(&b, '\n');
			}
		}
		sb_adds(&b, "          zealot_endpoints:\n");
		for (size_t j = 0; j < h[i].n; j++) {
			sb_adds(&b, "            - ");
			unsafe(&b, f->m[h[i].idx[j]].name);
			sb_addc(&b, '\n');
		}
	}
	fleet_cards_free(h, nh);
	return sb_detach(&b);
}

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

char *fleet_ansible_playbook(const struct fleet *f, const char *version, const char *reason)
{
	struct sb b = {0};
	sb_adds(&b, "# Deploys the zealot fleet ");
	quote_one_line(&b, f->dir);
	sb_adds(&b, " (emitted by ");
	quote_one_line(&b, version);
	sb_adds(&b, ") on the hosts of inventory.yml:\n"
		    "#   ansible-playbook -i inventory.yml playbook.yml [-e zealot=/path/to/zealot]\n"
		    "# Every host must run the same zealot; then, one endpoint at a time, its file\n"
		    "# is copied to zealot_endpoint_dir and `zealot deploy` gates, installs,\n"
		    "# restarts, verifies and records it there, rolling back on failure. The first\n"
		    "# failure ends the play. Payloads are not copied: their paths are the host's.\n"
		    "- name: zealot fleet deploy\n"
		    "  hosts: zealot_fleet\n"
		    "  gather_facts: false\n"
		    "  any_errors_fatal: true\n"
		    "  vars:\n"
		    "    zealot: zealot\n"
		    "    zealot_endpoint_dir: /etc/zealot/fleet\n");
	unsafe_line(&b, "    zealot_reason: ", reason);
	unsafe_line(&b, "    zealot_version: ", version);
	sb_adds(&b, "  tasks:\n"
		    "    - name: the zealot on the host\n"
		    "      ansible.builtin.command:\n"
		    "        argv: [\"{{ zealot }}\", \"--version\"]\n"
		    "      register: zealot_remote\n"
		    "      changed_when: false\n"
		    "    - name: the same zealot as the one that emitted this playbook\n"
		    "      ansible.builtin.assert:\n"
		    "        that: zealot_remote.stdout == zealot_version\n"
		    "        fail_msg: \"{{ inventory_hostname }} runs '{{ zealot_remote.stdout }}', this playbook is "
		    "from '{{ zealot_version }}'\"\n"
		    "        quiet: true\n"
		    "    - name: the endpoint directory\n"
		    "      ansible.builtin.file:\n"
		    "        path: \"{{ zealot_endpoint_dir }}\"\n"
		    "        state: directory\n"
		    "        mode: \"0755\"\n");
	for (size_t i = 0; i < f->n; i++) {
		const struct fleet_member *m = &f->m[i];
		char *host = fleet_ansible_host(m);
		char *src = abs_path(m->path);
		struct sb title = {0};
		for (int step = 0; step < 2; step++) {
			title.len = 0;
			sb_addf(&title, "%s %s", step ? "zealot deploy" : "copy", m->name);
			sb_adds(&b, "    - name: ");
			unsafe(&b, title.s);
			sb_addf(&b, "\n      when: inventory_hostname == \"%s\"\n", host);
			sb_adds(&b, "      vars:\n");
			unsafe_line(&b, "        zealot_file: ", base_of(m->path));
			if (step == 0) {
				unsafe_line(&b, "        zealot_src: ", src);
				sb_adds(&b, "      ansible.builtin.copy:\n"
					    "        src: \"{{ zealot_src }}\"\n"
					    "        dest: \"{{ zealot_endpoint_dir }}/{{ zealot_file }}\"\n"
					    "        mode: preserve\n");
			} else {
				sb_adds(&b, "      ansible.builtin.command:\n"
					    "        argv:\n"
					    "          - \"{{ zealot }}\"\n"
					    "          - deploy\n"
					    "          - \"{{ zealot_endpoint_dir }}/{{ zealot_file }}\"\n"
					    "          - --reason\n"
					    "          - \"{{ zealot_reason }}\"\n"
					    "      changed_when: true\n");
			}
		}
		sb_release(&title);
		free(src);
		free(host);
	}
	return sb_detach(&b);
}
