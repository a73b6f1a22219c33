/* What a run looks at on the file system, told before it looks: `check --watch`
 * (cli/watch.c) watches each place as it is told, so that what it watches is what the
 * check read (a directory listed, a configuration or a .gitignore looked for, found or
 * not, a file read through its symbolic links), and a change made after a place was
 * watched, even while the check runs, is seen. The walk (inputs.c), the .gitignore
 * files (ignore.c) and the program roots (roots.c) tell it, always on the thread that
 * collects the inputs. */
#ifndef ORBIT_INPUT_OBSERVER_H
#define ORBIT_INPUT_OBSERVER_H

typedef enum InputLook {
    INPUT_LIST,     /* directory `dir` is listed (`name` NULL): what a walk sees in it,
                       inputs_walk_sees, matters */
    INPUT_LOOKUP,   /* the entry `name` of directory `dir` is looked for, without following
                       a symbolic link: whether it exists matters (`.git`, orbit.program) */
    INPUT_FOLLOW,   /* the path `name` is resolved from directory `dir` (NULL: the current
                       one; `name` may be absolute), following symbolic links, and read
                       if it is a file: each entry looked up on the way, each link, and
                       the text read matter. `dir` itself is taken as resolved already */
} InputLook;

typedef struct InputObserver {
    void (*look)(void *context, InputLook what, const char *dir, const char *name);
    void *context;
} InputObserver;

/* Tells `observer` (NULL: nobody asks) what is about to be looked at. */
static inline void inputs_observe(const InputObserver *observer, InputLook what,
                                  const char *dir, const char *name)
{
    if (observer)
        observer->look(observer->context, what, dir, name);
}

#endif
