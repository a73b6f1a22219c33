/* The simulator's pseudo-random numbers: xoshiro256** (Blackman and Vigna, 2018), its
 * state filled by splitmix64 from the seed and the run's index, so that each run draws
 * the same numbers whatever thread makes it and however many there are
 * (docs/runtime.md, "Simulation": reproducible runs). Small, fast, and good enough for
 * Monte Carlo; not for secrets. */
#ifndef ORBIT_RUN_RNG_H
#define ORBIT_RUN_RNG_H

#include <stdint.h>

typedef struct Rng {
    uint64_t s[4];
} Rng;

/* The generator of run `run` of a simulation seeded with `seed`. */
void rng_seed(Rng *rng, uint64_t seed, uint64_t run);
uint64_t rng_next(Rng *rng);
/* A number in [0, 1) with 53 random bits. */
double rng_unit(Rng *rng);
/* A standard normal number (Box-Muller). */
double rng_normal(Rng *rng);

#endif
