/* `orbitc explain [CODE]` (docs/cli.md): the explanation of a diagnostic code
 * (diagnostics/explain/CODE.md), or the list of every code. */
#include <stdio.h>

#include "cli.h"
#include "diag.h"

static void print_code_list(void)
{
    for (int i = 0; i < DIAG_CODE_COUNT; i++) {
        const DiagInfo *info = diag_info((DiagCode)i);
        printf("%s  %-7s  %s\n", info->code,
               info->severity == SEV_ERROR ? "error" : info->default_on ? "warning" : "lint",
               info->title);
    }
}

int cli_explain(const CliOptions *opt)
{
    if (opt->path_count == 0) {
        print_code_list();
        return EXIT_OK;
    }
    if (opt->path_count > 1)
        return cli_usage_error("`explain` takes one code, e.g. `orbitc explain %s`", "E0410");
    int found = cli_code_from_arg(opt->paths[0]);
    if (found < 0)
        return cli_usage_error("no diagnostic code `%s` (see `orbitc explain` for the list)",
                               opt->paths[0]);
    fputs(diag_explanation((DiagCode)found), stdout);
    return EXIT_OK;
}
