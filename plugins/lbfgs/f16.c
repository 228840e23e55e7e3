/* lbfgs plugin — binary16 conversions (see f16.h). */
#include "config.h"
#include "f16.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define F16_X86 1
#endif

uint16_t f16_from_float(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint32_t sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) /* infinity, or a NaN kept quiet */
        return (uint16_t)(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0u));
    if (ax >= 0x477ff000u) /* at or past half-way from 65504 to 65536 */
        return (uint16_t)(sign | 0x7c00u);
    if (ax < 0x38800000u) {
        /* below 2^-14: a subnormal half, in units of 2^-24 */
        if (ax <= 0x33000000u) /* at most 2^-25: ties to the even zero */
            return (uint16_t)sign;
        uint32_t e = ax >> 23, mant = (ax & 0x7fffffu) | 0x800000u;
        uint32_t sh = 126 - e; /* 14..24 */
        uint32_t q = mant >> sh, rem = mant & ((1u << sh) - 1), half = 1u << (sh - 1);
        if (rem > half || (rem == half && (q & 1u)))
            q++;
        return (uint16_t)(sign | q); /* q = 0x400 is the least normal: same bits */
    }
    /* normal: rebias the exponent (127 → 15), keep 10 mantissa bits; a
     * carry out of the mantissa rightly bumps the exponent */
    uint32_t h = (ax >> 13) - (112u << 10), rem = ax & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
        h++;
    return (uint16_t)(sign | h);
}

float f16_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, x;
    if (e == 0) {
        float f = (float)m * 0x1p-24f; /* exact: at most 10 bits */
        return sign ? -f : f;
    }
    if (e == 31)
        x = sign | 0x7f800000u | (m << 13);
    else
        x = sign | ((e + 112u) << 23) | (m << 13);
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

#ifdef F16_X86
__attribute__((target("avx,f16c"))) static void encode_hw(const double *v, double scale,
                                                            uint16_t *h, size_t n)
{
    const __m256d sc = _mm256_set1_pd(scale);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        /* vcvtpd2ps rounds like the C cast (to nearest, the default mode) */
        __m128 a = _mm256_cvtpd_ps(_mm256_mul_pd(_mm256_loadu_pd(v + i), sc));
        __m128 b = _mm256_cvtpd_ps(_mm256_mul_pd(_mm256_loadu_pd(v + i + 4), sc));
        __m128i r = _mm256_cvtps_ph(_mm256_set_m128(b, a), _MM_FROUND_TO_NEAREST_INT);
        _mm_storeu_si128((__m128i *)(h + i), r);
    }
    for (; i < n; i++)
        h[i] = f16_from_float((float)(v[i] * scale));
}

__attribute__((target("avx,f16c"))) static void decode_hw(const uint16_t *h, double *v, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 f = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(h + i)));
        _mm256_storeu_pd(v + i, _mm256_cvtps_pd(_mm256_castps256_ps128(f)));
        _mm256_storeu_pd(v + i + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)));
    }
    for (; i < n; i++)
        v[i] = f16_to_float(h[i]);
}
#endif

int f16_hw(void)
{
#ifdef F16_X86
    __builtin_cpu_init();
    /* the optimizer's kernels that take this path also use AVX2 and FMA,
     * which every CPU with F16C since 2013 has.  F16C from CPUID leaf 1
     * (ECX bit 29): clang before 15 has no "f16c" for
     * __builtin_cpu_supports. */
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 29)))
        return 0;
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return 0;
#endif
}

void f16_encode(int hw, const double *v, double scale, uint16_t *h, size_t n)
{
#ifdef F16_X86
    if (hw) {
        encode_hw(v, scale, h, n);
        return;
    }
#endif
    (void)hw;
    for (size_t i = 0; i < n; i++)
        h[i] = f16_from_float((float)(v[i] * scale));
}

void f16_decode(int hw, const uint16_t *h, double *v, size_t n)
{
#ifdef F16_X86
    if (hw) {
        decode_hw(h, v, n);
        return;
    }
#endif
    (void)hw;
    for (size_t i = 0; i < n; i++)
        v[i] = f16_to_float(h[i]);
}
