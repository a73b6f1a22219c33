/* The playground's API (api.c, docs/playground.md): each function takes NUL-terminated
 * UTF-8 and returns a malloc'd NUL-terminated text, JSON (orbit_pg_check: JSON Lines,
 * exactly `orbitc check --format json`'s), that the caller frees with orbit_pg_free. */
#ifndef ORBIT_PLAYGROUND_API_H
#define ORBIT_PLAYGROUND_API_H

char *orbit_pg_check(const char *source, const char *name);
char *orbit_pg_format(const char *source);
char *orbit_pg_fix(const char *source);
char *orbit_pg_build(const char *source);
char *orbit_pg_dis(const char *source);
char *orbit_pg_run(const char *source, const char *scenario);
char *orbit_pg_tokens(const char *source);
char *orbit_pg_scenario(const char *source);
char *orbit_pg_graph(const char *source, const char *workflow, const char *format);
void orbit_pg_free(char *text);

#endif
