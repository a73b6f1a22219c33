/* libFuzzer target for the .orbc loader: arbitrary bytes -> orbc_load -> disassemble.
 *
 * Each input is tried twice: as is (exercising the header and checksum checks), and with
 * its length field and checksum fixed up, so that mutations reach the section parser and
 * the code verifier. A module that loads is disassembled to /dev/null, serialized again,
 * and the result must load too. Any crash, sanitizer report, leak or abort is a bug.
 *
 * Built by meson with -Dfuzz=true (fuzz/build.sh); run with fuzz/run.sh,
 * which seeds the corpus with the .orbc files of the golden programs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orbc.h"

static FILE *devnull;

static void check_loaded(const OrbcModule *m)
{
    orbc_disassemble(m, devnull);
    uint8_t *bytes;
    size_t len;
    OrbcError err;
    if (!orbc_serialize(m, &bytes, &len, &err))
        abort();   /* a loaded module is within the limits */
    OrbcModule again;
    if (!orbc_load(bytes, len, &again, &err)) {
        fprintf(stderr, "reserialized module does not load: %s\n", err.text);
        abort();
    }
    orbc_module_free(&again);
    free(bytes);
}

static void try_load(const uint8_t *data, size_t size)
{
    OrbcModule m;
    OrbcError err;
    if (orbc_load(data, size, &m, &err)) {
        check_loaded(&m);
        orbc_module_free(&m);
    } else if (strncmp(err.text, "orbc: ", 6) != 0) {
        abort();   /* every failure has a message */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!devnull)
        devnull = fopen("/dev/null", "w");
    try_load(data, size);
    if (size >= ORBC_HEADER_SIZE && size <= ORBC_MAX_FILE_SIZE) {
        uint8_t *copy = malloc(size);
        memcpy(copy, data, size);
        for (int i = 0; i < 4; i++)
            copy[12 + i] = (uint8_t)(size >> (8 * i));
        orbc_seal(copy, size);
        try_load(copy, size);
        free(copy);
    }
    return 0;
}
