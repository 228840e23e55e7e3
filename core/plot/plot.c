/* Charts on cairo surfaces (plot.h). */
#include "config.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cairo-svg.h>

#include "plot.h"

#define FONT "sans-serif"
#define INK 0x222222u
#define GRID 0xe4e4e4u
#define AXIS 0x888888u

/* The drawing is rendered into memory and written at cplot_close, so a
 * failed run never leaves half a file behind. */
typedef struct membuf {
    unsigned char *p;
    size_t n, cap;
    int failed;
} membuf;

struct cplot {
    char *path;
    int png;
    cairo_surface_t *surface;
    cairo_t *cr;
    membuf svg;
};

static cairo_status_t mem_write(void *closure, const unsigned char *data, unsigned int len)
{
    membuf *m = closure;
    if (m->n + len > m->cap) {
        size_t nc = m->cap ? m->cap : 65536;
        while (nc < m->n + len)
            nc *= 2;
        unsigned char *np = realloc(m->p, nc);
        if (!np) {
            m->failed = 1;
            return CAIRO_STATUS_NO_MEMORY;
        }
        m->p = np;
        m->cap = nc;
    }
    memcpy(m->p + m->n, data, len);
    m->n += len;
    return CAIRO_STATUS_SUCCESS;
}

static int ends_with_png(const char *path)
{
    size_t n = strlen(path);
    return n >= 4 && strcasecmp(path + n - 4, ".png") == 0;
}

int cplot_open(const char *path, double w, double h, cplot **out, char *err, size_t errlen)
{
    cplot *p = calloc(1, sizeof *p);
    if (!p || !(p->path = strdup(path))) {
        free(p);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    p->png = ends_with_png(path);
    if (p->png) {
        p->surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)ceil(w), (int)ceil(h));
    } else {
        p->surface = cairo_svg_surface_create_for_stream(mem_write, &p->svg, w, h);
#if CAIRO_VERSION >= CAIRO_VERSION_ENCODE(1, 16, 0)
        /* width="800px", not "800pt": a browser shows it at the size the
         * layout was made for. */
        cairo_svg_surface_set_document_unit(p->surface, CAIRO_SVG_UNIT_PX);
#endif
    }
    p->cr = cairo_create(p->surface);
    if (cairo_status(p->cr) != CAIRO_STATUS_SUCCESS) {
        snprintf(err, errlen, "%s: cannot create the drawing: %s", path,
                 cairo_status_to_string(cairo_status(p->cr)));
        cplot_discard(p);
        return -1;
    }
    cplot_rgb(p->cr, 0xffffff);
    cairo_paint(p->cr);
    cairo_select_font_face(p->cr, FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    *out = p;
    return 0;
}

cairo_t *cplot_cr(cplot *p)
{
    return p->cr;
}

void cplot_discard(cplot *p)
{
    if (!p)
        return;
    if (p->cr)
        cairo_destroy(p->cr);
    if (p->surface) {
        cairo_surface_finish(p->surface);
        cairo_surface_destroy(p->surface);
    }
    free(p->svg.p);
    free(p->path);
    free(p);
}

/* Write buf to path through a temporary file renamed into place. */
static int write_atomic(const char *path, const unsigned char *buf, size_t n, char *err,
                        size_t errlen)
{
    size_t pl = strlen(path);
    char *tmp = malloc(pl + 16);
    if (!tmp) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    snprintf(tmp, pl + 16, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    /* mkstemp makes the file 0600; a report is an ordinary file */
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0)
        (void)0; /* the report is still written, with mkstemp's mode */
    size_t off = 0;
    while (off < n) {
        ssize_t k = write(fd, buf + off, n - off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        off += (size_t)k;
    }
    int bad = off < n;
    int saved = errno;
    if (close(fd) != 0 && !bad) {
        bad = 1;
        saved = errno;
    }
    if (!bad && rename(tmp, path) != 0) {
        bad = 1;
        saved = errno;
    }
    if (bad) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(saved));
        unlink(tmp);
    }
    free(tmp);
    return bad ? -1 : 0;
}

int cplot_close(cplot *p, char *err, size_t errlen)
{
    if (!p)
        return 0;
    int rc = 0;
    cairo_status_t cs = cairo_status(p->cr);
    if (cs == CAIRO_STATUS_SUCCESS && p->png) {
        cairo_surface_flush(p->surface);
        cs = cairo_surface_write_to_png_stream(p->surface, mem_write, &p->svg);
    } else if (cs == CAIRO_STATUS_SUCCESS) {
        /* finishing an SVG surface emits the document */
        cairo_destroy(p->cr);
        p->cr = NULL;
        cairo_surface_finish(p->surface);
        cs = cairo_surface_status(p->surface);
    }
    if (cs != CAIRO_STATUS_SUCCESS || p->svg.failed) {
        snprintf(err, errlen, "%s: cannot draw: %s", p->path,
                 p->svg.failed ? "out of memory" : cairo_status_to_string(cs));
        rc = -1;
    } else {
        rc = write_atomic(p->path, p->svg.p, p->svg.n, err, errlen);
    }
    cplot_discard(p);
    return rc;
}

void cplot_rgb(cairo_t *cr, unsigned rgb)
{
    cairo_set_source_rgb(cr, ((rgb >> 16) & 0xff) / 255.0, ((rgb >> 8) & 0xff) / 255.0,
                         (rgb & 0xff) / 255.0);
}

double cplot_text(cairo_t *cr, double x, double y, const char *s, double size, double halign,
                  double valign, double angle, int bold)
{
    cairo_save(cr);
    cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
    cairo_text_extents_t te;
    cairo_font_extents_t fe;
    cairo_text_extents(cr, s, &te);
    cairo_font_extents(cr, &fe);
    cairo_translate(cr, x, y);
    cairo_rotate(cr, -angle * M_PI / 180.0);
    /* vertical placement by the font's ascent and descent, so that labels
     * of one row share a baseline whatever their letters */
    double hgt = fe.ascent + fe.descent;
    cairo_move_to(cr, -halign * te.x_advance, -valign * hgt + fe.ascent);
    cairo_show_text(cr, s);
    cairo_restore(cr);
    return te.x_advance;
}

/* Width of s at `size`, measured on cr. */
static double text_width(cairo_t *cr, const char *s, double size)
{
    cairo_save(cr);
    cairo_set_font_size(cr, size);
    cairo_text_extents_t te;
    cairo_text_extents(cr, s, &te);
    cairo_restore(cr);
    return te.x_advance;
}

char *cplot_fmt(double v, double step, char *buf, size_t len)
{
    double a = fabs(v), s = fabs(step) > 0 ? fabs(step) : a;
    if (v == 0) {
        snprintf(buf, len, "0");
    } else if (a >= 1e9) {
        snprintf(buf, len, "%.3gG", v / 1e9);
    } else if (a >= 1e6) {
        snprintf(buf, len, "%.3gM", v / 1e6);
    } else if (a >= 1e4 || (a >= 1e3 && s >= 100)) {
        /* thousands as k, unless the ticks are closer than that (counts
         * written in full) */
        snprintf(buf, len, "%.3gk", v / 1e3);
    } else if (s >= 1 && fabs(v - round(v)) < 1e-9) {
        snprintf(buf, len, "%.0f", v);
    } else {
        /* enough decimals to tell neighbouring ticks apart */
        int d = s > 0 ? (int)ceil(-log10(s)) : 2;
        if (d < 1)
            d = 1;
        if (d > 6)
            d = 6;
        snprintf(buf, len, "%.*f", d, v);
    }
    return buf;
}

/* A step of 1, 2 or 5 times a power of ten giving about `target` ticks. */
static double nice_step(double span, int target)
{
    if (!(span > 0))
        return 1;
    double raw = span / target, mag = pow(10, floor(log10(raw))), f = raw / mag;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

/* The ticks k·step with lo <= k·step <= hi: the first k in *k0 and their
 * number, or 0 when there is no sane set of them (non-finite bounds, or more
 * than 100 ticks: a range narrower than the doubles' spacing at its
 * magnitude, where adding the step to a tick would not move it).  Callers
 * place tick i at (*k0 + i)·step, so a loop over ticks always ends. */
static size_t tick_count(double lo, double hi, double step, double *k0)
{
    if (!(step > 0) || !isfinite(lo) || !isfinite(hi) || !isfinite(step))
        return 0;
    double a = ceil(lo / step - 1e-9), b = floor(hi / step + 1e-9);
    if (!(b >= a) || b - a > 100)
        return 0;
    *k0 = a;
    return (size_t)(b - a) + 1;
}

/* --- line charts ------------------------------------------------------------ */

typedef struct axis {
    double lo, hi; /* data range (log10 of it for a log axis) */
    int log;
} axis;

static double ax_pos(const axis *a, double v, double p0, double p1)
{
    double t = a->log ? log10(v) : v;
    return p0 + (t - a->lo) / (a->hi - a->lo) * (p1 - p0);
}

static void widen(axis *a)
{
    /* data spanning most of the doubles' range: keep the top and let the
     * bottom fall off the chart, so that the span and its padding stay
     * finite (an infinite span would place every point at NaN) */
    if (a->hi - a->lo > DBL_MAX / 4)
        a->lo = a->hi - DBL_MAX / 4;
    if (!(a->hi > a->lo)) {
        double c = a->lo, d = a->log ? 0.5 : (fabs(c) > 0 ? fabs(c) * 0.1 : 1);
        a->lo = c - d;
        a->hi = c + d;
    }
}

void cplot_lines(cairo_t *cr, const cplot_chart *c, const cplot_series *s, size_t ns)
{
    double left = c->x + 64, right = c->x + c->w - 14, top = c->y + 28,
           bottom = c->y + c->h - 40;
    cplot_rgb(cr, INK);
    if (c->title)
        cplot_text(cr, c->x + 8, c->y + 6, c->title, 13, 0, 0, 0, 1);
    /* ranges */
    axis ax = {INFINITY, -INFINITY, c->xlog}, ay = {INFINITY, -INFINITY, c->ylog};
    int any = 0, positive = 1, xpositive = 1;
    for (size_t k = 0; k < ns; k++)
        for (size_t i = 0; i < s[k].n; i++) {
            if (!isfinite(s[k].y[i]) || !isfinite(s[k].x[i]))
                continue;
            positive &= s[k].y[i] > 0;
            xpositive &= s[k].x[i] > 0;
            any = 1;
        }
    ay.log = c->ylog && positive;
    ax.log = c->xlog && xpositive;
    for (size_t k = 0; k < ns; k++)
        for (size_t i = 0; i < s[k].n; i++) {
            double x = s[k].x[i], y = s[k].y[i];
            if (!isfinite(y) || !isfinite(x))
                continue;
            if (ay.log)
                y = log10(y);
            if (ax.log)
                x = log10(x);
            ax.lo = fmin(ax.lo, x);
            ax.hi = fmax(ax.hi, x);
            ay.lo = fmin(ay.lo, y);
            ay.hi = fmax(ay.hi, y);
        }
    /* frame */
    cairo_set_line_width(cr, 1);
    cplot_rgb(cr, AXIS);
    cairo_rectangle(cr, left + 0.5, top + 0.5, right - left, bottom - top);
    cairo_stroke(cr);
    cplot_rgb(cr, INK);
    if (c->xlabel)
        cplot_text(cr, (left + right) / 2, c->y + c->h - 4, c->xlabel, 11, 0.5, 1, 0, 0);
    if (c->ylabel)
        cplot_text(cr, c->x + 4, (top + bottom) / 2, c->ylabel, 11, 0.5, 0, 90, 0);
    if (!any) {
        cplot_rgb(cr, AXIS);
        cplot_text(cr, (left + right) / 2, (top + bottom) / 2, c->empty ? c->empty : "no data",
                   12, 0.5, 0.5, 0, 0);
        return;
    }
    /* linear axes start at 0 when the data is near it: error rates,
     * counts and times read better against their origin */
    if (!ay.log && ay.lo > 0 && ay.lo < 0.5 * ay.hi)
        ay.lo = 0;
    if (!ax.log && ax.lo > 0 && ax.lo < 0.5 * ax.hi)
        ax.lo = 0;
    widen(&ax);
    if (ax.log) {
        /* room for the end points' dots */
        double pad = 0.04 * (ax.hi - ax.lo);
        ax.lo -= pad;
        ax.hi += pad;
    }
    widen(&ay);
    if (!ay.log) {
        double pad = (ay.hi - ay.lo) * 0.05;
        ay.hi += pad;
        if (ay.lo != 0)
            ay.lo -= pad;
    } else {
        ay.lo -= 0.03 * (ay.hi - ay.lo);
        ay.hi += 0.03 * (ay.hi - ay.lo);
    }
    char buf[32];
    /* x ticks and grid */
    double xs = nice_step(ax.hi - ax.lo, 6);
    /* counts (iterations) get whole ticks */
    int whole = 1;
    for (size_t k = 0; k < ns && whole; k++)
        for (size_t i = 0; i < s[k].n && whole; i++)
            whole = isnan(s[k].x[i]) || s[k].x[i] == floor(s[k].x[i]);
    if (whole && xs < 1)
        xs = 1;
    if (ax.log && c->nxticks) {
        /* the caller's values (a path's rho1), where 1-2-5 ticks could
         * leave a point unlabelled */
        for (size_t k = 0; k < c->nxticks; k++) {
            double v = c->xticks[k];
            if (!(v > 0) || log10(v) < ax.lo || log10(v) > ax.hi)
                continue;
            double px = ax_pos(&ax, v, left, right);
            cplot_rgb(cr, GRID);
            cairo_move_to(cr, floor(px) + 0.5, top + 1);
            cairo_line_to(cr, floor(px) + 0.5, bottom);
            cairo_stroke(cr);
            cplot_rgb(cr, INK);
            snprintf(buf, sizeof buf, "%g", v);
            cplot_text(cr, px, bottom + 4, buf, 10, 0.5, 0, 0, 0);
        }
    } else if (ax.log) {
        /* 1, 2, 5 times powers of ten over up to four decades */
        static const double mult[] = {1, 2, 5};
        int decades = (int)ceil(ax.hi) - (int)floor(ax.lo);
        for (int e = (int)floor(ax.lo); e <= (int)ceil(ax.hi); e++)
            for (size_t m = 0; m < (decades <= 4 ? 3u : 1u); m++) {
                double v = mult[m] * pow(10, e), lv = log10(v);
                if (lv < ax.lo || lv > ax.hi)
                    continue;
                double px = ax_pos(&ax, v, left, right);
                cplot_rgb(cr, GRID);
                cairo_move_to(cr, floor(px) + 0.5, top + 1);
                cairo_line_to(cr, floor(px) + 0.5, bottom);
                cairo_stroke(cr);
                cplot_rgb(cr, INK);
                cplot_text(cr, px, bottom + 4, cplot_fmt(v, v, buf, sizeof buf), 10, 0.5, 0, 0,
                           0);
            }
    }
    double k0 = 0;
    size_t nt = ax.log ? 0 : tick_count(ax.lo, ax.hi, xs, &k0);
    for (size_t i = 0; i < nt; i++) {
        double t = (k0 + (double)i) * xs;
        double px = ax_pos(&ax, t, left, right);
        cplot_rgb(cr, GRID);
        cairo_move_to(cr, floor(px) + 0.5, top + 1);
        cairo_line_to(cr, floor(px) + 0.5, bottom);
        cairo_stroke(cr);
        cplot_rgb(cr, INK);
        cplot_text(cr, px, bottom + 4, cplot_fmt(t, xs, buf, sizeof buf), 10, 0.5, 0, 0, 0);
    }
    /* y ticks and grid */
    if (ay.log && ay.hi - ay.lo < 1) {
        /* less than a decade: evenly stepped values, placed on the log
         * scale, so that the axis has more than one or two labels */
        double vlo = pow(10, ay.lo), vhi = pow(10, ay.hi), ys = nice_step(vhi - vlo, 5);
        size_t nt = tick_count(vlo, vhi, ys, &k0);
        for (size_t i = 0; i < nt; i++) {
            double t = (k0 + (double)i) * ys;
            if (t <= 0)
                continue;
            double py = ax_pos(&ay, t, bottom, top);
            cplot_rgb(cr, GRID);
            cairo_move_to(cr, left + 1, floor(py) + 0.5);
            cairo_line_to(cr, right, floor(py) + 0.5);
            cairo_stroke(cr);
            cplot_rgb(cr, INK);
            cplot_text(cr, left - 5, py, cplot_fmt(t, ys, buf, sizeof buf), 10, 1, 0.5, 0, 0);
        }
    } else if (ay.log) {
        static const double mult_all[] = {1, 2, 5}, mult_one[] = {1};
        int decades = (int)ceil(ay.hi) - (int)floor(ay.lo);
        const double *mult = decades <= 3 ? mult_all : mult_one;
        size_t nm = decades <= 3 ? 3 : 1;
        for (int e = (int)floor(ay.lo); e <= (int)ceil(ay.hi); e++)
            for (size_t m = 0; m < nm; m++) {
                double v = mult[m] * pow(10, e), lv = log10(v);
                if (lv < ay.lo || lv > ay.hi)
                    continue;
                double py = ax_pos(&ay, v, bottom, top);
                cplot_rgb(cr, GRID);
                cairo_move_to(cr, left + 1, floor(py) + 0.5);
                cairo_line_to(cr, right, floor(py) + 0.5);
                cairo_stroke(cr);
                cplot_rgb(cr, INK);
                cplot_text(cr, left - 5, py, cplot_fmt(v, v, buf, sizeof buf), 10, 1, 0.5, 0, 0);
            }
    } else {
        double ys = nice_step(ay.hi - ay.lo, 5);
        size_t nt = tick_count(ay.lo, ay.hi, ys, &k0);
        for (size_t i = 0; i < nt; i++) {
            double t = (k0 + (double)i) * ys;
            double py = ax_pos(&ay, t, bottom, top);
            cplot_rgb(cr, GRID);
            cairo_move_to(cr, left + 1, floor(py) + 0.5);
            cairo_line_to(cr, right, floor(py) + 0.5);
            cairo_stroke(cr);
            cplot_rgb(cr, INK);
            cplot_fmt(t, ys, buf, sizeof buf);
            if (c->ypercent)
                strncat(buf, "%", sizeof buf - strlen(buf) - 1);
            cplot_text(cr, left - 5, py, buf, 10, 1, 0.5, 0, 0);
        }
    }
    /* stage marks */
    cairo_save(cr);
    cairo_rectangle(cr, left, top, right - left, bottom - top);
    cairo_clip(cr);
    for (size_t m = 0; m < c->nmarks; m++) {
        double px = ax_pos(&ax, c->marks[m], left, right);
        double dash[] = {4, 3};
        cairo_set_dash(cr, dash, 2, 0);
        cplot_rgb(cr, 0x999999);
        cairo_move_to(cr, floor(px) + 0.5, top);
        cairo_line_to(cr, floor(px) + 0.5, bottom);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
    }
    /* curves */
    cairo_set_line_width(cr, 1.8);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    for (size_t k = 0; k < ns; k++) {
        double dash[] = {6, 4};
        cairo_set_dash(cr, dash, s[k].dashed ? 2 : 0, 0);
        cplot_rgb(cr, s[k].rgb);
        int pen = 0;
        size_t npts = 0;
        for (size_t i = 0; i < s[k].n; i++) {
            if (!isfinite(s[k].y[i]) || !isfinite(s[k].x[i])) {
                pen = 0;
                continue;
            }
            double px = ax_pos(&ax, s[k].x[i], left, right);
            double py = ax_pos(&ay, s[k].y[i], bottom, top);
            if (pen)
                cairo_line_to(cr, px, py);
            else
                cairo_move_to(cr, px, py);
            pen = 1;
            npts++;
        }
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        /* a lone point (one iteration) would draw nothing: mark it */
        if (npts <= 1 || c->dots)
            for (size_t i = 0; i < s[k].n; i++)
                if (isfinite(s[k].y[i]) && isfinite(s[k].x[i])) {
                    cairo_arc(cr, ax_pos(&ax, s[k].x[i], left, right),
                              ax_pos(&ay, s[k].y[i], bottom, top), 3, 0, 2 * M_PI);
                    cairo_fill(cr);
                }
    }
    /* the marks' names after the curves, so that a curve never hides one */
    for (size_t m = 0; m < c->nmarks; m++) {
        double px = ax_pos(&ax, c->marks[m], left, right);
        if (c->mark_labels && c->mark_labels[m]) {
            /* at the foot of the line (the legend has the top right), on
             * a light backing so that a curve passing there leaves it legible */
            double tw = text_width(cr, c->mark_labels[m], 10);
            cairo_set_source_rgba(cr, 1, 1, 1, 0.85);
            cairo_rectangle(cr, px + 1.5, bottom - 16, tw + 4, 14);
            cairo_fill(cr);
            cplot_rgb(cr, 0x555555);
            cplot_text(cr, px + 3, bottom - 3, c->mark_labels[m], 10, 0, 1, 0, 0);
        }
    }
    cairo_restore(cr);
    cairo_set_line_width(cr, 1);
    /* legend, top right inside the frame */
    double ly = top + 8;
    for (size_t k = 0; k < ns; k++) {
        if (!s[k].name)
            continue;
        double tw = text_width(cr, s[k].name, 10);
        double lx = right - 10 - tw - 26;
        cplot_rgb(cr, 0xffffff);
        cairo_rectangle(cr, lx - 4, ly - 7, tw + 34, 15);
        cairo_fill(cr);
        double dash[] = {6, 4};
        cairo_set_dash(cr, dash, s[k].dashed ? 2 : 0, 0);
        cairo_set_line_width(cr, 1.8);
        cplot_rgb(cr, s[k].rgb);
        cairo_move_to(cr, lx, ly);
        cairo_line_to(cr, lx + 20, ly);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        cairo_set_line_width(cr, 1);
        cplot_rgb(cr, INK);
        cplot_text(cr, lx + 26, ly, s[k].name, 10, 0, 0.5, 0, 0);
        ly += 16;
    }
}

/* --- heat maps ---------------------------------------------------------------- */

typedef struct hm_layout {
    double fs;          /* label font size */
    double cell;
    double mx, my;      /* top-left corner of the matrix */
    double barx;        /* colour bar's left edge */
} hm_layout;

enum { HM_ANGLE = 50 };

static void hm_layout_of(const cplot_heatmap *m, hm_layout *L)
{
    /* measure the labels on a scratch surface: the layout must not depend
     * on the surface drawn on, so that cplot_heatmap_cell agrees with it */
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_A8, 1, 1);
    cairo_t *cr = cairo_create(s);
    cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    size_t n = m->n ? m->n : 1;
    double fs = n <= 12 ? 12 : n <= 25 ? 11 : n <= 45 ? 9.5 : 8;
    double lw = 0;
    for (size_t i = 0; i < m->n; i++)
        lw = fmax(lw, text_width(cr, m->labels[i], fs));
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    double a = HM_ANGLE * M_PI / 180;
    double left = m->x + 28 + lw + 6;                 /* axis title, row labels */
    double toph = 30 + lw * sin(a) + fs * cos(a) + 8; /* title, column labels */
    double availw = m->x + m->w - left - 70;          /* colour bar and its ticks */
    double availh = m->y + m->h - (m->y + toph) - 24; /* axis title below */
    double cell = fmin(availw, availh) / (double)n;
    if (cell > 56)
        cell = 56;
    if (cell < 4)
        cell = 4;
    L->fs = fs;
    L->cell = cell;
    L->mx = left;
    L->my = m->y + toph;
    L->barx = left + cell * (double)n + 18;
}

void cplot_heatmap_cell(const cplot_heatmap *m, size_t r, size_t c, double *cx, double *cy,
                        double *side)
{
    hm_layout L;
    hm_layout_of(m, &L);
    *cx = L.mx + ((double)c + 0.5) * L.cell;
    *cy = L.my + ((double)r + 0.5) * L.cell;
    if (side)
        *side = L.cell;
}

/* Where share v falls on the colour scale: 0 stays white, and any other
 * share starts a step above it, so that a single confusion among thousands
 * still shows; the square root spreads the small shares, where the errors
 * are. */
static double heat_t(double v)
{
    return v <= 0 ? 0 : v >= 1 ? 1 : 0.08 + 0.92 * sqrt(v);
}

/* white -> mid blue -> dark blue */
static unsigned heat_rgb(double t)
{
    static const double stops[3][3] = {{255, 255, 255}, {107, 174, 214}, {8, 48, 107}};
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    int k = t < 0.5 ? 0 : 1;
    double u = t < 0.5 ? t / 0.5 : (t - 0.5) / 0.5;
    unsigned out = 0;
    for (int i = 0; i < 3; i++) {
        double x = stops[k][i] + (stops[k + 1][i] - stops[k][i]) * u;
        out = (out << 8) | (unsigned)lround(x);
    }
    return out;
}

unsigned cplot_heat_color(double v)
{
    return heat_rgb(heat_t(v));
}

void cplot_heatmap_draw(cairo_t *cr, const cplot_heatmap *m)
{
    hm_layout L;
    hm_layout_of(m, &L);
    size_t n = m->n;
    double side = L.cell * (double)n;
    cplot_rgb(cr, INK);
    if (m->title)
        cplot_text(cr, m->x + 8, m->y + 6, m->title, 13, 0, 0, 0, 1);
    cplot_text(cr, m->x + 6, L.my + side / 2, "gold label", 11, 0.5, 0, 90, 0);
    cplot_text(cr, L.mx + side / 2, L.my + side + 8, "predicted label", 11, 0.5, 0, 0, 0);
    if (n == 0) {
        cplot_text(cr, m->x + m->w / 2, m->y + m->h / 2, "no labels", 12, 0.5, 0.5, 0, 0);
        return;
    }
    char buf[32];
    for (size_t r = 0; r < n; r++) {
        double sum = 0;
        for (size_t c = 0; c < n; c++)
            sum += m->counts[r * n + c];
        for (size_t c = 0; c < n; c++) {
            double v = sum > 0 ? m->counts[r * n + c] / sum : 0;
            unsigned col = cplot_heat_color(v);
            cplot_rgb(cr, col);
            cairo_rectangle(cr, L.mx + (double)c * L.cell, L.my + (double)r * L.cell, L.cell,
                            L.cell);
            cairo_fill(cr);
            double cnt = m->counts[r * n + c];
            if (cnt <= 0)
                continue;
            cplot_fmt(cnt, 1, buf, sizeof buf);
            double fs = fmin(L.cell * 0.36, 12);
            if (fs < 6.5 || text_width(cr, buf, fs) > L.cell - 3)
                continue;
            cplot_rgb(cr, heat_t(v) > 0.55 ? 0xffffff : INK);
            cplot_text(cr, L.mx + ((double)c + 0.5) * L.cell, L.my + ((double)r + 0.5) * L.cell,
                       buf, fs, 0.5, 0.5, 0, 0);
        }
    }
    /* the diagonal framed, the cells separated by hairlines */
    cplot_rgb(cr, 0xffffff);
    cairo_set_line_width(cr, L.cell >= 10 ? 1 : 0.5);
    for (size_t i = 1; i < n; i++) {
        double p = floor(L.mx + (double)i * L.cell) + 0.5, q = floor(L.my + (double)i * L.cell) + 0.5;
        cairo_move_to(cr, p, L.my);
        cairo_line_to(cr, p, L.my + side);
        cairo_move_to(cr, L.mx, q);
        cairo_line_to(cr, L.mx + side, q);
    }
    cairo_stroke(cr);
    cplot_rgb(cr, AXIS);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, L.mx, L.my, side, side);
    cairo_stroke(cr);
    /* labels */
    cplot_rgb(cr, INK);
    for (size_t i = 0; i < n; i++) {
        cplot_text(cr, L.mx - 5, L.my + ((double)i + 0.5) * L.cell, m->labels[i], L.fs, 1, 0.5, 0,
                   0);
        cplot_text(cr, L.mx + ((double)i + 0.5) * L.cell, L.my - 5, m->labels[i], L.fs, 0, 0.5,
                   HM_ANGLE, 0);
    }
    /* colour bar: share of the gold row */
    double bx = L.barx, bw = 14, bh = fmax(side, 120);
    for (int k = 0; k < 100; k++) {
        /* the bar is linear in the colour scale, its ticks placed by it */
        cplot_rgb(cr, heat_rgb(1 - (k + 0.5) / 100.0));
        cairo_rectangle(cr, bx, L.my + bh * k / 100.0, bw, bh / 100.0 + 0.6);
        cairo_fill(cr);
    }
    cplot_rgb(cr, AXIS);
    cairo_rectangle(cr, bx + 0.5, L.my + 0.5, bw, bh);
    cairo_stroke(cr);
    static const double ticks[] = {0, 0.01, 0.05, 0.2, 0.5, 1};
    static const char *const tl[] = {"0", "1%", "5%", "20%", "50%", "100%"};
    cplot_rgb(cr, INK);
    for (size_t k = 0; k < sizeof ticks / sizeof *ticks; k++) {
        double py = L.my + bh * (1 - heat_t(ticks[k]));
        cairo_move_to(cr, bx + bw, floor(py) + 0.5);
        cairo_line_to(cr, bx + bw + 4, floor(py) + 0.5);
        cairo_stroke(cr);
        cplot_text(cr, bx + bw + 6, py, tl[k], 9.5, 0, 0.5, 0, 0);
    }
    cplot_text(cr, bx + bw + 44, L.my + bh / 2, "share of the gold label's tokens", 10, 0.5, 0,
               90, 0);
}

/* --- grouped bars ----------------------------------------------------------------- */

void cplot_bars_draw(cairo_t *cr, const cplot_bars *b)
{
    cplot_rgb(cr, INK);
    if (b->title)
        cplot_text(cr, b->x + 8, b->y + 6, b->title, 13, 0, 0, 0, 1);
    size_t n = b->n;
    double fs = n <= 25 ? 11 : n <= 45 ? 9.5 : 8;
    double lw = 0, nw = 0;
    for (size_t i = 0; i < n; i++) {
        lw = fmax(lw, text_width(cr, b->labels[i], fs));
        if (b->notes && b->notes[i])
            nw = fmax(nw, text_width(cr, b->notes[i], fs));
    }
    double left = b->x + 10 + lw + 8, right = b->x + b->w - 12 - (nw > 0 ? nw + 10 : 0);
    double top = b->y + 50, bottom = b->y + b->h - 28;
    /* legend */
    double lx = left;
    for (size_t g = 0; g < b->ngroups; g++) {
        cplot_rgb(cr, b->colors[g]);
        cairo_rectangle(cr, lx, b->y + 30, 12, 10);
        cairo_fill(cr);
        cplot_rgb(cr, INK);
        lx += 18 + cplot_text(cr, lx + 16, b->y + 35, b->group_names[g], 10.5, 0, 0.5, 0, 0) + 12;
    }
    if (n == 0)
        return;
    double vmax = b->vmax > 0 ? b->vmax : 1;
    double step = nice_step(vmax, 5);
    char buf[32];
    cairo_set_line_width(cr, 1);
    double k0 = 0;
    size_t nt = tick_count(0, vmax, step, &k0);
    for (size_t i = 0; i < nt; i++) {
        double t = (k0 + (double)i) * step;
        double px = left + t / vmax * (right - left);
        cplot_rgb(cr, GRID);
        cairo_move_to(cr, floor(px) + 0.5, top);
        cairo_line_to(cr, floor(px) + 0.5, bottom);
        cairo_stroke(cr);
        cplot_rgb(cr, INK);
        cplot_text(cr, px, bottom + 4, cplot_fmt(t, step, buf, sizeof buf), 10, 0.5, 0, 0, 0);
    }
    double rh = (bottom - top) / (double)n;
    double bh = rh * 0.8 / (double)(b->ngroups ? b->ngroups : 1);
    for (size_t i = 0; i < n; i++) {
        double ry = top + (double)i * rh;
        if (i % 2 == 1) {
            cplot_rgb(cr, 0xf6f6f6);
            cairo_rectangle(cr, left, ry, right - left, rh);
            cairo_fill(cr);
        }
        for (size_t g = 0; g < b->ngroups; g++) {
            double v = b->values[i * b->ngroups + g];
            v = v < 0 ? 0 : v > vmax ? vmax : v;
            cplot_rgb(cr, b->colors[g]);
            cairo_rectangle(cr, left, ry + rh * 0.1 + (double)g * bh, v / vmax * (right - left),
                            bh);
            cairo_fill(cr);
        }
        cplot_rgb(cr, INK);
        cplot_text(cr, left - 6, ry + rh / 2, b->labels[i], fs, 1, 0.5, 0, 0);
        if (b->notes && b->notes[i])
            cplot_text(cr, right + 8, ry + rh / 2, b->notes[i], fs, 0, 0.5, 0, 0);
    }
    cplot_rgb(cr, AXIS);
    cairo_move_to(cr, floor(left) + 0.5, top);
    cairo_line_to(cr, floor(left) + 0.5, bottom);
    cairo_stroke(cr);
}
