/* The version `zealot --version` prints, which every host of a fleet must
 * run alike (the emitted playbook and fleet deploy compare it). */
#ifndef ZEALOT_CMD_VERSION_H
#define ZEALOT_CMD_VERSION_H

#ifndef ZEALOT_VERSION
#define ZEALOT_VERSION "0.1.0"
#endif

#endif
