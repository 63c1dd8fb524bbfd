/* ansible: the fleet as an Ansible inventory and a playbook that runs
 * `zealot deploy` on each host, for operators who drive everything from
 * Ansible. Every string that comes from the fleet (names, paths, the
 * reason) is written `!unsafe`, so Ansible never templates it, and reaches
 * the hosts as one argv element (the command module, no shell). */
#ifndef ZEALOT_FLEET_ANSIBLE_H
#define ZEALOT_FLEET_ANSIBLE_H

#include "fleet.h"

/* The name a host goes by in the inventory: fleet_host_key() with every
 * byte but letters, digits and . _ - as '-' ("127.0.0.1-2201"). Caller
 * frees. */
char *fleet_ansible_host(const struct fleet_member *m);

/* The inventory holds one host per name and one user per host: refuses
 * (-1, *err naming both endpoints) two destinations whose names would be
 * one (h:22 and h-22) and two users on one host. */
int fleet_ansible_check(const struct fleet *f, char **err);

/* inventory.yml: group zealot_fleet, one host per destination with
 * ansible_host, ansible_port and ansible_user from HOST (local endpoints:
 * localhost, connection local) and zealot_endpoints, the names it serves.
 * ssh_config: passed to ssh as -F (ansible_ssh_common_args), or NULL. */
char *fleet_ansible_inventory(const struct fleet *f, const char *ssh_config);

/* playbook.yml: on every host, refuse a zealot whose `--version` is not
 * version, then per endpoint (in name order) copy its file to
 * zealot_endpoint_dir and run `zealot deploy FILE --reason REASON` there;
 * any failure ends the play (any_errors_fatal). Paths are made absolute. */
char *fleet_ansible_playbook(const struct fleet *f, const char *version, const char *reason);

#endif
