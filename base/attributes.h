/* Function attributes shared by the compiler's hot loops, and the mark of what the
 * WebAssembly build exports. */
#ifndef ORBIT_ATTRIBUTES_H
#define ORBIT_ATTRIBUTES_H

/* A path taken rarely (a mistake being reported, a rare shape of input): kept out of line
 * and out of the way, so that its caller's common path stays small and saves fewer
 * registers; each is called behind a cheap test of the common case. */
#define COLD __attribute__((noinline, cold))

/* A function kept out of line so that its caller's common path stays small (the caller
 * then saves no registers for what the function needs). */
#define NOINLINE __attribute__((noinline))

/* A function the WebAssembly build exports to JavaScript (docs/engine.md, "In
 * WebAssembly"): tools/playground_wasm.py reads the declarations so marked, and only
 * them, into the module's export list; the JavaScript wrapper (hosts/wasm/orbit-api.js)
 * calls nothing else. Natively it changes nothing. */
#define WASM_EXPORT

#endif
