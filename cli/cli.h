/* What the commands of orbitc share (cli/). */
#ifndef ORBIT_CLI_H
#define ORBIT_CLI_H

/* Prints a path that cannot be used, as the workspace reports it (InputReport):
 * "orbitc: error: MESSAGE" on standard error. */
void cli_print_problem(void *context, const char *path, const char *message);

/* `orbitc lsp`: argv holds the arguments after `lsp` (lsp_command.c). */
int lsp_command(int argc, char **argv);

#endif
