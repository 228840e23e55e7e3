/* crfpipe — the probability of a labelled segment (a span's confidence).
 *
 * The labelling's distribution given x is a Markov chain, so with the
 * scaled tables of the last forward-backward (fwdbwd.c: P(y_t = y) =
 * α_t(y) β_t(y), and α_t = ψ_t (α_{t−1} exp λ_t) / c_t) the probability
 * that positions s..e carry labels l_s..l_e is
 *   α_s(l_s) · Π_{t=s+1..e} exp(λ_t(l_{t−1}, l_t)) ψ_t(l_t) / c_t · β_e(l_e):
 * the forward recursion clamped to one path from s, closed by β.  This is
 * the constrained forward-backward confidence of Culotta & McCallum (2004)
 * for an extracted field, at O(e − s) per segment once the tables exist.
 * The running product is the clamped α, at most α_t(l_t) ≤ 1: it cannot
 * overflow, and a segment too improbable for a double comes out 0.
 */
#include <math.h>
#include "infer.h"

crfp_status crfp_segment_prob(crfp_infer *w, const crfp_seq *seq, const double *theta,
                              uint32_t start, uint32_t n, const uint32_t *labels, double *p)
{
    if (!w || !seq || !theta || !labels || !p || n == 0 || start > seq->T ||
        n > seq->T - start)
        return CRFP_EINVAL;
    /* The tables must be those of this sequence and θ, backward included. */
    if (w->fb_seq != seq || w->fb_theta != theta || w->fb_T != seq->T)
        return CRFP_EINVAL;
    const uint32_t Y = w->Y;
    for (uint32_t i = 0; i < n; i++)
        if (labels[i] >= Y)
            return CRFP_EINVAL;
    double q = w->alpha[(size_t)start * Y + labels[0]];
    for (uint32_t i = 1; i < n && q > 0.0; i++) {
        uint32_t t = start + i;
        crfp_tview v;
        if (crfp_view_get(w, seq, t, theta, CRFP_VIEW_LOG, &v) != CRFP_OK)
            return CRFP_ENOMEM;
        q *= exp(v.L[(size_t)labels[i - 1] * Y + labels[i]]) * w->psi[(size_t)t * Y + labels[i]] /
             w->scale[t];
        crfp_view_release(w, seq, t);
    }
    *p = q * w->beta[(size_t)(start + n - 1) * Y + labels[n - 1]];
    return CRFP_OK;
}
