/* crfpipe._crfpipe — the CPython extension under the crfpipe package.
 *
 * Two things live here, the rest (python-crfsuite's Trainer and Tagger, a
 * scikit-learn style estimator) is Python in crfpipe/__init__.py:
 *
 *   Model(path, columns=None)   a loaded model with its feature extractor:
 *       tag(xseqs, threads=0)   labels of many sequences at once, decoded on
 *                               the host's thread team without the GIL
 *       nbest(xseq, k), marginals(xseq), probability(xseq, yseq), dump()
 *   run_stages(stages, ...)     build a pipeline from (plugin, params) pairs
 *                               and stream bytes or a file through it (also
 *                               training), without the GIL
 *   run_pipeline(path, ...)     the same from a pipeline file
 *   stage_params(plugin)        the parameters a stage of that plugin takes
 *   plugins()                   every plugin on the search path
 *
 * Every crfpipe failure becomes crfpipe.Error (MemoryError for
 * CRFP_ENOMEM) carrying crfpipe's own message and the status in .status.
 *
 * Threads: each Model and each run has a host of its own, since a host's
 * error message belongs to one caller at a time.  A Model's host, team and
 * extractor are used by one call at a time (a mutex taken after the GIL is
 * released, so that a thread waiting for it never holds the GIL); the
 * Python objects a call reads are copied into C memory before the GIL is
 * released, so other Python threads may change them meanwhile.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crfpipe/crfpipe.h"

static PyObject *Error; /* crfpipe.Error */

/* --- errors --------------------------------------------------------------- */

/* Raise crfpipe.Error(message) with .status and .code set, MemoryError for
 * CRFP_ENOMEM; returns NULL. */
static PyObject *raise_status(crfp_status st, const char *msg)
{
    if (st == CRFP_ENOMEM)
        return PyErr_NoMemory();
    const char *m = msg && *msg ? msg : crfp_status_str(st);
    /* messages quote file contents, which need not be UTF-8 */
    PyObject *text = PyUnicode_DecodeUTF8(m, (Py_ssize_t)strlen(m), "replace");
    PyObject *e = text ? PyObject_CallFunctionObjArgs(Error, text, NULL) : NULL;
    Py_XDECREF(text);
    if (!e)
        return NULL;
    PyObject *s = PyUnicode_FromString(crfp_status_str(st)), *c = PyLong_FromLong((long)st);
    if (s && c && PyObject_SetAttrString(e, "status", s) == 0 &&
        PyObject_SetAttrString(e, "code", c) == 0)
        PyErr_SetObject(Error, e);
    Py_XDECREF(s);
    Py_XDECREF(c);
    Py_DECREF(e);
    return NULL;
}

static PyObject *raise_host(crfp_host *host, crfp_status st)
{
    return raise_status(st, crfp_errmsg(host));
}

/* A log sink that drops everything: models report through return values,
 * and a library must not write to the application's stderr. */
static void quiet_log(void *ud, crfp_log_level level, const char *msg)
{
    (void)ud;
    (void)level;
    (void)msg;
}

/* --- sequences from Python ------------------------------------------------- */

/* Strings are copied into one growing arena and referred to by offset
 * until the conversion is over (the arena moves as it grows). */
typedef struct arena {
    char *p;
    size_t n, cap;
} arena;

static int arena_put(arena *a, const char *s, size_t n, size_t *off)
{
    if (a->n + n + 1 > a->cap) {
        size_t nc = a->cap ? a->cap : 1 << 16;
        while (nc < a->n + n + 1)
            nc *= 2;
        char *np = realloc(a->p, nc);
        if (!np)
            return -1;
        a->p = np;
        a->cap = nc;
    }
    memcpy(a->p + a->n, s, n);
    a->p[a->n + n] = '\0';
    *off = a->n;
    a->n += n + 1;
    return 0;
}

#define NO_CELL SIZE_MAX

typedef struct sentence {
    size_t ntok, ncols;
    size_t cell0;  /* its ntok*ncols cells start here in batch.cells */
    size_t name0;  /* its ncols column names start here in batch.names */
    size_t out0;   /* its labels start here in the output */
} sentence;

/* Many sentences as token tables (crfp_tokseq), in C memory. */
typedef struct batch {
    sentence *s;
    size_t ns, caps;
    size_t *cells, ncells, capcells;  /* arena offsets, NO_CELL for none */
    size_t *names, nnames, capnames;
    arena a;
    const char **cellp, **namep;      /* the offsets made pointers */
    size_t ntok;
} batch;

static void batch_free(batch *b)
{
    free(b->s);
    free(b->cells);
    free(b->names);
    free(b->a.p);
    free(b->cellp);
    free(b->namep);
    memset(b, 0, sizeof *b);
}

static int grow(void **p, size_t *cap, size_t need, size_t elt)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 64;
    while (nc < need)
        nc *= 2;
    void *np = realloc(*p, nc * elt);
    if (!np)
        return -1;
    *p = np;
    *cap = nc;
    return 0;
}

/* How a model's tokens are given (see Model). */
typedef struct model_shape {
    int attributes;          /* the features plugin is "attributes" */
    char **columns;          /* names of tuple positions (template models) */
    size_t ncolumns;
    char *attrcol;           /* the attributes plugin's column */
} model_shape;

static int put_name(batch *b, const char *s, size_t n)
{
    if (grow((void **)&b->names, &b->capnames, b->nnames + 1, sizeof *b->names) != 0)
        return -1;
    return arena_put(&b->a, s, n, &b->names[b->nnames++]);
}

/* Append one attribute, escaped for the attributes plugin (space-separated
 * cell, "\s" "\t" "\n" "\r" "\\" and "\_" for a lone underscore). */
static int put_attr(arena *tmp, const char *s, size_t n)
{
    if (n == 0)
        return 0;
    char small[512];
    size_t need = 2 * n + 2, k = 0;
    char *buf = need <= sizeof small ? small : malloc(need);
    if (!buf)
        return -1;
    if (tmp->n > 0)
        buf[k++] = ' ';
    if (n == 1 && s[0] == '_') {
        buf[k++] = '\\';
        buf[k++] = '_';
    }
    for (size_t i = 0; i < n && !(n == 1 && s[0] == '_'); i++) {
        char c = s[i];
        const char *e = c == ' ' ? "\\s" : c == '\t' ? "\\t" : c == '\n' ? "\\n" : c == '\r' ? "\\r"
                      : c == '\\' ? "\\\\" : NULL;
        if (e) {
            buf[k++] = e[0];
            buf[k++] = e[1];
        } else {
            buf[k++] = c;
        }
    }
    /* the attribute is appended without a terminator: tmp collects a cell */
    if (grow((void **)&tmp->p, &tmp->cap, tmp->n + k + 1, 1) != 0) {
        if (buf != small)
            free(buf);
        return -1;
    }
    memcpy(tmp->p + tmp->n, buf, k);
    tmp->n += k;
    tmp->p[tmp->n] = '\0';
    if (buf != small)
        free(buf);
    return 0;
}

/* The UTF-8 of str o and its length in *n; NULL with TypeError when o is not
 * a str, ValueError when it cannot be encoded (a lone surrogate) or holds a
 * NUL character: the C side reads NUL-terminated strings, so "a\0b" would be
 * taken for "a" without a word.  The buffer belongs to o. */
static const char *utf8_of(PyObject *o, Py_ssize_t *n, const char *what)
{
    if (!PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s must be str, not %.80s", what, Py_TYPE(o)->tp_name);
        return NULL;
    }
    const char *s = PyUnicode_AsUTF8AndSize(o, n);
    if (s && memchr(s, '\0', (size_t)*n)) {
        PyErr_Format(PyExc_ValueError, "%s %R holds a NUL character", what, o);
        return NULL;
    }
    return s;
}

/* Nesting deeper than this is taken for a mistake (or a dict holding
 * itself), not flattened. */
#define ATTR_MAX_DEPTH 16

/* The attribute prefix + s (pn + n bytes) appended to tmp; sep, when not
 * NUL, goes between them. */
static int put_attr2(arena *tmp, const char *prefix, size_t pn, char sep, const char *s,
                     size_t n)
{
    if (pn == 0 && sep == '\0') {
        if (put_attr(tmp, s, n) == 0)
            return 0;
        PyErr_NoMemory();
        return -1;
    }
    size_t k = pn + (sep != '\0') + n;
    char small[256];
    char *kv = k <= sizeof small ? small : malloc(k);
    if (!kv) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(kv, prefix, pn);
    if (sep != '\0')
        kv[pn] = sep;
    memcpy(kv + pn + (sep != '\0'), s, n);
    int r = put_attr(tmp, kv, k);
    if (kv != small)
        free(kv);
    if (r != 0 && !PyErr_Occurred())
        PyErr_NoMemory();
    return r;
}

static int attrs_of(PyObject *v, const char *prefix, size_t pn, arena *tmp, int depth);

/* The attributes of dict d, every name after prefix (pn bytes, "" at the
 * top): {"word": "the"} is "word=the", {"upper": True} (a weight of 1)
 * "upper", a weight of 0 nothing, and a nested dict, list, tuple or set
 * {"suffix": {...}} / {"tags": [...]} its own attributes, each after
 * "suffix:" / "tags:" as python-crfsuite flattens them. */
static int dict_attrs(PyObject *d, const char *prefix, size_t pn, arena *tmp, int depth)
{
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (PyDict_Next(d, &pos, &k, &v)) {
        Py_ssize_t kn;
        const char *ks = utf8_of(k, &kn, "an attribute name");
        if (!ks)
            return -1;
        /* name: prefix + key */
        size_t nn = pn + (size_t)kn;
        char small[256];
        char *name = nn + 1 <= sizeof small ? small : malloc(nn + 1);
        if (!name) {
            PyErr_NoMemory();
            return -1;
        }
        memcpy(name, prefix, pn);
        memcpy(name + pn, ks, (size_t)kn);
        name[nn] = '\0';
        int r = 0;
        if (PyUnicode_Check(v)) {
            Py_ssize_t vn;
            const char *vs = utf8_of(v, &vn, "an attribute value");
            r = vs ? put_attr2(tmp, name, nn, '=', vs, (size_t)vn) : -1;
        } else if (PyDict_Check(v) || PyList_Check(v) || PyTuple_Check(v) || PyAnySet_Check(v)) {
            name[nn] = ':';
            r = attrs_of(v, name, nn + 1, tmp, depth + 1);
        } else {
            double w = PyFloat_AsDouble(v);
            if (w == -1.0 && PyErr_Occurred()) {
                PyErr_Clear();
                PyErr_Format(PyExc_TypeError, "attribute '%s': value must be str, a number, "
                             "or a dict, list or set of attributes, not %.80s", name,
                             Py_TYPE(v)->tp_name);
                r = -1;
            } else if (!isfinite(w)) {
                /* PyErr_Format has no %g */
                char ws[32];
                snprintf(ws, sizeof ws, "%g", w);
                PyErr_Format(PyExc_ValueError, "attribute '%s' has weight %s: a weight must "
                             "be a finite number", name, ws);
                r = -1;
            } else {
                /* the name, then the value the features are scaled by
                 * (CRFsuite's attribute weight) as the attributes plugin
                 * reads it, "\*W"; %.17g gives back the very double.  0
                 * (False) stays, scoring nothing, as in python-crfsuite,
                 * where the labels are seen with it. */
                r = put_attr2(tmp, name, nn, '\0', "", 0);
                if (r == 0 && w != 1.0 && nn > 0) {
                    char ws[40];
                    int wn = snprintf(ws, sizeof ws, "\\*%.17g", w);
                    if (grow((void **)&tmp->p, &tmp->cap, tmp->n + (size_t)wn + 1, 1) != 0) {
                        PyErr_NoMemory();
                        r = -1;
                    } else {
                        memcpy(tmp->p + tmp->n, ws, (size_t)wn + 1);
                        tmp->n += (size_t)wn;
                    }
                }
            }
        }
        if (name != small)
            free(name);
        if (r != 0)
            return -1;
    }
    return 0;
}

/* The attributes of v after prefix: a str is one, a dict as dict_attrs, a
 * list, tuple or set of str (or of dicts, lists...) each of its items'. */
static int attrs_of(PyObject *v, const char *prefix, size_t pn, arena *tmp, int depth)
{
    if (depth > ATTR_MAX_DEPTH) {
        PyErr_Format(PyExc_ValueError, "attributes nested more than %d deep (a dict that "
                     "holds itself?)", ATTR_MAX_DEPTH);
        return -1;
    }
    if (PyUnicode_Check(v)) {
        Py_ssize_t n;
        const char *s = utf8_of(v, &n, "an attribute");
        return s ? put_attr2(tmp, prefix, pn, '\0', s, (size_t)n) : -1;
    }
    if (PyDict_Check(v))
        return dict_attrs(v, prefix, pn, tmp, depth);
    /* a set is iterated into a list first: its order does not matter, since
     * a token's attributes are a set */
    PyObject *f = PyAnySet_Check(v) ? PySequence_List(v)
                                    : PySequence_Fast(v, "a token must be a str, a sequence "
                                                         "of str or a dict");
    if (!f)
        return -1;
    Py_ssize_t m = PySequence_Fast_GET_SIZE(f);
    PyObject **it = PySequence_Fast_ITEMS(f);
    int r = 0;
    for (Py_ssize_t i = 0; i < m && r == 0; i++) {
        if (!PyUnicode_Check(it[i]) && !PyDict_Check(it[i]) && !PyList_Check(it[i]) &&
            !PyTuple_Check(it[i]) && !PyAnySet_Check(it[i])) {
            PyErr_Format(PyExc_TypeError, "an attribute must be str, not %.80s",
                         Py_TYPE(it[i])->tp_name);
            r = -1;
        } else {
            r = attrs_of(it[i], prefix, pn, tmp, depth + 1);
        }
    }
    Py_DECREF(f);
    return r;
}

/* One token's attributes (a str, a sequence of str, or a dict of
 * name -> str / weight / nested attributes) as one cell in tmp; the same
 * conversion serves training (attr_cell) and tagging. */
static int token_attrs(PyObject *tok, arena *tmp)
{
    tmp->n = 0;
    return attrs_of(tok, "", 0, tmp, 0);
}

/* Append one sentence (a sequence of tokens) to b.  Template models take
 * tokens as str (one column), sequences of str (positional columns, named
 * by the model) or dicts (named columns); attribute models as attributes
 * (token_attrs).  Returns 0, or -1 with a Python exception set. */
static int add_sentence(batch *b, const model_shape *sh, PyObject *xseq, size_t idx,
                        arena *tmp)
{
    PyObject *f = PySequence_Fast(xseq, "a sequence must be a list of tokens");
    if (!f)
        return -1;
    Py_ssize_t T = PySequence_Fast_GET_SIZE(f);
    PyObject **toks = PySequence_Fast_ITEMS(f);
    int rc = -1;
    if (grow((void **)&b->s, &b->caps, b->ns + 1, sizeof *b->s) != 0) {
        PyErr_NoMemory();
        goto out;
    }
    sentence *s = &b->s[b->ns];
    s->ntok = (size_t)T;
    s->out0 = b->ntok;
    s->cell0 = b->ncells;
    s->name0 = b->nnames;
    size_t ncols = 0;
    int dicts = 0;
    if (sh->attributes) {
        ncols = 1;
        if (put_name(b, sh->attrcol, strlen(sh->attrcol)) != 0)
            goto nomem;
    } else if (T > 0 && PyDict_Check(toks[0]) && sh->ncolumns > 0) {
        /* the model resolved its column names to positions when it was
         * trained (its "#!columns" line, or the caller's columns): put
         * each value at its name's position */
        dicts = 2;
        ncols = sh->ncolumns;
        for (size_t c = 0; c < ncols; c++)
            if (put_name(b, sh->columns[c], strlen(sh->columns[c])) != 0)
                goto nomem;
    } else if (T > 0 && PyDict_Check(toks[0])) {
        /* named columns: every key of the sentence, in order of appearance */
        dicts = 1;
        for (Py_ssize_t t = 0; t < T; t++) {
            if (!PyDict_Check(toks[t])) {
                PyErr_Format(PyExc_TypeError, "sequence %zu mixes dict tokens with others", idx);
                goto out;
            }
            PyObject *k, *v;
            Py_ssize_t pos = 0;
            while (PyDict_Next(toks[t], &pos, &k, &v)) {
                Py_ssize_t kn;
                const char *ks = utf8_of(k, &kn, "a column name");
                if (!ks)
                    goto out;
                size_t c = 0;
                while (c < ncols && strcmp(b->a.p + b->names[s->name0 + c], ks) != 0)
                    c++;
                if (c == ncols) {
                    if (put_name(b, ks, (size_t)kn) != 0)
                        goto nomem;
                    ncols++;
                }
            }
        }
    } else {
        for (Py_ssize_t t = 0; t < T; t++) {
            size_t w = PyUnicode_Check(toks[t]) ? 1 : 0;
            if (!w) {
                Py_ssize_t len = PySequence_Size(toks[t]);
                if (len < 0 || PyDict_Check(toks[t])) {
                    PyErr_Clear();
                    PyErr_Format(PyExc_TypeError, "sequence %zu, token %zd: a token is a str, a "
                                 "sequence of str or a dict, not %.80s", idx, t,
                                 Py_TYPE(toks[t])->tp_name);
                    goto out;
                }
                w = (size_t)len;
            }
            if (w > ncols)
                ncols = w;
        }
        for (size_t c = 0; c < ncols; c++) {
            char num[24];
            const char *nm = c < sh->ncolumns ? sh->columns[c] : num;
            if (c >= sh->ncolumns)
                snprintf(num, sizeof num, "%zu", c);
            if (put_name(b, nm, strlen(nm)) != 0)
                goto nomem;
        }
    }
    s->ncols = ncols;
    if (grow((void **)&b->cells, &b->capcells, b->ncells + (size_t)T * ncols, sizeof *b->cells) != 0)
        goto nomem;
    for (Py_ssize_t t = 0; t < T; t++) {
        size_t *row = b->cells + b->ncells + (size_t)t * ncols;
        for (size_t c = 0; c < ncols; c++)
            row[c] = NO_CELL;
        PyObject *tok = toks[t];
        Py_ssize_t n;
        const char *v;
        if (sh->attributes) {
            if (token_attrs(tok, tmp) != 0)
                goto out;
            if (arena_put(&b->a, tmp->n ? tmp->p : "_", tmp->n ? tmp->n : 1, &row[0]) != 0)
                goto nomem;
        } else if (dicts) {
            PyObject *k, *val;
            Py_ssize_t pos = 0;
            size_t known = 0;
            if (!PyDict_Check(tok)) {
                PyErr_Format(PyExc_TypeError, "sequence %zu mixes dict tokens with others", idx);
                goto out;
            }
            while (PyDict_Next(tok, &pos, &k, &val)) {
                const char *ks = utf8_of(k, &n, "a column name");
                if (!ks)
                    goto out;
                size_t c = 0;
                while (c < ncols && strcmp(b->a.p + b->names[s->name0 + c], ks) != 0)
                    c++;
                if (c == ncols)
                    continue; /* a column the model does not read (the gold label...) */
                if (!(v = utf8_of(val, &n, "a column value")))
                    goto out;
                if (arena_put(&b->a, v, (size_t)n, &row[c]) != 0)
                    goto nomem;
                known++;
            }
            if (!known) {
                PyErr_Format(PyExc_ValueError, "sequence %zu, token %zd has none of the "
                             "model's columns (%s%s)", idx, t, sh->columns[0],
                             sh->ncolumns > 1 ? ", ..." : "");
                goto out;
            }
        } else if (PyUnicode_Check(tok)) {
            if (!(v = utf8_of(tok, &n, "a column value")) ||
                arena_put(&b->a, v, (size_t)n, &row[0]))
                goto v_or_nomem;
        } else {
            PyObject *tf = PySequence_Fast(tok, "a token must be a sequence of str");
            if (!tf)
                goto out;
            Py_ssize_t m = PySequence_Fast_GET_SIZE(tf);
            PyObject **it = PySequence_Fast_ITEMS(tf);
            for (Py_ssize_t c = 0; c < m; c++) {
                if (!(v = utf8_of(it[c], &n, "a column value"))) {
                    Py_DECREF(tf);
                    goto out;
                }
                if (arena_put(&b->a, v, (size_t)n, &row[c]) != 0) {
                    Py_DECREF(tf);
                    goto nomem;
                }
            }
            Py_DECREF(tf);
        }
    }
    b->ncells += (size_t)T * ncols;
    b->ntok += (size_t)T;
    b->ns++;
    rc = 0;
    goto out;
v_or_nomem:
    if (PyErr_Occurred())
        goto out;
nomem:
    PyErr_NoMemory();
out:
    Py_DECREF(f);
    return rc;
}

/* Turn the offsets into pointers, once every string is in the arena. */
static int batch_seal(batch *b)
{
    b->cellp = malloc((b->ncells + 1) * sizeof *b->cellp);
    b->namep = malloc((b->nnames + 1) * sizeof *b->namep);
    if (!b->cellp || !b->namep) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < b->ncells; i++)
        b->cellp[i] = b->cells[i] == NO_CELL ? NULL : b->a.p + b->cells[i];
    for (size_t i = 0; i < b->nnames; i++)
        b->namep[i] = b->a.p + b->names[i];
    return 0;
}

static crfp_tokseq tokseq_of(const batch *b, size_t i)
{
    const sentence *s = &b->s[i];
    crfp_tokseq q = {s->ntok, s->ncols, b->namep + s->name0, b->cellp + s->cell0};
    return q;
}

/* --- Model ------------------------------------------------------------------ */

typedef struct Model {
    PyObject_HEAD
    crfp_host *host;
    crfp_crf *crf;
    const crfp_features_vtable *fv;
    void *ex;
    char *path;
    model_shape shape;
    PyObject *labels;   /* tuple of str, by label id */
    pthread_mutex_t mu; /* one call at a time on host, team and extractor */
    int mu_ready;
} Model;

static void shape_free(model_shape *sh)
{
    for (size_t i = 0; i < sh->ncolumns; i++)
        free(sh->columns[i]);
    free(sh->columns);
    free(sh->attrcol);
    memset(sh, 0, sizeof *sh);
}

static void Model_dealloc(Model *m)
{
    if (m->ex)
        m->fv->free(m->ex);
    crfp_crf_free(m->crf);
    crfp_host_free(m->host);
    shape_free(&m->shape);
    free(m->path);
    Py_XDECREF(m->labels);
    if (m->mu_ready)
        pthread_mutex_destroy(&m->mu);
    Py_TYPE(m)->tp_free((PyObject *)m);
}

/* Split a list of names at spaces, tabs or commas into sh->columns. */
static int set_columns(model_shape *sh, const char *s, size_t len)
{
    for (size_t i = 0; i < len;) {
        while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == ','))
            i++;
        size_t j = i;
        while (j < len && s[j] != ' ' && s[j] != '\t' && s[j] != ',')
            j++;
        if (j > i) {
            char **nc = realloc(sh->columns, (sh->ncolumns + 1) * sizeof *nc);
            if (!nc)
                return -1;
            sh->columns = nc;
            if (!(nc[sh->ncolumns] = strndup(s + i, j - i)))
                return -1;
            sh->ncolumns++;
        }
        i = j;
    }
    return 0;
}

/* A crfpipe model, or a CRFsuite one (python-crfsuite's and
 * sklearn-crfsuite's files open as they are), a Wapiti or a CRF++ one,
 * read as `crfpipe model import` reads it.  Called without the GIL. */
static crfp_status load_model(crfp_host *host, const char *path, crfp_crf **crf)
{
    static const char config[] = "columns=attrs\nbigram=bias\n";
    unsigned char head[12];
    /* a FIFO is not waited for: crfp_crf_load then refuses it */
    size_t got = crfp_crf_file_head(path, head, sizeof head);
    int cs = crfp_crf_is_crfsuite(head, got), wap = !cs && crfp_crf_is_wapiti(head, got);
    int pp = !cs && !wap && crfp_crf_is_crfpp(head, got);
    crfp_status st;
    /* Wapiti's and CRF++'s models: their patterns in the templates plugin's
     * dialects, as `crfpipe model import` keeps them */
    static const crfp_wapiti_features wapiti = {
        .patterns = "templates",
        .patterns_head = "#!columns\n# the patterns of a Wapiti model\n#!wapiti\n",
        .patterns_me_head = "#!columns\n# the patterns of a Wapiti model\n#!wapiti-me\n",
        .raw = "attributes",
        .raw_config = "columns=attrs\nbigram=wapiti\n",
        .me_config = "columns=attrs\nbigram=wapiti-me\n",
    };
    if (wap)
        st = crfp_crf_import_wapiti(host, path, &wapiti, crf);
    else if (pp)
        st = crfp_crf_import_crfpp(host, path, "templates",
                                   "#!columns\n# the template of a CRF++ model\n#!crf++\n", crf);
    else if (cs)
        st = crfp_crf_import_crfsuite(host, path, "attributes", config, sizeof config - 1, crf);
    else
        return crfp_crf_load(host, path, crf);
    const char *trainer = wap ? "wapiti" : pp ? "crf++" : "crfsuite";
    if (st == CRFP_OK && ((st = crfp_crf_set_meta(*crf, "label", "label")) != CRFP_OK ||
                          (st = crfp_crf_set_meta(*crf, "trainer", trainer)) != CRFP_OK)) {
        crfp_crf_free(*crf);
        *crf = NULL;
        st = crfp_error(host, st, "out of memory");
    }
    return st;
}

static int Model_init(Model *m, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"path", "columns", "plugin_path", NULL};
    PyObject *pathobj, *columns = Py_None;
    const char *plugin_path = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|Oz", kwlist, PyUnicode_FSConverter, &pathobj,
                                     &columns, &plugin_path))
        return -1;
    if (m->host) {
        Py_DECREF(pathobj);
        PyErr_SetString(PyExc_RuntimeError, "Model is already initialised");
        return -1;
    }
    m->path = strdup(PyBytes_AS_STRING(pathobj));
    Py_DECREF(pathobj);
    if (!m->path || pthread_mutex_init(&m->mu, NULL) != 0) {
        PyErr_NoMemory();
        return -1;
    }
    m->mu_ready = 1;
    if (!(m->host = crfp_host_new())) {
        PyErr_NoMemory();
        return -1;
    }
    crfp_host_set_log(m->host, quiet_log, NULL);
    crfp_status st;
    if (plugin_path && (st = crfp_host_add_plugin_dir(m->host, plugin_path)) != CRFP_OK) {
        raise_host(m->host, st);
        return -1;
    }
    Py_BEGIN_ALLOW_THREADS
    st = load_model(m->host, m->path, &m->crf);
    Py_END_ALLOW_THREADS
    if (st != CRFP_OK) {
        raise_host(m->host, st);
        return -1;
    }
    const char *fname = crfp_crf_features_plugin(m->crf);
    const crfp_plugin *fp;
    if ((st = crfp_host_load_kind(m->host, fname, CRFP_KIND_FEATURES, &fp)) != CRFP_OK) {
        crfp_error_wrap(m->host, st, "%s: features plugin of the model", m->path);
        raise_host(m->host, st);
        return -1;
    }
    m->fv = fp->desc->vtable;
    size_t cfglen;
    const char *cfg = crfp_crf_features_config(m->crf, &cfglen);
    if ((st = m->fv->load(m->host, cfg, cfglen, m->path, &m->ex)) != CRFP_OK) {
        m->ex = NULL;
        raise_host(m->host, st);
        return -1;
    }
    /* how tuple tokens are named: the caller's names, else those the
     * template was trained with (its "#!columns" line), else positions */
    model_shape *sh = &m->shape;
    int fail = 0;
    if (strcmp(fname, "attributes") == 0) {
        sh->attributes = 1;
        const char *c = cfglen > 8 && strncmp(cfg, "columns=", 8) == 0 ? cfg + 8 : "attrs";
        size_t cl = strcspn(c, ",\n");
        fail = !(sh->attrcol = strndup(c, cl));
    } else if (columns != Py_None) {
        PyObject *f = PySequence_Fast(columns, "columns must be a sequence of str");
        if (!f)
            return -1;
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(f) && !fail; i++) {
            Py_ssize_t n;
            const char *s = utf8_of(PySequence_Fast_GET_ITEM(f, i), &n, "a column name");
            if (!s) {
                Py_DECREF(f);
                return -1;
            }
            char **nc = realloc(sh->columns, (sh->ncolumns + 1) * sizeof *nc);
            fail = !nc || !(nc[sh->ncolumns] = strndup(s, (size_t)n));
            if (nc) {
                sh->columns = nc;
                sh->ncolumns += !fail;
            }
        }
        Py_DECREF(f);
    } else if (cfglen > 10 && strncmp(cfg, "#!columns ", 10) == 0) {
        const char *nl = memchr(cfg, '\n', cfglen);
        fail = set_columns(sh, cfg + 10, (size_t)((nl ? nl : cfg + cfglen) - (cfg + 10))) != 0;
    }
    if (fail) {
        PyErr_NoMemory();
        return -1;
    }
    uint32_t Y = crfp_crf_nlabels(m->crf);
    if (!(m->labels = PyTuple_New((Py_ssize_t)Y)))
        return -1;
    for (uint32_t y = 0; y < Y; y++) {
        PyObject *s = PyUnicode_FromString(crfp_crf_label(m->crf, y));
        if (!s)
            return -1;
        PyTuple_SET_ITEM(m->labels, y, s);
    }
    return 0;
}

static int ready(Model *m)
{
    if (!m->crf || !m->ex) {
        PyErr_SetString(PyExc_RuntimeError, "Model is not initialised");
        return 0;
    }
    return 1;
}

/* Decoding work shared by the team. */
typedef struct tagjob {
    Model *m;
    const batch *b;
    uint32_t *out;
    atomic_size_t next;
    atomic_int failed;
    atomic_int feat_failed;
    int nth;
} tagjob;

static void tag_worker(tagjob *j)
{
    Model *m = j->m;
    crfp_obsseq *obs = crfp_obsseq_new();
    crfp_seqbuf *qb = crfp_seqbuf_new();
    crfp_infer *inf = crfp_infer_new(m->crf);
    const double *theta = crfp_crf_weights_const(m->crf);
    if (!obs || !qb || !inf) {
        atomic_store(&j->failed, 1);
        goto done;
    }
    /* fixed weights: transitions cached across sentences (a failure only
     * loses the cache) */
    (void)crfp_infer_fix_theta(inf, theta);
    for (;;) {
        size_t i = atomic_fetch_add(&j->next, 1);
        if (i >= j->b->ns || atomic_load(&j->failed))
            break;
        const sentence *s = &j->b->s[i];
        if (s->ntok == 0)
            continue;
        crfp_tokseq q = tokseq_of(j->b, i);
        const crfp_seq *seq;
        if (m->fv->extract(m->ex, &q, obs) != CRFP_OK) {
            /* the extractor said why, on the host */
            atomic_store(&j->feat_failed, 1);
            atomic_store(&j->failed, 1);
            break;
        }
        if (crfp_seqbuf_fill(qb, m->crf, obs, &seq) != CRFP_OK ||
            crfp_viterbi(inf, seq, theta, j->out + s->out0, NULL) != CRFP_OK) {
            atomic_store(&j->failed, 1);
            break;
        }
    }
done:
    crfp_obsseq_free(obs);
    crfp_seqbuf_free(qb);
    crfp_infer_free(inf);
}

static void tag_member(void *arg, int id, int n)
{
    (void)n;
    tagjob *j = arg;
    if (id < j->nth)
        tag_worker(j);
}

/* Convert xseqs (a sequence of sequences) into b; -1 with an exception. */
static int convert(Model *m, PyObject *xseqs, batch *b)
{
    PyObject *f = PySequence_Fast(xseqs, "expected a list of sequences");
    if (!f)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(f);
    PyObject **it = PySequence_Fast_ITEMS(f);
    arena tmp = {0};
    int rc = 0;
    for (Py_ssize_t i = 0; i < n && rc == 0; i++)
        rc = add_sentence(b, &m->shape, it[i], (size_t)i, &tmp);
    free(tmp.p);
    Py_DECREF(f);
    return rc == 0 ? batch_seal(b) : -1;
}

/* Message of a failed decoding, copied while the mutex is held. */
static void failure_message(Model *m, const tagjob *j, crfp_status *st, char *msg, size_t len)
{
    if (atomic_load(&j->feat_failed) && crfp_errcode(m->host) != CRFP_OK) {
        *st = crfp_errcode(m->host);
        snprintf(msg, len, "%s", crfp_errmsg(m->host));
    } else {
        *st = CRFP_ENOMEM;
        snprintf(msg, len, "out of memory while decoding");
    }
}

static PyObject *Model_tag(Model *m, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"xseqs", "threads", NULL};
    PyObject *xseqs;
    int threads = 0;
    if (!ready(m) || !PyArg_ParseTupleAndKeywords(args, kw, "O|i", kwlist, &xseqs, &threads))
        return NULL;
    batch b = {0};
    if (convert(m, xseqs, &b) != 0) {
        batch_free(&b);
        return NULL;
    }
    uint32_t *out = malloc((b.ntok + 1) * sizeof *out);
    if (!out) {
        batch_free(&b);
        return PyErr_NoMemory();
    }
    tagjob j = {.m = m, .b = &b, .out = out};
    atomic_init(&j.next, 0);
    atomic_init(&j.failed, 0);
    atomic_init(&j.feat_failed, 0);
    crfp_status st = CRFP_OK;
    char msg[1024] = "";
    Py_BEGIN_ALLOW_THREADS
    pthread_mutex_lock(&m->mu);
    crfp_error_clear(m->host);
    crfp_host_set_threads(m->host, threads);
    int nth = crfp_host_threads(m->host);
    /* a thread is worth it for some dozens of sentences */
    if ((size_t)nth > b.ns / 16 + 1)
        nth = (int)(b.ns / 16 + 1);
    j.nth = nth;
    if (nth > 1)
        crfp_team_run(crfp_host_team(m->host), tag_member, &j);
    else
        tag_worker(&j);
    if (atomic_load(&j.failed))
        failure_message(m, &j, &st, msg, sizeof msg);
    pthread_mutex_unlock(&m->mu);
    Py_END_ALLOW_THREADS
    PyObject *res = NULL;
    if (st != CRFP_OK) {
        raise_status(st, msg);
        goto out;
    }
    if (!(res = PyList_New((Py_ssize_t)b.ns)))
        goto out;
    for (size_t i = 0; i < b.ns; i++) {
        const sentence *s = &b.s[i];
        PyObject *l = PyList_New((Py_ssize_t)s->ntok);
        if (!l) {
            Py_CLEAR(res);
            goto out;
        }
        for (size_t t = 0; t < s->ntok; t++) {
            PyObject *lab = PyTuple_GET_ITEM(m->labels, out[s->out0 + t]);
            Py_INCREF(lab);
            PyList_SET_ITEM(l, (Py_ssize_t)t, lab);
        }
        PyList_SET_ITEM(res, (Py_ssize_t)i, l);
    }
out:
    free(out);
    batch_free(&b);
    return res;
}

/* One sequence turned into the engine's crfp_seq, for the single-sequence
 * methods (n-best, marginals, probability); the caller holds m->mu and has
 * released the GIL.  *seq lives in qb. */
static crfp_status one_seq(Model *m, const batch *b, crfp_obsseq *obs, crfp_seqbuf *qb,
                           const crfp_seq **seq)
{
    crfp_tokseq q = tokseq_of(b, 0);
    crfp_status st = m->fv->extract(m->ex, &q, obs);
    if (st != CRFP_OK)
        return crfp_errcode(m->host) != CRFP_OK ? crfp_errcode(m->host) : st;
    return crfp_seqbuf_fill(qb, m->crf, obs, seq);
}

/* What the single-sequence methods compute. */
enum { ONE_NBEST, ONE_MARGINALS, ONE_PROB };

typedef struct onecall {
    int what;
    size_t k;          /* NBEST */
    const uint32_t *y; /* PROB: the labelling */
    uint32_t *ys;      /* NBEST: k*T labels */
    double *vals;      /* NBEST: k probabilities; MARGINALS: T*Y */
    size_t found;
    double prob;
} onecall;

static crfp_status run_one(Model *m, const batch *b, onecall *c, char *msg, size_t len)
{
    crfp_obsseq *obs = crfp_obsseq_new();
    crfp_seqbuf *qb = crfp_seqbuf_new();
    crfp_infer *inf = crfp_infer_new(m->crf);
    crfp_status st = obs && qb && inf ? CRFP_OK : CRFP_ENOMEM;
    const double *theta = crfp_crf_weights_const(m->crf);
    const crfp_seq *seq = NULL;
    double logz = 0;
    pthread_mutex_lock(&m->mu);
    crfp_error_clear(m->host);
    if (st == CRFP_OK)
        st = one_seq(m, b, obs, qb, &seq);
    if (st == CRFP_OK && c->what != ONE_MARGINALS)
        st = crfp_forward_backward(inf, seq, theta, &logz, NULL);
    if (st == CRFP_OK && c->what == ONE_NBEST) {
        st = crfp_nbest(inf, seq, theta, c->k, c->ys, c->vals, &c->found);
        for (size_t i = 0; st == CRFP_OK && i < c->found; i++)
            c->vals[i] = exp(c->vals[i] - logz);
    } else if (st == CRFP_OK && c->what == ONE_MARGINALS) {
        st = crfp_forward_backward(inf, seq, theta, &logz, c->vals);
    } else if (st == CRFP_OK) {
        c->prob = exp(crfp_path_score(m->crf, seq, theta, c->y) - logz);
    }
    if (st == CRFP_EINVAL && seq && !*crfp_errmsg(m->host))
        snprintf(msg, len, "the model's scores are too large for probabilities (weights of "
                 "about 700 or more); tag() decodes it, probabilities cannot be had");
    else if (st != CRFP_OK)
        snprintf(msg, len, "%s", *crfp_errmsg(m->host) ? crfp_errmsg(m->host)
                                                        : crfp_status_str(st));
    pthread_mutex_unlock(&m->mu);
    crfp_obsseq_free(obs);
    crfp_seqbuf_free(qb);
    crfp_infer_free(inf);
    return st;
}

/* Convert a single xseq into b (as a batch of one).  -1 with an exception,
 * b then freed. */
static int convert_one(Model *m, PyObject *xseq, batch *b)
{
    arena tmp = {0};
    int rc = add_sentence(b, &m->shape, xseq, 0, &tmp);
    free(tmp.p);
    if (rc == 0)
        rc = batch_seal(b);
    if (rc != 0)
        batch_free(b);
    return rc;
}

static PyObject *Model_nbest(Model *m, PyObject *args)
{
    PyObject *xseq;
    Py_ssize_t k;
    if (!ready(m) || !PyArg_ParseTuple(args, "On", &xseq, &k))
        return NULL;
    if (k < 1 || k > 1000) {
        PyErr_SetString(PyExc_ValueError, "k must be between 1 and 1000");
        return NULL;
    }
    batch b = {0};
    if (convert_one(m, xseq, &b) != 0)
        return NULL;
    size_t T = b.s[0].ntok;
    if (T == 0) {
        batch_free(&b);
        return PyList_New(0);
    }
    onecall c = {.what = ONE_NBEST, .k = (size_t)k};
    c.ys = malloc((size_t)k * T * sizeof *c.ys);
    c.vals = malloc((size_t)k * sizeof *c.vals);
    PyObject *res = NULL;
    char msg[1024] = "";
    crfp_status st = CRFP_ENOMEM;
    if (c.ys && c.vals) {
        Py_BEGIN_ALLOW_THREADS
        st = run_one(m, &b, &c, msg, sizeof msg);
        Py_END_ALLOW_THREADS
    }
    if (st != CRFP_OK) {
        raise_status(st, msg);
        goto out;
    }
    if (!(res = PyList_New((Py_ssize_t)c.found)))
        goto out;
    for (size_t i = 0; i < c.found; i++) {
        PyObject *l = PyList_New((Py_ssize_t)T);
        if (!l) {
            Py_CLEAR(res);
            goto out;
        }
        for (size_t t = 0; t < T; t++) {
            PyObject *lab = PyTuple_GET_ITEM(m->labels, c.ys[i * T + t]);
            Py_INCREF(lab);
            PyList_SET_ITEM(l, (Py_ssize_t)t, lab);
        }
        PyObject *pair = Py_BuildValue("(Nd)", l, c.vals[i]);
        if (!pair) {
            Py_CLEAR(res);
            goto out;
        }
        PyList_SET_ITEM(res, (Py_ssize_t)i, pair);
    }
out:
    free(c.ys);
    free(c.vals);
    batch_free(&b);
    return res;
}

static PyObject *Model_marginals(Model *m, PyObject *args)
{
    PyObject *xseq;
    if (!ready(m) || !PyArg_ParseTuple(args, "O", &xseq))
        return NULL;
    batch b = {0};
    if (convert_one(m, xseq, &b) != 0)
        return NULL;
    size_t T = b.s[0].ntok, Y = crfp_crf_nlabels(m->crf);
    onecall c = {.what = ONE_MARGINALS};
    c.vals = malloc((T * Y + 1) * sizeof *c.vals);
    PyObject *res = NULL;
    char msg[1024] = "";
    crfp_status st = c.vals ? CRFP_OK : CRFP_ENOMEM;
    if (st == CRFP_OK && T > 0) {
        Py_BEGIN_ALLOW_THREADS
        st = run_one(m, &b, &c, msg, sizeof msg);
        Py_END_ALLOW_THREADS
    }
    if (st != CRFP_OK) {
        raise_status(st, msg);
        goto out;
    }
    if (!(res = PyList_New((Py_ssize_t)T)))
        goto out;
    for (size_t t = 0; t < T; t++) {
        PyObject *row = PyTuple_New((Py_ssize_t)Y);
        if (!row) {
            Py_CLEAR(res);
            goto out;
        }
        for (size_t y = 0; y < Y; y++) {
            PyObject *v = PyFloat_FromDouble(c.vals[t * Y + y]);
            if (!v) {
                Py_DECREF(row);
                Py_CLEAR(res);
                goto out;
            }
            PyTuple_SET_ITEM(row, (Py_ssize_t)y, v);
        }
        PyList_SET_ITEM(res, (Py_ssize_t)t, row);
    }
out:
    free(c.vals);
    batch_free(&b);
    return res;
}

/* The observations the model's extractor makes of one sequence: for each
 * token (name, kind, value) with kind "U", "B" or "*" (what
 * crfpipe features writes). */
static PyObject *Model_features(Model *m, PyObject *args)
{
    PyObject *xseq;
    if (!ready(m) || !PyArg_ParseTuple(args, "O", &xseq))
        return NULL;
    batch b = {0};
    if (convert_one(m, xseq, &b) != 0)
        return NULL;
    size_t T = b.s[0].ntok;
    crfp_obsseq *obs = crfp_obsseq_new();
    PyObject *res = NULL;
    crfp_status st = obs ? CRFP_OK : CRFP_ENOMEM;
    char msg[1024] = "";
    if (st == CRFP_OK && T > 0) {
        /* the extraction, and reading what it made, under the model's
         * mutex: its host records the extractor's messages */
        crfp_tokseq q = tokseq_of(&b, 0);
        Py_BEGIN_ALLOW_THREADS
        pthread_mutex_lock(&m->mu);
        crfp_error_clear(m->host);
        st = m->fv->extract(m->ex, &q, obs);
        if (st != CRFP_OK)
            snprintf(msg, sizeof msg, "%s", *crfp_errmsg(m->host) ? crfp_errmsg(m->host)
                                                                 : crfp_status_str(st));
        pthread_mutex_unlock(&m->mu);
        Py_END_ALLOW_THREADS
    }
    if (st != CRFP_OK) {
        raise_status(st, msg);
        goto out;
    }
    if (!(res = PyList_New((Py_ssize_t)T)))
        goto out;
    for (size_t t = 0; t < T; t++) {
        const char *const *strs;
        const unsigned char *flags;
        size_t n;
        crfp_obsseq_get(obs, t, &strs, &flags, &n);
        const double *val = crfp_obsseq_values(obs, t);
        PyObject *row = PyList_New((Py_ssize_t)n);
        if (!row) {
            Py_CLEAR(res);
            goto out;
        }
        PyList_SET_ITEM(res, (Py_ssize_t)t, row);
        for (size_t k = 0; k < n; k++) {
            unsigned f = flags[k] & (CRFP_OBS_UNIGRAM | CRFP_OBS_BIGRAM);
            const char *kind = f == CRFP_OBS_UNIGRAM ? "U" : f == CRFP_OBS_BIGRAM ? "B" : "*";
            PyObject *e = Py_BuildValue("(ssd)", strs[k], kind, val ? val[k] : 1.0);
            if (!e) {
                /* an observation that is not UTF-8 (a template over bytes) */
                Py_CLEAR(res);
                goto out;
            }
            PyList_SET_ITEM(row, (Py_ssize_t)k, e);
        }
    }
out:
    crfp_obsseq_free(obs);
    batch_free(&b);
    return res;
}

static PyObject *Model_probability(Model *m, PyObject *args)
{
    PyObject *xseq, *yseq;
    if (!ready(m) || !PyArg_ParseTuple(args, "OO", &xseq, &yseq))
        return NULL;
    PyObject *f = PySequence_Fast(yseq, "yseq must be a sequence of labels");
    if (!f)
        return NULL;
    batch b = {0};
    if (convert_one(m, xseq, &b) != 0) {
        Py_DECREF(f);
        return NULL;
    }
    size_t T = b.s[0].ntok;
    if ((size_t)PySequence_Fast_GET_SIZE(f) != T) {
        PyErr_Format(PyExc_ValueError, "yseq has %zd labels for %zu tokens",
                     PySequence_Fast_GET_SIZE(f), T);
        Py_DECREF(f);
        batch_free(&b);
        return NULL;
    }
    uint32_t *y = malloc((T + 1) * sizeof *y);
    PyObject *res = NULL;
    if (!y) {
        PyErr_NoMemory();
        goto out;
    }
    for (size_t t = 0; t < T; t++) {
        const char *l = utf8_of(PySequence_Fast_GET_ITEM(f, (Py_ssize_t)t), &(Py_ssize_t){0},
                                "a label");
        if (!l)
            goto out;
        int64_t id = crfp_crf_label_id(m->crf, l);
        if (id < 0) {
            PyErr_Format(PyExc_ValueError, "unknown label '%s' (the model's labels: see "
                         "Model.labels)", l);
            goto out;
        }
        y[t] = (uint32_t)id;
    }
    if (T == 0) {
        res = PyFloat_FromDouble(1.0);
        goto out;
    }
    onecall c = {.what = ONE_PROB, .y = y};
    char msg[1024] = "";
    crfp_status st;
    Py_BEGIN_ALLOW_THREADS
    st = run_one(m, &b, &c, msg, sizeof msg);
    Py_END_ALLOW_THREADS
    res = st == CRFP_OK ? PyFloat_FromDouble(c.prob) : raise_status(st, msg);
out:
    free(y);
    Py_DECREF(f);
    batch_free(&b);
    return res;
}

static PyObject *Model_dump(Model *m, PyObject *noargs)
{
    (void)noargs;
    if (!ready(m))
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return PyErr_NoMemory();
    crfp_status st;
    char msg[1024] = "";
    Py_BEGIN_ALLOW_THREADS
    pthread_mutex_lock(&m->mu);
    st = crfp_crf_dump(m->host, m->crf, f);
    if (st != CRFP_OK)
        snprintf(msg, sizeof msg, "%s", crfp_errmsg(m->host));
    pthread_mutex_unlock(&m->mu);
    Py_END_ALLOW_THREADS
    if (fclose(f) != 0 && st == CRFP_OK)
        st = CRFP_ENOMEM;
    PyObject *res = st == CRFP_OK ? PyUnicode_DecodeUTF8(buf, (Py_ssize_t)len, "surrogateescape")
                                  : raise_status(st, msg);
    free(buf);
    return res;
}

/* Model.export_crfsuite(path): the model as a CRFsuite model file
 * (crfp_crf_export_crfsuite; an attribute model without start weights),
 * for python-crfsuite and sklearn-crfsuite.  Raises crfpipe.Error with the
 * reason when the model does not fit CRFsuite's format. */
static PyObject *Model_export_crfsuite(Model *m, PyObject *args)
{
    PyObject *pathobj;
    if (!ready(m) || !PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &pathobj))
        return NULL;
    const char *path = PyBytes_AS_STRING(pathobj);
    crfp_status st;
    char msg[1024] = "";
    Py_BEGIN_ALLOW_THREADS
    pthread_mutex_lock(&m->mu);
    /* the plugin and bigram observation whose model CRFsuite's is, as the
     * program's model export names them */
    st = crfp_crf_export_crfsuite(m->host, m->crf, "attributes", "B", path);
    if (st == CRFP_EINVAL)
        crfp_error_prefix(m->host, "%s", m->path);
    if (st != CRFP_OK)
        snprintf(msg, sizeof msg, "%s", crfp_errmsg(m->host));
    pthread_mutex_unlock(&m->mu);
    Py_END_ALLOW_THREADS
    Py_DECREF(pathobj);
    if (st != CRFP_OK)
        return raise_status(st, msg);
    Py_RETURN_NONE;
}

/* Model.weights(kind): the non-zero weights of one kind as a dict, built
 * in one walk (crfp_crf_foreach_weight) without the dump's text.  The
 * model is read-only once loaded, so no lock is needed; the GIL is held
 * throughout, since every weight becomes Python objects. */
typedef struct weights_walk {
    Model *m;
    int bigram;
    PyObject *dict, *start;
    uint32_t obs_id;   /* the observation whose str is in obs */
    PyObject *obs;
} weights_walk;

static int weights_one(void *ud, const crfp_crf_weight *w)
{
    weights_walk *k = ud;
    if (w->bigram != k->bigram)
        return 0;
    if (!k->obs || k->obs_id != w->obs) {
        size_t len;
        const char *s = crfp_crf_obs(k->m->crf, w->obs, &len);
        Py_XDECREF(k->obs);
        k->obs = PyUnicode_DecodeUTF8(s, (Py_ssize_t)len, "surrogateescape");
        k->obs_id = w->obs;
        if (!k->obs)
            return 1;
    }
    PyObject *label = PyTuple_GET_ITEM(k->m->labels, (Py_ssize_t)w->label);
    PyObject *key = w->bigram
                        ? PyTuple_Pack(3, k->obs,
                                       w->prev == crfp_crf_nlabels(k->m->crf)
                                           ? k->start
                                           : PyTuple_GET_ITEM(k->m->labels, (Py_ssize_t)w->prev),
                                       label)
                        : PyTuple_Pack(2, k->obs, label);
    PyObject *v = key ? PyFloat_FromDouble(w->value) : NULL;
    int bad = !v || PyDict_SetItem(k->dict, key, v) != 0;
    Py_XDECREF(key);
    Py_XDECREF(v);
    return bad;
}

static PyObject *Model_weights(Model *m, PyObject *args)
{
    const char *kind;
    if (!PyArg_ParseTuple(args, "s", &kind) || !ready(m))
        return NULL;
    if (strcmp(kind, "U") != 0 && strcmp(kind, "B") != 0) {
        PyErr_Format(PyExc_ValueError, "kind must be 'U' or 'B', not '%s'", kind);
        return NULL;
    }
    weights_walk k = {m, kind[0] == 'B', PyDict_New(), PyUnicode_FromString("<start>"), 0, NULL};
    if (k.dict && k.start && crfp_crf_foreach_weight(m->crf, weights_one, &k) != 0)
        Py_CLEAR(k.dict);
    Py_XDECREF(k.obs);
    Py_XDECREF(k.start);
    if (!k.start)
        Py_CLEAR(k.dict);
    return k.dict;
}

static PyObject *Model_get_labels(Model *m, void *c)
{
    (void)c;
    if (!ready(m))
        return NULL;
    Py_INCREF(m->labels);
    return m->labels;
}

static PyObject *Model_get_columns(Model *m, void *c)
{
    (void)c;
    if (!ready(m))
        return NULL;
    if (m->shape.attributes)
        return Py_BuildValue("(s)", m->shape.attrcol);
    PyObject *t = PyTuple_New((Py_ssize_t)m->shape.ncolumns);
    for (size_t i = 0; t && i < m->shape.ncolumns; i++) {
        PyObject *s = PyUnicode_FromString(m->shape.columns[i]);
        if (!s) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, (Py_ssize_t)i, s);
    }
    return t;
}

static PyObject *Model_get_info(Model *m, void *c)
{
    (void)c;
    if (!ready(m))
        return NULL;
    PyObject *meta = PyDict_New();
    static const char *const keys[] = {"label", "trainer", "rho1", "rho2", "iterations"};
    for (size_t i = 0; meta && i < sizeof keys / sizeof *keys; i++) {
        const char *v = crfp_crf_meta(m->crf, keys[i]);
        PyObject *s = v ? PyUnicode_FromString(v) : NULL;
        if (v && (!s || PyDict_SetItemString(meta, keys[i], s) != 0))
            Py_CLEAR(meta);
        Py_XDECREF(s);
    }
    if (!meta)
        return NULL;
    size_t cl;
    const char *cfg = crfp_crf_features_config(m->crf, &cl);
    return Py_BuildValue("{s:N,s:s,s:s#,s:n,s:n,s:s}", "meta", meta, "features",
                         crfp_crf_features_plugin(m->crf), "features_config", cfg,
                         (Py_ssize_t)cl, "parameters", (Py_ssize_t)crfp_crf_nparams(m->crf),
                         "active", (Py_ssize_t)crfp_crf_active(m->crf), "path", m->path);
}

static PyMethodDef Model_methods[] = {
    {"tag", (PyCFunction)(void (*)(void))Model_tag, METH_VARARGS | METH_KEYWORDS,
     "tag(xseqs, threads=0) -> list of label lists.\n\nDecodes every sequence (Viterbi) on "
     "`threads` threads (0: all cores), without the GIL."},
    {"nbest", (PyCFunction)Model_nbest, METH_VARARGS,
     "nbest(xseq, k) -> [(labels, probability), ...], best first."},
    {"marginals", (PyCFunction)Model_marginals, METH_VARARGS,
     "marginals(xseq) -> list of tuples: P(y_t = label) in the order of Model.labels."},
    {"probability", (PyCFunction)Model_probability, METH_VARARGS,
     "probability(xseq, yseq) -> P(yseq | xseq)."},
    {"features", (PyCFunction)Model_features, METH_VARARGS,
     "features(xseq) -> for each token a list of (observation, kind, value), kind 'U' "
     "(label weights), 'B' (label-pair weights) or '*' (both): what the model's features "
     "plugin extracts, as crfpipe features writes it."},
    {"dump", (PyCFunction)Model_dump, METH_NOARGS,
     "dump() -> str: labels, features configuration, metadata and non-zero weights."},
    {"export_crfsuite", (PyCFunction)Model_export_crfsuite, METH_VARARGS,
     "export_crfsuite(path): write the model as a CRFsuite model file (an attribute model "
     "without start weights: all_possible_transitions=False)."},
    {"weights", (PyCFunction)Model_weights, METH_VARARGS,
     "weights(kind) -> dict of the non-zero weights of one kind: 'U' {(observation, label): "
     "weight}, 'B' {(observation, previous, label): weight}, previous '<start>' at the first "
     "token."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Model_getset[] = {
    {"labels", (getter)Model_get_labels, NULL, "the labels, by id", NULL},
    {"columns", (getter)Model_get_columns, NULL,
     "names given to the positions of tuple tokens", NULL},
    {"info", (getter)Model_get_info, NULL, "metadata, features plugin and configuration, sizes",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject ModelType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "crfpipe._crfpipe.Model",
    .tp_basicsize = sizeof(Model),
    .tp_dealloc = (destructor)Model_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Model(path, columns=None, plugin_path=None): a CRF model and its feature "
              "extractor, loaded once and shared by every call.",
    .tp_methods = Model_methods,
    .tp_getset = Model_getset,
    .tp_init = (initproc)Model_init,
    .tp_new = PyType_GenericNew,
};

/* --- pipelines --------------------------------------------------------------- */

/* What a run's log sink and training observer reach. */
typedef struct runctx {
    crfp_host *host;
    PyObject *log;         /* callable(level, message) or NULL */
    PyObject *iterations;  /* list receiving a dict per iteration, or a callable
                            * called with it, or NULL */
    PyObject *folds;       /* list receiving a dict per cross-validation fold,
                            * or NULL */
    PyObject *exc_type, *exc_value, *exc_tb; /* an exception raised in a callback */
} runctx;

/* Called with the GIL held: keep the first exception and stop the run. */
static void callback_failed(runctx *c)
{
    if (!c->exc_type)
        PyErr_Fetch(&c->exc_type, &c->exc_value, &c->exc_tb);
    else
        PyErr_Clear();
    crfp_host_interrupt(c->host);
}

static void run_log(void *ud, crfp_log_level level, const char *msg)
{
    runctx *c = ud;
    PyGILState_STATE g = PyGILState_Ensure();
    if (!c->exc_type) {
        if (c->log) {
            PyObject *r = PyObject_CallFunction(c->log, "is", (int)level, msg);
            if (!r)
                callback_failed(c);
            Py_XDECREF(r);
        }
        /* Ctrl-C while training: Python's handler only sets a flag, which
         * this thread, holding the GIL for a moment, can look at */
        if (!c->exc_type && PyErr_CheckSignals() != 0)
            callback_failed(c);
    }
    PyGILState_Release(g);
}

static void run_observe(void *ud, const crfp_train_iter *it)
{
    runctx *c = ud;
    PyGILState_STATE g = PyGILState_Ensure();
    if (!c->exc_type && c->iterations) {
        PyObject *d = Py_BuildValue(
            "{s:s,s:n,s:i,s:d,s:d,s:i,s:n,s:n,s:d,s:d,s:d,s:d}", "trainer", it->trainer,
            "stage", (Py_ssize_t)it->stage, "iteration", it->iter, "objective", it->objective,
            "step", it->step, "evaluations", it->nevals, "active", (Py_ssize_t)it->active,
            "parameters", (Py_ssize_t)it->nparams, "dev_error", it->dev_error,
            "dev_sequence_error", it->dev_seq_error, "train_error", it->train_error, "seconds",
            it->seconds);
        int bad = !d;
        if (d && PyList_Check(c->iterations)) {
            bad = PyList_Append(c->iterations, d) != 0;
        } else if (d) {
            PyObject *r = PyObject_CallFunctionObjArgs(c->iterations, d, NULL);
            bad = !r;
            Py_XDECREF(r);
        }
        if (bad)
            callback_failed(c);
        Py_XDECREF(d);
    }
    if (!c->exc_type && PyErr_CheckSignals() != 0)
        callback_failed(c);
    PyGILState_Release(g);
}

static void run_fold(void *ud, const crfp_train_fold *f)
{
    runctx *c = ud;
    PyGILState_STATE g = PyGILState_Ensure();
    if (!c->exc_type && c->folds) {
        /* the chunk figures only where the labels are chunk tags */
        PyObject *d = Py_BuildValue(
            "{s:n,s:n,s:n,s:n,s:i,s:d,s:n,s:n,s:n,s:n,s:d,s:d,s:O}", "fold", (Py_ssize_t)f->index,
            "train_sentences", (Py_ssize_t)f->train_seqs, "heldout_sentences",
            (Py_ssize_t)f->heldout_seqs, "heldout_tokens", (Py_ssize_t)f->heldout_tokens,
            "iterations", f->iterations, "objective", f->objective, "active",
            (Py_ssize_t)f->active, "parameters", (Py_ssize_t)f->nparams, "token_errors",
            (Py_ssize_t)f->token_errors, "sequence_errors", (Py_ssize_t)f->seq_errors,
            "seconds", f->seconds, "cpu_seconds", f->cpu_seconds, "interrupted",
            f->interrupted ? Py_True : Py_False);
        int bad = !d;
        if (d && f->chunked) {
            PyObject *ch = Py_BuildValue("{s:n,s:n,s:n}", "correct", (Py_ssize_t)f->chunks_correct,
                                         "expected", (Py_ssize_t)f->chunks_gold, "found",
                                         (Py_ssize_t)f->chunks_guessed);
            bad = !ch || PyDict_SetItemString(d, "chunks", ch) != 0;
            Py_XDECREF(ch);
        }
        if (!bad)
            bad = PyList_Append(c->folds, d) != 0;
        if (bad)
            callback_failed(c);
        Py_XDECREF(d);
    }
    PyGILState_Release(g);
}

/* Parameters given as a dict or a sequence of (name, value) pairs, their
 * values str, int, float or bool (written as crfpipe reads them). */
typedef struct kvlist {
    char **names, **values;
    size_t n;
} kvlist;

static void kv_free(kvlist *k)
{
    for (size_t i = 0; i < k->n; i++) {
        free(k->names[i]);
        free(k->values[i]);
    }
    free(k->names);
    free(k->values);
    memset(k, 0, sizeof *k);
}

static char *value_text(PyObject *v)
{
    if (PyBool_Check(v))
        return strdup(v == Py_True ? "true" : "false");
    PyObject *s = PyUnicode_Check(v) ? (Py_INCREF(v), v)
                  : PyFloat_Check(v) ? PyObject_Repr(v) : PyObject_Str(v);
    if (!s)
        return NULL;
    Py_ssize_t n;
    const char *u = utf8_of(s, &n, "a parameter value");
    char *r = u ? strdup(u) : NULL;
    if (u && !r)
        PyErr_NoMemory();
    Py_DECREF(s);
    return r;
}

static int kv_from(PyObject *o, kvlist *k)
{
    PyObject *items = PyDict_Check(o) ? PyDict_Items(o) : (Py_INCREF(o), o);
    if (!items)
        return -1;
    PyObject *f = PySequence_Fast(items, "parameters must be a dict or (name, value) pairs");
    Py_DECREF(items);
    if (!f)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(f);
    k->names = calloc((size_t)n + 1, sizeof *k->names);
    k->values = calloc((size_t)n + 1, sizeof *k->values);
    int rc = k->names && k->values ? 0 : (PyErr_NoMemory(), -1);
    for (Py_ssize_t i = 0; i < n && rc == 0; i++) {
        PyObject *name, *value;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(f, i), "OO;a parameter is (name, value)",
                              &name, &value)) {
            rc = -1;
            break;
        }
        const char *nm = utf8_of(name, &(Py_ssize_t){0}, "a parameter name");
        if (!nm || !(k->names[i] = strdup(nm)) || !(k->values[i] = value_text(value))) {
            if (nm && !PyErr_Occurred())
                PyErr_NoMemory();
            rc = -1;
            k->n = (size_t)i + 1;
            break;
        }
        k->n = (size_t)i + 1;
    }
    Py_DECREF(f);
    return rc;
}

/* Run p from `input` (bytes, or a file name when is_path) into memory.
 * Returns the output as bytes (b"" for a training pipeline), or NULL with
 * an exception. */
static PyObject *run_built_many(runctx *c, crfp_pipeline *p, PyObject *inputs, int is_path);
static int open_input(PyObject *item, int is_path, crfp_stream *in, PyObject **pathb,
                      Py_buffer *view, int *have_view);

static PyObject *run_built(runctx *c, crfp_pipeline *p, PyObject *input, int is_path)
{
    if (PyList_Check(input) || PyTuple_Check(input))
        return run_built_many(c, p, input, is_path);
    crfp_host *host = c->host;
    crfp_stream in = {NULL, "<input>"}, out = {NULL, "<output>"};
    char *obuf = NULL;
    size_t olen = 0;
    PyObject *pathb = NULL, *res = NULL;
    Py_buffer view = {0};
    int have_view = 0;
    if (open_input(input, is_path, &in, &pathb, &view, &have_view) != 0)
        return NULL;
    int training = crfp_pipeline_is_training(p);
    if (!training && !(out.fp = open_memstream(&obuf, &olen))) {
        res = PyErr_NoMemory();
        goto done;
    }
    crfp_status st;
    crfp_host_set_log(host, run_log, c);
    crfp_host_set_train_observer(host, run_observe, c);
    crfp_host_set_fold_observer(host, run_fold, c);
    /* the input buffer stays valid: the caller's object is referenced by the
     * argument tuple for the whole call */
    Py_BEGIN_ALLOW_THREADS
    st = crfp_pipeline_run(p, &in, training ? NULL : &out);
    Py_END_ALLOW_THREADS
    crfp_host_set_log(host, quiet_log, NULL);
    crfp_host_set_train_observer(host, NULL, NULL);
    crfp_host_set_fold_observer(host, NULL, NULL);
    if (out.fp && fclose(out.fp) != 0 && st == CRFP_OK)
        st = crfp_error(host, CRFP_ENOMEM, "out of memory collecting the output");
    out.fp = NULL;
    if (c->exc_type) {
        /* a callback raised (KeyboardInterrupt included): that is the error */
        PyErr_Restore(c->exc_type, c->exc_value, c->exc_tb);
        c->exc_type = c->exc_value = c->exc_tb = NULL;
    } else if (st != CRFP_OK) {
        raise_host(host, st);
    } else {
        res = PyBytes_FromStringAndSize(obuf ? obuf : "", (Py_ssize_t)olen);
    }
done:
    if (out.fp)
        fclose(out.fp);
    free(obuf);
    fclose(in.fp);
    if (have_view)
        PyBuffer_Release(&view);
    Py_XDECREF(pathb);
    return res;
}

/* Open one input of a run: a path (is_path) or a bytes-like object whose
 * buffer *view holds.  Returns 0, or -1 with a Python exception set. */
static int open_input(PyObject *item, int is_path, crfp_stream *in, PyObject **pathb,
                      Py_buffer *view, int *have_view)
{
    *pathb = NULL;
    *have_view = 0;
    in->name = "<input>";
    if (is_path) {
        if (!PyUnicode_FSConverter(item, pathb))
            return -1;
        in->name = PyBytes_AS_STRING(*pathb);
        if (!(in->fp = fopen(in->name, "rb"))) {
            PyErr_SetFromErrnoWithFilename(PyExc_OSError, in->name);
            Py_CLEAR(*pathb);
            return -1;
        }
        return 0;
    }
    if (PyUnicode_Check(item)) {
        PyErr_SetString(PyExc_TypeError, "input must be bytes (encode the str as UTF-8)");
        return -1;
    }
    if (PyObject_GetBuffer(item, view, PyBUF_SIMPLE) != 0)
        return -1;
    *have_view = 1;
    /* fmemopen wants a non-empty buffer */
    in->fp = view->len > 0 ? fmemopen(view->buf, (size_t)view->len, "rb") : fopen("/dev/null", "rb");
    if (!in->fp) {
        PyBuffer_Release(view);
        *have_view = 0;
        PyErr_SetFromErrno(PyExc_OSError);
        return -1;
    }
    return 0;
}

/* Several inputs through one run of `p` (crfp_pipeline_begin, a feed per
 * input, end): the stages and their models are opened once.  Returns a
 * list with each input's output (bytes), or None for a training pipeline,
 * which trains on all of them. */
static PyObject *run_built_many(runctx *c, crfp_pipeline *p, PyObject *inputs, int is_path)
{
    crfp_host *host = c->host;
    PyObject *items = PySequence_Fast(inputs, "inputs must be a list");
    if (!items)
        return NULL;
    int training = crfp_pipeline_is_training(p);
    Py_ssize_t n = PySequence_Fast_GET_SIZE(items);
    PyObject *res = training ? NULL : PyList_New(n);
    if (!training && !res) {
        Py_DECREF(items);
        return NULL;
    }
    crfp_status st;
    crfp_host_set_log(host, run_log, c);
    crfp_host_set_train_observer(host, run_observe, c);
    Py_BEGIN_ALLOW_THREADS
    st = crfp_pipeline_begin(p, NULL);
    Py_END_ALLOW_THREADS
    int failed = st != CRFP_OK;
    for (Py_ssize_t i = 0; !failed && i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(items, i), *pathb;
        Py_INCREF(item); /* the list may change while the GIL is released */
        crfp_stream in = {NULL, NULL}, out = {NULL, "<output>"};
        Py_buffer view = {0};
        int have_view;
        char *obuf = NULL;
        size_t olen = 0;
        if (open_input(item, is_path, &in, &pathb, &view, &have_view) != 0) {
            Py_DECREF(item);
            failed = 2; /* a Python exception is set */
            break;
        }
        if (!training && !(out.fp = open_memstream(&obuf, &olen))) {
            st = crfp_error(host, CRFP_ENOMEM, "out of memory");
        } else {
            Py_BEGIN_ALLOW_THREADS
            st = crfp_pipeline_feed(p, &in, training ? NULL : &out);
            Py_END_ALLOW_THREADS
        }
        if (out.fp && fclose(out.fp) != 0 && st == CRFP_OK)
            st = crfp_error(host, CRFP_ENOMEM, "out of memory collecting the output");
        fclose(in.fp);
        if (have_view)
            PyBuffer_Release(&view);
        Py_XDECREF(pathb);
        Py_DECREF(item);
        if (st == CRFP_OK && !training) {
            PyObject *b = PyBytes_FromStringAndSize(obuf ? obuf : "", (Py_ssize_t)olen);
            if (!b)
                failed = 2;
            else
                PyList_SET_ITEM(res, i, b);
        }
        free(obuf);
        if (st != CRFP_OK)
            failed = 1;
    }
    crfp_status est;
    Py_BEGIN_ALLOW_THREADS
    est = crfp_pipeline_end(p, !failed);
    Py_END_ALLOW_THREADS
    if (!failed && est != CRFP_OK) {
        st = est;
        failed = 1;
    }
    crfp_host_set_log(host, quiet_log, NULL);
    crfp_host_set_train_observer(host, NULL, NULL);
    Py_DECREF(items);
    if (c->exc_type) {
        /* a callback raised (KeyboardInterrupt included): that is the error */
        if (failed == 2)
            PyErr_Clear();
        PyErr_Restore(c->exc_type, c->exc_value, c->exc_tb);
        c->exc_type = c->exc_value = c->exc_tb = NULL;
        failed = 2;
    } else if (failed == 1) {
        raise_host(host, st);
    }
    if (failed) {
        Py_XDECREF(res);
        return NULL;
    }
    if (training)
        Py_RETURN_NONE;
    return res;
}

static int ctx_init(runctx *c, PyObject *log, PyObject *iterations, const char *plugin_path)
{
    memset(c, 0, sizeof *c);
    if (log != Py_None && !PyCallable_Check(log)) {
        PyErr_SetString(PyExc_TypeError, "log must be callable");
        return -1;
    }
    if (iterations != Py_None && !PyList_Check(iterations) && !PyCallable_Check(iterations)) {
        PyErr_SetString(PyExc_TypeError, "iterations must be a list or a callable");
        return -1;
    }
    c->log = log == Py_None ? NULL : log;
    c->iterations = iterations == Py_None ? NULL : iterations;
    if (!(c->host = crfp_host_new())) {
        PyErr_NoMemory();
        return -1;
    }
    crfp_host_set_log(c->host, quiet_log, NULL);
    crfp_status st;
    if (plugin_path && (st = crfp_host_add_plugin_dir(c->host, plugin_path)) != CRFP_OK) {
        raise_host(c->host, st);
        crfp_host_free(c->host);
        return -1;
    }
    return 0;
}

static void ctx_free(runctx *c)
{
    Py_XDECREF(c->exc_type);
    Py_XDECREF(c->exc_value);
    Py_XDECREF(c->exc_tb);
    crfp_host_free(c->host);
}

static PyObject *run_stages(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"stages", "input", "is_path", "basedir", "log", "iterations",
                             "plugin_path", "threads", "folds", NULL};
    PyObject *stages, *input, *log = Py_None, *iterations = Py_None, *folds = Py_None;
    int is_path = 0, threads = 0;
    const char *basedir = NULL, *plugin_path = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|pzOOziO", kwlist, &stages, &input, &is_path,
                                     &basedir, &log, &iterations, &plugin_path, &threads, &folds))
        return NULL;
    if (folds != Py_None && !PyList_Check(folds)) {
        PyErr_SetString(PyExc_TypeError, "folds must be a list");
        return NULL;
    }
    runctx c;
    if (ctx_init(&c, log, iterations, plugin_path) != 0)
        return NULL;
    c.folds = folds == Py_None ? NULL : folds;
    if (threads > 0)
        crfp_host_set_threads(c.host, threads);
    PyObject *res = NULL, *f = NULL;
    crfp_pipeline *p = crfp_pipeline_new(c.host);
    if (!p) {
        PyErr_NoMemory();
        goto out;
    }
    if (!(f = PySequence_Fast(stages, "stages must be a list of (plugin, params)")))
        goto out;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(f); i++) {
        const char *plugin;
        PyObject *params;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(f, i), "sO;a stage is (plugin, params)",
                              &plugin, &params))
            goto out;
        kvlist k = {0};
        if (kv_from(params, &k) != 0) {
            kv_free(&k);
            goto out;
        }
        char where[64];
        snprintf(where, sizeof where, "stage %zd", i + 1);
        crfp_status st = crfp_pipeline_add(p, plugin, where, (const char *const *)k.names,
                                           (const char *const *)k.values, k.n, basedir);
        kv_free(&k);
        if (st != CRFP_OK) {
            raise_host(c.host, st);
            goto out;
        }
    }
    res = run_built(&c, p, input, is_path);
out:
    Py_XDECREF(f);
    crfp_pipeline_free(p);
    ctx_free(&c);
    return res;
}

static PyObject *run_pipeline(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"path", "input", "is_path", "log", "iterations", "plugin_path",
                             "threads", NULL};
    PyObject *pathobj, *input, *log = Py_None, *iterations = Py_None;
    int is_path = 0, threads = 0;
    const char *plugin_path = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O|pOOzi", kwlist, PyUnicode_FSConverter,
                                     &pathobj, &input, &is_path, &log, &iterations, &plugin_path,
                                     &threads))
        return NULL;
    runctx c;
    if (ctx_init(&c, log, iterations, plugin_path) != 0) {
        Py_DECREF(pathobj);
        return NULL;
    }
    if (threads > 0)
        crfp_host_set_threads(c.host, threads);
    crfp_pipeline *p = NULL;
    PyObject *res = NULL;
    crfp_status st = crfp_pipeline_load(c.host, PyBytes_AS_STRING(pathobj), &p);
    if (st != CRFP_OK)
        raise_host(c.host, st);
    else
        res = run_built(&c, p, input, is_path);
    crfp_pipeline_free(p);
    ctx_free(&c);
    Py_DECREF(pathobj);
    return res;
}

static const char *type_name(crfp_param_type t)
{
    switch (t) {
    case CRFP_PARAM_STRING: return "string";
    case CRFP_PARAM_INT: return "int";
    case CRFP_PARAM_FLOAT: return "float";
    case CRFP_PARAM_BOOL: return "bool";
    case CRFP_PARAM_PATH: return "path";
    }
    return "?";
}

static PyObject *stage_params(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"plugin", "plugin_path", NULL};
    const char *plugin, *plugin_path = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "s|z", kwlist, &plugin, &plugin_path))
        return NULL;
    runctx c;
    if (ctx_init(&c, Py_None, Py_None, plugin_path) != 0)
        return NULL;
    crfp_param_spec *specs;
    size_t n;
    PyObject *res = NULL;
    crfp_status st = crfp_pipeline_stage_params(c.host, plugin, &specs, &n);
    if (st != CRFP_OK) {
        raise_host(c.host, st);
    } else if ((res = PyList_New((Py_ssize_t)n)) != NULL) {
        for (size_t i = 0; i < n; i++) {
            PyObject *t = Py_BuildValue("(sszs)", specs[i].name, type_name(specs[i].type),
                                        specs[i].defval, specs[i].help ? specs[i].help : "");
            if (!t) {
                Py_CLEAR(res);
                break;
            }
            PyList_SET_ITEM(res, (Py_ssize_t)i, t);
        }
        free(specs);
    }
    ctx_free(&c);
    return res;
}

static PyObject *plugins(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"plugin_path", NULL};
    const char *plugin_path = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|z", kwlist, &plugin_path))
        return NULL;
    runctx c;
    if (ctx_init(&c, Py_None, Py_None, plugin_path) != 0)
        return NULL;
    const crfp_plugin **list;
    size_t n;
    PyObject *res = NULL;
    crfp_status st = crfp_host_scan(c.host, &list, &n, NULL, NULL);
    if (st != CRFP_OK) {
        raise_host(c.host, st);
    } else if ((res = PyList_New((Py_ssize_t)n)) != NULL) {
        for (size_t i = 0; i < n; i++) {
            const crfp_plugin_descriptor *d = list[i]->desc;
            PyObject *t = Py_BuildValue("{s:s,s:s,s:z,s:s,s:z}", "name", d->name, "kind",
                                        crfp_kind_name(d->kind), "version", d->version, "file",
                                        list[i]->file, "description", d->description);
            if (!t) {
                Py_CLEAR(res);
                break;
            }
            PyList_SET_ITEM(res, (Py_ssize_t)i, t);
        }
    }
    ctx_free(&c);
    return res;
}

/* attr_cell(token) -> str: a token of an attribute model as the cell of the
 * attributes plugin, as tagging converts it, so that Trainer writes its
 * training file with the very conversion Tagger applies. */
static PyObject *attr_cell(PyObject *self, PyObject *tok)
{
    (void)self;
    arena tmp = {0};
    PyObject *res = NULL;
    if (token_attrs(tok, &tmp) == 0)
        res = PyUnicode_DecodeUTF8(tmp.n ? tmp.p : "_", tmp.n ? (Py_ssize_t)tmp.n : 1,
                                   "strict");
    free(tmp.p);
    return res;
}

/* One label of chunk_eval's input as a C string, or NULL with a Python
 * error set.  A NUL inside would end the label early in C. */
static const char *eval_label(PyObject *o, const char *what, Py_ssize_t i, Py_ssize_t t)
{
    if (!PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s[%zd][%zd] must be str, not %s", what, i, t,
                     Py_TYPE(o)->tp_name);
        return NULL;
    }
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(o, &n);
    if (s && strlen(s) != (size_t)n) {
        PyErr_Format(PyExc_ValueError, "%s[%zd][%zd] holds a NUL character", what, i, t);
        return NULL;
    }
    return s;
}

/* chunk_eval(y_true, y_pred) -> dict: the chunk counts of conlleval (the
 * scorer `crfpipe eval` prints), sequence by sequence, with crfpipe's own
 * evaluator (chunks.h), so that Python and the program give the same
 * figures by construction. */
static PyObject *chunk_eval(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *gold, *pred, *gs = NULL, *ps = NULL, *res = NULL;
    if (!PyArg_ParseTuple(args, "OO", &gold, &pred))
        return NULL;
    crfp_chunkeval e;
    crfp_chunkeval_init(&e);
    if (!(gs = PySequence_Fast(gold, "y_true must be a sequence of label sequences")) ||
        !(ps = PySequence_Fast(pred, "y_pred must be a sequence of label sequences")))
        goto out;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(gs);
    if (PySequence_Fast_GET_SIZE(ps) != n) {
        PyErr_Format(PyExc_ValueError, "y_true has %zd sequences, y_pred %zd", n,
                     PySequence_Fast_GET_SIZE(ps));
        goto out;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *g = PySequence_Fast(PySequence_Fast_GET_ITEM(gs, i),
                                      "each sequence of y_true must be a sequence of labels");
        PyObject *p = g ? PySequence_Fast(PySequence_Fast_GET_ITEM(ps, i),
                                          "each sequence of y_pred must be a sequence of labels")
                        : NULL;
        int ok = g && p;
        if (ok && PySequence_Fast_GET_SIZE(g) != PySequence_Fast_GET_SIZE(p)) {
            PyErr_Format(PyExc_ValueError, "sequence %zd: %zd gold labels, %zd predicted", i,
                         PySequence_Fast_GET_SIZE(g), PySequence_Fast_GET_SIZE(p));
            ok = 0;
        }
        for (Py_ssize_t t = 0; ok && t < PySequence_Fast_GET_SIZE(g); t++) {
            const char *gl = eval_label(PySequence_Fast_GET_ITEM(g, t), "y_true", i, t);
            const char *pl = gl ? eval_label(PySequence_Fast_GET_ITEM(p, t), "y_pred", i, t)
                                : NULL;
            if (!pl || crfp_chunkeval_token(&e, gl, pl) != CRFP_OK) {
                if (pl)
                    PyErr_NoMemory();
                ok = 0;
            }
        }
        if (ok && crfp_chunkeval_boundary(&e) != CRFP_OK) {
            PyErr_NoMemory();
            ok = 0;
        }
        Py_XDECREF(g);
        Py_XDECREF(p);
        if (!ok)
            goto out;
    }
    if (crfp_chunkeval_finish(&e) != CRFP_OK) {
        PyErr_NoMemory();
        goto out;
    }
    PyObject *types = PyList_New((Py_ssize_t)e.ntypes);
    if (!types)
        goto out;
    for (size_t k = 0; k < e.ntypes; k++) {
        PyObject *t = Py_BuildValue("(snnn)", e.types[k].type, (Py_ssize_t)e.types[k].correct,
                                    (Py_ssize_t)e.types[k].found_gold,
                                    (Py_ssize_t)e.types[k].found_guess);
        if (!t) {
            Py_DECREF(types);
            goto out;
        }
        PyList_SET_ITEM(types, (Py_ssize_t)k, t);
    }
    res = Py_BuildValue("{s:n,s:n,s:n,s:n,s:n,s:N}", "tokens", (Py_ssize_t)e.tokens,
                        "correct_tags", (Py_ssize_t)e.correct_tags, "correct",
                        (Py_ssize_t)e.correct_chunks, "found_gold", (Py_ssize_t)e.found_gold,
                        "found_guess", (Py_ssize_t)e.found_guess, "types", types);
out:
    Py_XDECREF(gs);
    Py_XDECREF(ps);
    crfp_chunkeval_free(&e);
    return res;
}

static PyMethodDef module_methods[] = {
    {"run_stages", (PyCFunction)(void (*)(void))run_stages, METH_VARARGS | METH_KEYWORDS,
     "run_stages(stages, input, is_path=False, basedir=None, log=None, iterations=None,\n"
     "           plugin_path=None, threads=0, folds=None) -> bytes\n\n"
     "Build a pipeline from (plugin, params) stages and run it on `input` (bytes, or a file\n"
     "name with is_path=True) without the GIL; returns what the writer wrote (b'' when the\n"
     "pipeline trains).  log(level, message) receives every log line; iterations, a list\n"
     "or a callable, receives a dict per training iteration; folds, a list, a dict per\n"
     "fold of a cross-validation (cv-folds)."},
    {"run_pipeline", (PyCFunction)(void (*)(void))run_pipeline, METH_VARARGS | METH_KEYWORDS,
     "run_pipeline(path, input, is_path=False, log=None, iterations=None, plugin_path=None,\n"
     "             threads=0) -> bytes\n\nThe same for a pipeline file."},
    {"stage_params", (PyCFunction)(void (*)(void))stage_params, METH_VARARGS | METH_KEYWORDS,
     "stage_params(plugin) -> [(name, type, default, help), ...]: what a stage of that\n"
     "plugin accepts (for a trainer, with the parameters every trainer takes)."},
    {"attr_cell", attr_cell, METH_O,
     "attr_cell(token) -> str: a token's attributes as the attributes plugin reads them\n"
     "(space-separated and escaped; '_' when it has none)."},
    {"plugins", (PyCFunction)(void (*)(void))plugins, METH_VARARGS | METH_KEYWORDS,
     "plugins() -> [dict(name, kind, version, file, description), ...]"},
    {"chunk_eval", chunk_eval, METH_VARARGS,
     "chunk_eval(y_true, y_pred) -> dict(tokens, correct_tags, correct, found_gold,\n"
     "found_guess, types=[(type, correct, found_gold, found_guess), ...]): conlleval's counts\n"
     "(crfpipe eval's chunk scores), each sequence ending a chunk."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_crfpipe",
    "The C side of the crfpipe bindings (see the crfpipe package).", -1, module_methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__crfpipe(void)
{
    if (PyType_Ready(&ModelType) < 0)
        return NULL;
    PyObject *mod = PyModule_Create(&module);
    if (!mod)
        return NULL;
    Error = PyErr_NewExceptionWithDoc(
        "crfpipe.Error",
        "A crfpipe failure: str(e) is crfpipe's message (naming the file, line or stage); "
        ".status names the kind of failure, .code is its crfp_status number.",
        NULL, NULL);
    if (!Error) {
        Py_DECREF(mod);
        return NULL;
    }
    Py_INCREF(Error);
    Py_INCREF(&ModelType);
    if (PyModule_AddObject(mod, "Error", Error) != 0 ||
        PyModule_AddObject(mod, "Model", (PyObject *)&ModelType) != 0 ||
        PyModule_AddIntConstant(mod, "ABI_MAJOR", CRFP_ABI_MAJOR) != 0 ||
        PyModule_AddIntConstant(mod, "ABI_MINOR", CRFP_ABI_MINOR) != 0) {
        Py_DECREF(mod);
        return NULL;
    }
    return mod;
}
