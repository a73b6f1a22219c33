/* The orbitc executable's entry: everything is cli_main's (main.c), which the one
 * WebAssembly build also exports, for the npm package's command line without a native
 * binary (docs/install.md, "npm"). */
#include "cli.h"

int main(int argc, char **argv)
{
    return cli_main(argc, argv);
}
