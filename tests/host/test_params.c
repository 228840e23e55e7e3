/* Parameter parsing: every accepted syntax and every error path. */
#include "config.h"
#include "crfpipe/host.h"
#include "crfpipe/params.h"
#include "check.h"

#include <math.h>
#include <stdlib.h>

static const crfp_param_spec specs[] = {
    {"name", CRFP_PARAM_STRING, "dflt", "a string"},
    {"max-iter", CRFP_PARAM_INT, "100", "an int"},
    {"rho1", CRFP_PARAM_FLOAT, "0.5", "a float"},
    {"verbose", CRFP_PARAM_BOOL, "false", "a bool"},
    {"template", CRFP_PARAM_PATH, NULL, "a path"},
    {"nodefault", CRFP_PARAM_STRING, NULL, "no default"},
};
#define NSPECS (sizeof specs / sizeof *specs)

static int set(crfp_host *h, crfp_params *p, const char *n, const char *v)
{
    return crfp_params_set(h, p, "pipe.xml:7: stage 'x'", n, v, "/base/dir") == CRFP_OK;
}

int main(void)
{
    int fails = 0;
    int *f = &fails;
    crfp_host *h = crfp_host_new();
    CHECK(f, h != NULL);
    if (!h)
        return 1;
    crfp_params *p = crfp_params_new(specs, NSPECS);
    CHECK(f, p != NULL);
    if (!p)
        return 1;

    /* Defaults before anything is set. */
    CHECK(f, strcmp(crfp_params_str(p, "name"), "dflt") == 0);
    CHECK(f, crfp_params_int(p, "max-iter") == 100);
    CHECK(f, crfp_params_float(p, "rho1") == 0.5);
    CHECK(f, crfp_params_bool(p, "verbose") == 0);
    CHECK(f, crfp_params_str(p, "nodefault") == NULL);
    CHECK(f, !crfp_params_isset(p, "name"));

    /* Iteration skips parameters without value or default. */
    const char *n, *v;
    size_t k = 0;
    while (crfp_params_iter(p, k, &n, &v))
        k++;
    CHECK(f, k == 4);
    CHECK(f, crfp_params_iter(p, 3, &n, &v) && strcmp(n, "verbose") == 0);

    /* Accepted values. */
    CHECK(f, set(h, p, "name", "hello world"));
    CHECK(f, strcmp(crfp_params_str(p, "name"), "hello world") == 0);
    CHECK(f, crfp_params_isset(p, "name"));
    CHECK(f, set(h, p, "max-iter", "-42"));
    CHECK(f, crfp_params_int(p, "max-iter") == -42);
    CHECK(f, set(h, p, "max-iter", "+9223372036854775807"));
    CHECK(f, crfp_params_int(p, "max-iter") == INT64_MAX);
    CHECK(f, set(h, p, "rho1", "1e-3"));
    CHECK(f, fabs(crfp_params_float(p, "rho1") - 1e-3) < 1e-15);
    const char *yes[] = {"true", "yes", "1", "on", "TRUE", "On"};
    const char *no[] = {"false", "no", "0", "off", "No"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
        CHECK(f, set(h, p, "verbose", yes[i]));
        CHECK(f, crfp_params_bool(p, "verbose") == 1);
    }
    for (size_t i = 0; i < sizeof no / sizeof *no; i++) {
        CHECK(f, set(h, p, "verbose", no[i]));
        CHECK(f, crfp_params_bool(p, "verbose") == 0);
    }
    CHECK(f, set(h, p, "template", "t/feat.tpl"));
    CHECK(f, strcmp(crfp_params_str(p, "template"), "/base/dir/t/feat.tpl") == 0);
    CHECK(f, set(h, p, "template", "/abs/feat.tpl"));
    CHECK(f, strcmp(crfp_params_str(p, "template"), "/abs/feat.tpl") == 0);
    CHECK(f, crfp_params_set(h, p, "cli", "template", "rel.tpl", NULL) == CRFP_OK);
    CHECK(f, strcmp(crfp_params_str(p, "template"), "rel.tpl") == 0);

    /* Unknown name: the message names the place and lists what is known. */
    CHECK(f, crfp_params_set(h, p, "pipe.xml:7: stage 'x'", "rho3", "1", NULL) == CRFP_EINVAL);
    CHECK(f, crfp_errcode(h) == CRFP_EINVAL);
    CHECK_MSG(f, h, "pipe.xml:7: stage 'x': unknown parameter 'rho3' (known: name, max-iter, "
                    "rho1, verbose, template, nodefault)");

    /* Type errors, each leaving the previous value in force. */
    static const struct {
        const char *name, *value, *expect;
    } bad[] = {
        {"rho1", "abc", "parameter 'rho1' expects a float, got 'abc'"},
        {"rho1", "", "expects a float, got ''"},
        {"rho1", "0.1x", "expects a float, got '0.1x'"},
        {"rho1", " 0.1", "expects a float"},
        {"rho1", "nan", "expects a float, got 'nan'"},
        {"rho1", "inf", "expects a float, got 'inf'"},
        {"rho1", "1e999", "expects a float, got '1e999'"},
        {"max-iter", "12.5", "parameter 'max-iter' expects an integer, got '12.5'"},
        {"max-iter", "0x10", "expects an integer, got '0x10'"},
        {"max-iter", "", "expects an integer, got ''"},
        {"max-iter", " 5", "expects an integer"},
        {"max-iter", "5 ", "expects an integer"},
        {"max-iter", "99999999999999999999", "expects an integer, got '99999999999999999999'"},
        {"max-iter", "-99999999999999999999", "expects an integer"},
        {"verbose", "maybe", "parameter 'verbose' expects a boolean"},
        {"verbose", "", "expects a boolean"},
        {"verbose", "2", "expects a boolean"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        crfp_error_clear(h);
        crfp_status st = crfp_params_set(h, p, "pipe.xml:7: stage 'x'", bad[i].name,
                                         bad[i].value, NULL);
        CHECK(f, st == CRFP_EINVAL);
        CHECK_MSG(f, h, bad[i].expect);
        CHECK_MSG(f, h, "pipe.xml:7: stage 'x': ");
    }
    CHECK(f, fabs(crfp_params_float(p, "rho1") - 1e-3) < 1e-15);
    CHECK(f, crfp_params_int(p, "max-iter") == INT64_MAX);

    /* Missing name/value and the default location. */
    CHECK(f, crfp_params_set(h, p, NULL, "name", NULL, NULL) == CRFP_EINVAL);
    CHECK(f, crfp_params_set(h, p, NULL, "zzz", "1", NULL) == CRFP_EINVAL);
    CHECK_MSG(f, h, "unknown parameter 'zzz'");

    /* Wrong-type and undeclared getters are misuses: neutral values, and the
     * set records the first one for the host to report. */
    CHECK(f, crfp_params_misuse(p) == NULL);
    CHECK(f, crfp_params_int(p, "rho1") == 0);
    CHECK(f, crfp_params_misuse(p) && strstr(crfp_params_misuse(p), "read parameter 'rho1' as int"));
    CHECK(f, crfp_params_float(p, "undeclared") == 0.0);
    CHECK(f, crfp_params_bool(p, "name") == 0);
    CHECK(f, crfp_params_str(p, "undeclared") == NULL);
    crfp_params *fresh = crfp_params_new(specs, NSPECS);
    CHECK(f, fresh && crfp_params_str(fresh, "undeclared") == NULL);
    CHECK(f, fresh && crfp_params_misuse(fresh) &&
                 strstr(crfp_params_misuse(fresh), "'undeclared', which it never declared"));
    crfp_params_free(fresh);

    size_t ns;
    CHECK(f, crfp_params_specs(p, &ns) == specs && ns == NSPECS);
    /* declares: a query, not a misuse, for names declared or not */
    CHECK(f, crfp_params_declares(p, "name") == 1);
    CHECK(f, crfp_params_declares(p, "undeclared") == 0);
    CHECK(f, crfp_params_declares(p, NULL) == 0 && crfp_params_declares(NULL, "name") == 0);

    /* An empty declaration rejects everything. */
    crfp_params *e = crfp_params_new(NULL, 0);
    CHECK(f, e != NULL);
    CHECK(f, crfp_params_set(h, e, "stage 'y'", "a", "1", NULL) == CRFP_EINVAL);
    CHECK_MSG(f, h, "stage 'y': unknown parameter 'a' (known: none)");
    CHECK(f, !crfp_params_iter(e, 0, &n, &v));
    crfp_params_free(e);
    crfp_params_free(NULL);

    crfp_params_free(p);
    crfp_host_free(h);
    if (fails)
        fprintf(stderr, "%d check(s) failed\n", fails);
    return fails ? 1 : 0;
}
