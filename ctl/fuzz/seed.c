// SPDX-License-Identifier: GPL-2.0
/*
 * Seeds of the fuzz corpora: the golden recording of tests/scenario.h and
 * its files, and the tracepoint recording of tests/tp-record.h (formats
 * and raw records).  usage: seed DIR  (writes DIR/data/ and DIR/elf/)
 */
#include <stdio.h>
#include <stdlib.h>

#include "scenario.h"
#include "tp-record.h"

int main(int argc, char **argv)
{
	char root[512], path[1024];

	if (argc != 2) {
		fprintf(stderr, "usage: seed DIR\n");
		return 2;
	}
	if (snprintf(root, sizeof(root), "%s/root", argv[1]) >= (int)sizeof(root))
		return 2;
	tmpdir__mkdir(argv[1], "root");
	tmpdir__mkdir(argv[1], "data");
	snprintf(path, sizeof(path), "%s/data/golden.data", argv[1]);
	sc__golden(root, path);
	snprintf(path, sizeof(path), "%s/data/tp.data", argv[1]);
	tpr__write(path, true);
	return 0;
}
