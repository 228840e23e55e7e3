/* crfpipe — typed plugin parameters.
 *
 * A plugin declares the parameters it accepts (crfp_param_spec).  The host
 * parses the user's name=value strings (pipeline XML or CLI flags) against
 * that declaration and hands the plugin a validated crfp_params: unknown
 * names and values of the wrong type are rejected before the plugin runs,
 * with an error naming the stage.
 */
#ifndef CRFPIPE_PARAMS_H
#define CRFPIPE_PARAMS_H

#include <stdint.h>
#include "crfpipe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum crfp_param_type {
    CRFP_PARAM_STRING = 0,
    CRFP_PARAM_INT,    /* 64-bit signed, decimal */
    CRFP_PARAM_FLOAT,  /* double; strtod syntax */
    CRFP_PARAM_BOOL,   /* true/false, yes/no, 1/0, on/off */
    CRFP_PARAM_PATH    /* string naming a file; relative to the pipeline file */
} crfp_param_type;

typedef struct crfp_param_spec {
    const char *name;      /* [a-z][a-z0-9-]* */
    crfp_param_type type;
    const char *defval;    /* textual default; NULL = no default (unset) */
    const char *help;      /* one line */
} crfp_param_spec;

/* A validated parameter set.  Opaque. */
typedef struct crfp_params crfp_params;

/* Create an empty set bound to `specs` (an array of `n`, not copied: it must
 * outlive the set, which it does for descriptors in loaded modules).
 * NULL on allocation failure.  The caller owns the set.  specs NULL makes
 * a set that declares nothing.  crfp_params_free accepts NULL. */
crfp_params *crfp_params_new(const crfp_param_spec *specs, size_t n);
void crfp_params_free(crfp_params *p);

/* Set `name` from text.  Errors (message recorded in host, naming `where`,
 * e.g. "pipeline.xml:12: stage 'lbfgs'"): CRFP_EINVAL for an unknown name
 * or a value that does not parse as the declared type.  For PATH values a
 * relative path is resolved against `basedir` when it is not NULL.  Also
 * CRFP_EINVAL for p, name or value NULL (`where` NULL reads "parameters"),
 * and CRFP_ENOMEM.  The value is copied; on error the old one stays. */
crfp_status crfp_params_set(crfp_host *host, crfp_params *p, const char *where,
                            const char *name, const char *value, const char *basedir);

/* Whether the user set `name` explicitly (not from the default).  0 for an
 * undeclared name or a NULL set (not a misuse). */
int crfp_params_isset(const crfp_params *p, const char *name);

/* Typed getters.  They return the user value, else the declared default
 * (the string getter: NULL when the parameter has no value and no default).
 * Strings are owned by the set.  Asking for an undeclared name, or reading a
 * parameter as another type than declared (the string getter may read any
 * type as text), is a misuse: the getter returns NULL / 0 and the set
 * records it, and the host fails the stage with that message when the
 * plugin call returns (crfp_params_misuse).  A user value is valid until
 * the parameter is set again or the set freed; a default is the
 * declaration's.  A default that does not parse as its type reads as 0 (no
 * misuse recorded).  A NULL set gives NULL / 0. */
const char *crfp_params_str(const crfp_params *p, const char *name);
int64_t crfp_params_int(const crfp_params *p, const char *name);
double crfp_params_float(const crfp_params *p, const char *name);
int crfp_params_bool(const crfp_params *p, const char *name);

/* Iterate the parameters that have a value (set or default), in declaration
 * order, for provenance records: returns 0 past the end.  *name and *value
 * (either pointer may be NULL) as for the getters; a NULL set gives 0. */
int crfp_params_iter(const crfp_params *p, size_t i, const char **name, const char **value);

/* The declaration behind the set: the specs given to crfp_params_new (not
 * a copy), *n (may be NULL) entries; NULL and 0 for a NULL set. */
const crfp_param_spec *crfp_params_specs(const crfp_params *p, size_t *n);

/* Whether the set declares `name` (1) or not (0).  A trainer asks before
 * reading a common training parameter (max-iter, rho2): the host merges those
 * into its set, a caller driving the trainer directly may not.  0 for a
 * NULL set or name. */
int crfp_params_declares(const crfp_params *p, const char *name);

/* The first misuse a getter recorded ("asked for parameter 'x', which it
 * never declared"), or NULL.  Owned by the set, valid until it is freed
 * (later misuses do not change it); NULL for a NULL set. */
const char *crfp_params_misuse(const crfp_params *p);

#ifdef __cplusplus
}
#endif
#endif
