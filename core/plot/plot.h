/* crfpipe — charts drawn with cairo, for the reports of `crfpipe train
 * --report` and `crfpipe eval --report` (the evaluate plugin).
 *
 * A small convenience library (not installed): a drawing is a cairo SVG
 * surface, or an image surface saved as PNG, chosen by the file name; the
 * chart functions lay out and draw one panel each inside a rectangle given
 * in CSS pixels.  Text uses cairo's toy font API with the "sans-serif"
 * face, which fontconfig resolves to whatever sans font is installed.
 */
#ifndef CRFP_PLOT_H
#define CRFP_PLOT_H

#include <stddef.h>
#include <cairo.h>

typedef struct cplot cplot;

/* Start a w x h pixel drawing that cplot_close() writes to `path`: PNG when
 * the name ends in ".png" (any case), SVG otherwise.  Nothing is written
 * before cplot_close.  Returns 0, or -1 with a message in err[errlen]. */
int cplot_open(const char *path, double w, double h, cplot **out, char *err, size_t errlen);

/* The drawing's cairo context (owned by the cplot); the background is
 * already white. */
cairo_t *cplot_cr(cplot *p);

/* Finish the drawing and write it: to "PATH.tmp.XXXXXX", renamed over
 * PATH when complete, so that PATH is either the old file or the whole new
 * one.  Frees p (NULL accepted: returns 0).  Returns 0, or -1 with a
 * message naming the file in err[errlen]. */
int cplot_close(cplot *p, char *err, size_t errlen);

/* Free p without writing anything.  NULL accepted. */
void cplot_discard(cplot *p);

/* Draw s with its anchor point at (x, y): halign 0 = left edge, 0.5 =
 * centre, 1 = right edge, valign likewise from the top (0) to the bottom
 * (1) of the text's extent; rotated by `angle` degrees (counter-clockwise)
 * around the anchor.  Returns the text's width. */
double cplot_text(cairo_t *cr, double x, double y, const char *s, double size, double halign,
                  double valign, double angle, int bold);

/* Colours are 0xRRGGBB. */
void cplot_rgb(cairo_t *cr, unsigned rgb);

/* --- line charts ----------------------------------------------------------- */

typedef struct cplot_series {
    const char *name;    /* legend entry; NULL: none */
    const double *x, *y; /* n points; a point with a NaN or infinite
                          * coordinate leaves a gap */
    size_t n;
    unsigned rgb;
    int dashed;
} cplot_series;

typedef struct cplot_chart {
    double x, y, w, h;            /* the panel, titles included */
    const char *title, *xlabel, *ylabel;
    int ylog;                     /* log10 y axis, when every value is > 0 */
    int ypercent;                 /* y tick labels end in '%' */
    const double *marks;          /* vertical lines at these x (stage starts) */
    const char *const *mark_labels;
    size_t nmarks;
    const char *empty;            /* said in the panel when no series has points */
    int xlog;                     /* log10 x axis, when every x is > 0 */
    int dots;                     /* a dot at every point (few, meaningful points) */
    const double *xticks;         /* with xlog: ticks at these values instead of
                                   * 1, 2, 5 times powers of ten (nxticks) */
    size_t nxticks;
} cplot_chart;

/* One panel of curves with axes, ticks, grid, legend. */
void cplot_lines(cairo_t *cr, const cplot_chart *c, const cplot_series *s, size_t ns);

/* --- confusion matrices ---------------------------------------------------- */

typedef struct cplot_heatmap {
    double x, y, w, h;          /* the panel, titles and labels included */
    const char *title;
    const char *const *labels;  /* n labels: rows (gold) and columns (predicted) */
    size_t n;
    const double *counts;       /* counts[r * n + c]: gold r predicted as c */
} cplot_heatmap;

/* Rows are gold labels, columns predictions; a cell's colour is its share
 * of its row (white for none, then from light to dark blue on a square-root
 * scale so that small confusions show), with the count written inside when
 * the cell is large enough; a colour bar explains the scale. */
void cplot_heatmap_draw(cairo_t *cr, const cplot_heatmap *m);

/* The centre and side of cell (r, c) as cplot_heatmap_draw lays it out
 * (for tests and callers that annotate the matrix). */
void cplot_heatmap_cell(const cplot_heatmap *m, size_t r, size_t c, double *cx, double *cy,
                        double *side);

/* The colour of a cell whose share of its row is v (0..1). */
unsigned cplot_heat_color(double v);

/* --- grouped bars ------------------------------------------------------------ */

typedef struct cplot_bars {
    double x, y, w, h;
    const char *title;
    const char *const *labels;      /* n rows */
    size_t n;
    const double *values;           /* values[i * ngroups + g], 0..vmax */
    size_t ngroups;
    const char *const *group_names; /* legend */
    const unsigned *colors;         /* ngroups */
    double vmax;
    const char *const *notes;       /* per row, written right of the bars (may be NULL) */
} cplot_bars;

/* Horizontal grouped bars, one row per label, a legend on top. */
void cplot_bars_draw(cairo_t *cr, const cplot_bars *b);

/* "1.5k", "12M", "0.25": a compact label for an axis tick (step: the
 * distance between ticks, which sets the precision) or a count (step 1:
 * exact below 10,000), written to buf (always NUL-terminated); returns buf. */
char *cplot_fmt(double v, double step, char *buf, size_t len);

#endif
