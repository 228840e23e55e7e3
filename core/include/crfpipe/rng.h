/* crfpipe — a small seeded random number generator for trainers.
 *
 * Stochastic and online trainers shuffle the training set every epoch; a
 * run must be bit-for-bit reproducible from its seed on any platform, which
 * rand() does not promise.  This is xoshiro256** seeded through splitmix64
 * (public-domain algorithms by Blackman and Vigna), inline so that a
 * trainer needs no state in the core.
 */
#ifndef CRFPIPE_RNG_H
#define CRFPIPE_RNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct crfp_rng {
    uint64_t s[4];
} crfp_rng;

/* The next splitmix64 output; *x is its state, advanced.  The functions
 * below work on the caller's crfp_rng, allocate nothing and cannot fail. */
static inline uint64_t crfp_rng_splitmix(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Seed r; any seed, 0 included, gives a usable state. */
static inline void crfp_rng_seed(crfp_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = crfp_rng_splitmix(&seed);
}

/* The next 64 random bits (xoshiro256**). */
static inline uint64_t crfp_rng_next(crfp_rng *r)
{
    uint64_t *s = r->s;
    uint64_t x = s[1] * 5, result = ((x << 7) | (x >> 57)) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return result;
}

/* Uniform in [0, n), n >= 1 (Lemire's multiply-shift; the bias is below
 * n / 2^64, far under anything a shuffle of a corpus can show).  n = 0
 * gives 0. */
static inline size_t crfp_rng_below(crfp_rng *r, size_t n)
{
    return (size_t)(((unsigned __int128)crfp_rng_next(r) * n) >> 64);
}

/* Uniform double in [0, 1). */
static inline double crfp_rng_unit(crfp_rng *r)
{
    return (double)(crfp_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Fisher-Yates shuffle of idx[0..n). */
static inline void crfp_rng_shuffle(crfp_rng *r, size_t *idx, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = crfp_rng_below(r, i);
        size_t t = idx[i - 1];
        idx[i - 1] = idx[j];
        idx[j] = t;
    }
}

#endif
