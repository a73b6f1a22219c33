/* `orbitc dis [--format json] FILE` (docs/cli.md): loads a bytecode file through liborbc
 * (bytecode/orbc.h), which verifies it, and prints it as text or as JSON (dis_json.c). */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "dis_json.h"
#include "orbc.h"
#include "workspace.h"

int cli_dis(const CliOptions *opt)
{
    if (opt->path_count != 1)
        return cli_usage_error("%s takes one bytecode file: `orbitc dis FILE.orbc`", "dis");
    if (opt->format != FORMAT_HUMAN && opt->format != FORMAT_JSON)
        return cli_usage_error("%s prints text or JSON: `--format human` or `--format json`",
                               "`orbitc dis`");
    const char *path = opt->paths[0];
    const char *error = NULL;
    size_t len = 0;
    uint8_t *bytes = workspace_read_binary(path, ORBC_MAX_FILE_SIZE, &len, &error);
    if (!bytes) {
        fprintf(stderr, "orbitc: error: cannot read `%s`: %s\n", path, error);
        return EXIT_USAGE;
    }
    OrbcModule module;
    OrbcError err;
    if (!orbc_load(bytes, len, &module, &err)) {
        free(bytes);
        fprintf(stderr, "orbitc: error: `%s` is not a valid bytecode file: %s\n", path, err.text);
        return EXIT_ERRORS;
    }
    if (opt->format == FORMAT_JSON)
        cli_dis_json_write(&module, bytes, len, stdout);
    else
        orbc_disassemble(&module, stdout);
    free(bytes);
    orbc_module_free(&module);
    return EXIT_OK;
}
