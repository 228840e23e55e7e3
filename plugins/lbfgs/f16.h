/* lbfgs plugin — IEEE binary16 ("half") conversion of blocks of doubles.
 *
 * The correction pairs are stored as halves (see history.c for why).  x86
 * CPUs with F16C convert eight values per instruction; elsewhere a portable
 * conversion gives the same bits: both round a double first to float (as
 * the C cast does) and then to the nearest half, ties to even, so a model
 * does not depend on which path a machine took.
 */
#ifndef CRFP_LBFGS_F16_H
#define CRFP_LBFGS_F16_H

#include <stddef.h>
#include <stdint.h>

/* 1 when this CPU has the F16C instructions, and AVX2 and FMA besides (and
 * the OS saves AVX state), else 0. */
int f16_hw(void);

/* h[i] = half(float(v[i] · scale)) for i < n.  Values beyond the half
 * range become ±infinity (callers scale so that none are). */
void f16_encode(int hw, const double *v, double scale, uint16_t *h, size_t n);

/* v[i] = the value of h[i], exactly, for i < n. */
void f16_decode(int hw, const uint16_t *h, double *v, size_t n);

/* One value each way, portably (the reference of the block versions). */
uint16_t f16_from_float(float f);
float f16_to_float(uint16_t h);

#endif
