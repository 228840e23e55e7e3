/* lbfgs plugin — backtracking line search with the Armijo condition.
 *
 * Only sufficient decrease is tested (no curvature/Wolfe condition): the
 * two-loop memory simply skips pairs with s'y <= 0, and every extra trial
 * costs a full pass over the training data.  Backtracking uses the
 * minimiser of the quadratic through F0, the slope and the rejected trial,
 * kept within [0.1, 0.5] of the previous step so that a bad model cannot
 * stall or barely shrink the step. */
#include "config.h"
#include "lbfgs_impl.h"

#include <float.h>
#include <math.h>

#define ARMIJO_C 1e-4
#define SHRINK_MIN 0.1
#define SHRINK_MAX 0.5
#define FLAT_EPS (16 * DBL_EPSILON)

crfp_status lbfgs_linesearch(crfp_host *host, const lbfgs_objective *obj, const lbfgs_opts *opts,
                             lbfgs_ls *ls, double *x, double *g)
{
    double a = ls->a0;
    ls->found = 0;
    ls->flat = 0;
    ls->nevals = 0;
    for (int trial = 0; trial < opts->max_ls; trial++) {
        /* A sharded run hears of interrupts at the end of the iteration,
         * where the ranks agree on them: stopping here alone would leave
         * the others in the next evaluation's collective. */
        if (!obj->eval_shard && crfp_interrupted(host))
            return crfp_error(host, CRFP_EINTR, "lbfgs: interrupted during the line search");
        double dd, l1, f;
        owlqn_trial(ls->pool, obj->dim, ls->x0, ls->g0hi, ls->g0lo, ls->d, ls->dd0, a, obj->rho1, x, &dd,
                    &l1);
        crfp_status st = vpool_status(ls->pool);
        if (st != CRFP_OK)
            return st;
        /* Once the predicted change of F is below the rounding error of F
         * itself, neither this step nor any shorter one can show a
         * decrease: save the evaluations. */
        if (fabs(dd) <= FLAT_EPS * fabs(ls->F0)) {
            ls->flat = 1;
            return CRFP_OK;
        }
        st = lbfgs_eval(obj, x, &f, g);
        ls->nevals++;
        if (st != CRFP_OK)
            return st;
        double F = obj->rho1 > 0 ? f + obj->rho1 * l1 : f;
        /* dd < 0 also rules out a step that the projection reduced to
         * nothing. */
        if (isfinite(F) && dd < 0 && F < ls->F0 && F <= ls->F0 + ARMIJO_C * dd) {
            ls->f = f;
            ls->F = F;
            ls->step = a;
            ls->found = 1;
            return CRFP_OK;
        }
        double next = SHRINK_MIN * a;
        if (isfinite(F)) {
            /* q(t) = F0 + dd0·t + c·t², fitted through F at t = a */
            double c = (F - ls->F0 - ls->dd0 * a) / (a * a);
            if (c > 0)
                next = -ls->dd0 / (2 * c);
            if (!(next >= SHRINK_MIN * a))
                next = SHRINK_MIN * a;
            if (next > SHRINK_MAX * a)
                next = SHRINK_MAX * a;
        }
        a = next;
    }
    return CRFP_OK;
}
