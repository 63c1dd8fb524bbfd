/* fault: named points where a test stops, exits or kills the process, so a
 * cut lands at a named step every time instead of wherever a sleep aimed.
 *
 * A test facility, inert unless the environment asks for it:
 *
 *   ZEALOT_FAULT=POINT:ACTION[@N][,POINT:ACTION[@N]...]
 *
 * POINT is "area:step" (one of fault_points[]), ACTION one of
 *
 *   stop   raise SIGSTOP: the process waits, whole, until SIGCONT (or a
 *          SIGKILL, or its host going away)
 *   exit   _exit(FAULT_EXIT_STATUS): no atexit handler, no buffer flushed
 *   kill   raise SIGKILL: as `kill -9` from outside
 *
 * and @N fires on the Nth pass through the point (default: the first). Each
 * entry fires once. ZEALOT_FAULT_LOG names a file that gets one line,
 * "POINT ACTION PASS PID", appended right before the action, so a test
 * waits on the file instead of on the clock; the module prints nothing.
 *
 * The environment is read once, at the first point passed; with
 * ZEALOT_FAULT unset a point costs one pthread_once and one branch.
 */
#ifndef ZEALOT_FAULT_H
#define ZEALOT_FAULT_H

/* the status of the exit action: none of zealot's own (0-3, 78), nor a
 * sanitizer's (86 in the tests), nor a signal's (128+N) */
#define FAULT_EXIT_STATUS 97

/* Every point the code passes, NULL-terminated (a ZEALOT_FAULT naming
 * another is a usage error, so a typo never silently aims nowhere). */
extern const char *const fault_points[];

/* Pass point "area:step": act when ZEALOT_FAULT asks for it at this pass. */
void fault_point(const char *area, const char *step);

/* 0 when ZEALOT_FAULT is unset or well-formed; -1 with *err naming the bad
 * entry. The command layer calls it once before any command runs. */
int fault_check(char **err);

/* Parse spec (ZEALOT_FAULT's syntax) into the active set, replacing the
 * environment's, and zero every pass count; NULL clears it. 0, or -1 with
 * *err (the set is then empty). For the unit tests. */
int fault_set(const char *spec, char **err);

/* How many times point "area:step" has been passed while an entry named it
 * (0 when none did). For the unit tests. */
unsigned fault_passes(const char *area, const char *step);

#endif
