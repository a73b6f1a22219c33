/* `orbitc dis --format json`: the decoded module as one JSON document, every field of the
 * file (docs/bytecode.md, "The JSON dump"; schema docs/orbc.schema.json). */
#ifndef DIS_JSON_H
#define DIS_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "orbc.h"

/* Writes the module loaded from `bytes` (the whole verified file) to `out`, then a
 * newline. False when writing failed. */
bool cli_dis_json_write(const OrbcModule *module, const uint8_t *bytes, size_t len, FILE *out);

#endif
