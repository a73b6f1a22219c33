/* xoshiro256** seeded by splitmix64 (rng.h). The constants are the published ones:
 * https://prng.di.unimi.it/ */
#include "rng.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* The run's splitmix64 starts from the seed mixed with the run index, so that runs
 * n and n+1 of one seed do not share a stream shifted by one word. */
void rng_seed(Rng *rng, uint64_t seed, uint64_t run)
{
    uint64_t r = run;
    uint64_t x = seed ^ splitmix64(&r);
    for (int i = 0; i < 4; i++)
        rng->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t rng_next(Rng *rng)
{
    uint64_t *s = rng->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double rng_unit(Rng *rng)
{
    return (double)(rng_next(rng) >> 11) * 0x1.0p-53;
}

double rng_normal(Rng *rng)
{
    double u = 1.0 - rng_unit(rng);   /* (0, 1]: its logarithm is finite */
    double v = rng_unit(rng);
    return sqrt(-2.0 * log(u)) * cos(2.0 * 3.14159265358979323846 * v);
}
