/* The model file's checksum, recomputed by the tests that forge model files
 * (hostile or corrupted ones that must still pass the checksum, so that the
 * loader's other checks are what rejects them; the model fuzz target too).
 * Written here from the format's description (core/src/crf/modelio.c), byte
 * by byte, so the tests do not trust the loader's own code: four FNV-1a-style
 * lanes over 64-bit little-endian words, folded, then the tail bytes. */
#ifndef CRFP_TESTS_MODELSUM_H
#define CRFP_TESTS_MODELSUM_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t modelsum(const unsigned char *p, size_t n)
{
    const uint64_t prime = 0x100000001b3ULL, init = 0xcbf29ce484222325ULL;
    uint64_t h[4] = {init, init ^ 1, init ^ 2, init ^ 3};
    size_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (int l = 0; l < 4; l++) {
            uint64_t x = 0;
            for (int k = 7; k >= 0; k--)
                x = (x << 8) | p[i + 8 * (size_t)l + (size_t)k];
            h[l] = (h[l] ^ x) * prime;
        }
    uint64_t r = init;
    for (int l = 0; l < 4; l++)
        r = (r ^ h[l]) * prime;
    for (; i < n; i++)
        r = (r ^ p[i]) * prime;
    return r;
}

#endif
