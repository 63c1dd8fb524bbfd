#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan/device.h"
#include "tap.h"

/* The card a query asks about (issue 33 item 8): deploy's settled memory
 * and plan's free memory go through device_nvidia_mib, which asks
 * nvidia-smi -i CARD; a fake nvidia-smi first on PATH logs its argv. */
void test_card(void)
{
	char dir[] = "/tmp/zealot-card.XXXXXX";
	if (!mkdtemp(dir)) {
		ok(0, "card: a temporary directory");
		return;
	}
	char script[256], log[256], path[4096], line[256] = "";
	snprintf(script, sizeof(script), "%s/nvidia-smi", dir);
	snprintf(log, sizeof(log), "%s/argv", dir);
	FILE *f = fopen(script, "w");
	if (f) {
		fprintf(
		    f,
		    "#!/bin/sh\nprintf '%%s\\n' \"$*\" >'%s'\ncase \"$*\" in *'-i 2') echo 4321 ;; *) echo 7 ;; esac\n",
		    log);
		fclose(f);
	}
	chmod(script, 0755);
	const char *old = getenv("PATH");
	char *saved = old ? strdup(old) : NULL;
	snprintf(path, sizeof(path), "%s:%s", dir, old ? old : "/usr/bin:/bin");
	setenv("PATH", path, 1);
	ok(device_nvidia_mib(2, "memory.used") == 4321, "card: memory.used of card 2 is the -i 2 answer");
	f = fopen(log, "r");
	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = '\0';
		fclose(f);
	}
	ok(strcmp(line, "--query-gpu=memory.used --format=csv,noheader,nounits -i 2\n") == 0,
	   "card: nvidia-smi was asked about card 2 (-i 2)");
	ok(device_card_of("3") == 3 && device_card_of(NULL) == 0 && device_card_of("") == 0,
	   "card: GPU=3 is card 3, unset is card 0");
	if (saved) {
		setenv("PATH", saved, 1);
		free(saved);
	}
	unlink(log);
	unlink(script);
	rmdir(dir);
}
