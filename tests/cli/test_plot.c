/* The charts of the --report options (core/plot), checked by their pixels.
 *
 *   test_plot DIR            unit checks, drawing into DIR
 *   test_plot --inked PNG    print "WIDTH HEIGHT PERCENT" for a PNG: the share
 *                            of pixels that are not near-white (browser.sh
 *                            uses it on Chromium's screenshots)
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "plot.h"
#include "../testcheck.h"

static unsigned pixel(cairo_surface_t *s, double x, double y)
{
    int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
    int xi = (int)x, yi = (int)y;
    if (xi < 0 || yi < 0 || xi >= w || yi >= h)
        return 0xff000000u;
    const unsigned char *row = cairo_image_surface_get_data(s) +
                               (size_t)yi * (size_t)cairo_image_surface_get_stride(s);
    uint32_t p;
    memcpy(&p, row + 4 * xi, 4);
    return p & 0xffffff;
}

static int near(unsigned a, unsigned b, int tol)
{
    for (int sh = 0; sh < 24; sh += 8) {
        int d = (int)((a >> sh) & 0xff) - (int)((b >> sh) & 0xff);
        if (d > tol || d < -tol)
            return 0;
    }
    return 1;
}

static double luminance(unsigned c)
{
    return 0.2126 * ((c >> 16) & 0xff) + 0.7152 * ((c >> 8) & 0xff) + 0.0722 * (c & 0xff);
}

static int inked(const char *path)
{
    cairo_surface_t *s = cairo_image_surface_create_from_png(path);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        fprintf(stderr, "%s: %s\n", path, cairo_status_to_string(cairo_surface_status(s)));
        cairo_surface_destroy(s);
        return 1;
    }
    cairo_surface_flush(s);
    int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
    size_t ink = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            unsigned p = pixel(s, x, y);
            ink += ((p >> 16) & 0xff) < 235 || ((p >> 8) & 0xff) < 235 || (p & 0xff) < 235;
        }
    printf("%d %d %.1f\n", w, h, w && h ? 100.0 * (double)ink / ((double)w * h) : 0.0);
    cairo_surface_destroy(s);
    return 0;
}

static cairo_surface_t *load(const char *path)
{
    cairo_surface_t *s = cairo_image_surface_create_from_png(path);
    CHECK(cairo_surface_status(s) == CAIRO_STATUS_SUCCESS, "%s does not load", path);
    cairo_surface_flush(s);
    return s;
}

static void check_fmt(void)
{
    char b[32];
    CHECK(strcmp(cplot_fmt(0, 1, b, sizeof b), "0") == 0, "0 -> %s", b);
    CHECK(strcmp(cplot_fmt(1500, 500, b, sizeof b), "1.5k") == 0, "1500 -> %s", b);
    CHECK(strcmp(cplot_fmt(1021, 1, b, sizeof b), "1021") == 0, "count 1021 -> %s", b);
    CHECK(strcmp(cplot_fmt(8000, 2000, b, sizeof b), "8k") == 0, "8000 -> %s", b);
    CHECK(strcmp(cplot_fmt(25000, 5000, b, sizeof b), "25k") == 0, "25000 -> %s", b);
    CHECK(strcmp(cplot_fmt(1.2e6, 1e5, b, sizeof b), "1.2M") == 0, "1.2e6 -> %s", b);
    CHECK(strcmp(cplot_fmt(0.25, 0.05, b, sizeof b), "0.25") == 0, "0.25 -> %s", b);
    CHECK(strcmp(cplot_fmt(1.5, 0.5, b, sizeof b), "1.5") == 0, "1.5 -> %s", b);
}

static void check_colours(void)
{
    CHECK(cplot_heat_color(0) == 0xffffff, "0 is %06x, not white", cplot_heat_color(0));
    CHECK(cplot_heat_color(1) == 0x08306b, "1 is %06x", cplot_heat_color(1));
    double prev = 1e9;
    for (int i = 0; i <= 100; i++) {
        double l = luminance(cplot_heat_color(i / 100.0));
        CHECK(l < prev || i == 0, "colour of %d%% is not darker than the one before", i);
        prev = l;
    }
    /* square-root scale: 1% already visibly tinted */
    CHECK(luminance(cplot_heat_color(0.01)) < 235, "1%% is almost white");
}

/* A 3-label matrix: each cell's colour is its share of the row, empty rows
 * stay white, and counts are written where they fit. */
static void check_heatmap(const char *dir)
{
    char path[4096], err[512];
    snprintf(path, sizeof path, "%s/heat.png", dir);
    static const char *const labels[] = {"B-NP", "I-NP", "O"};
    static const double counts[] = {90, 10, 0, 50, 50, 0, 0, 0, 0};
    cplot_heatmap m = {0, 0, 500, 420, "test", labels, 3, counts};
    cplot *p;
    CHECK(cplot_open(path, 500, 420, &p, err, sizeof err) == 0, "open: %s", err);
    if (test_failures)
        return;
    cplot_heatmap_draw(cplot_cr(p), &m);
    CHECK(cplot_close(p, err, sizeof err) == 0, "close: %s", err);
    cairo_surface_t *s = load(path);
    double share[3][3] = {{0.9, 0.1, 0}, {0.5, 0.5, 0}, {0, 0, 0}};
    for (size_t r = 0; r < 3; r++)
        for (size_t c = 0; c < 3; c++) {
            double cx, cy, side;
            cplot_heatmap_cell(&m, r, c, &cx, &cy, &side);
            CHECK(side >= 20, "cells of %.1f px for 3 labels in 500 px", side);
            /* a corner of the cell: the count is written in its middle */
            unsigned got = pixel(s, cx - side * 0.38, cy - side * 0.38);
            unsigned want = cplot_heat_color(share[r][c]);
            CHECK(near(got, want, 3), "cell (%zu,%zu) is %06x, its share %.2f wants %06x", r, c,
                  got, share[r][c], want);
        }
    /* the count 90 is written in its (dark) cell: light pixels in the middle */
    double cx, cy, side;
    cplot_heatmap_cell(&m, 0, 0, &cx, &cy, &side);
    int light = 0;
    for (int dy = -4; dy <= 4; dy++)
        for (int dx = -8; dx <= 8; dx++)
            light += luminance(pixel(s, cx + dx, cy + dy)) > 180;
    CHECK(light > 3, "no count written in the dark cell (0,0)");
    cairo_surface_destroy(s);
}

/* A curve is drawn in its colour inside the frame; an empty chart says so. */
static void check_lines(const char *dir)
{
    char path[4096], err[512];
    snprintf(path, sizeof path, "%s/lines.png", dir);
    double x[] = {1, 2, 3, 4, 5}, y[] = {100, 50, 25, 12, 6};
    cplot_series s = {"objective", x, y, 5, 0xd62728, 0};
    cplot_chart c = {0, 0, 400, 300, "t", "iteration", "objective", 1, 0, NULL, NULL, 0, NULL, 0, 0, NULL, 0};
    cplot_chart e = {400, 0, 400, 300, "empty", "x", "y", 0, 0, NULL, NULL, 0, "nothing here", 0, 0, NULL, 0};
    cplot *p;
    CHECK(cplot_open(path, 800, 300, &p, err, sizeof err) == 0, "open: %s", err);
    if (test_failures)
        return;
    cplot_lines(cplot_cr(p), &c, &s, 1);
    cplot_lines(cplot_cr(p), &e, NULL, 0);
    CHECK(cplot_close(p, err, sizeof err) == 0, "close: %s", err);
    cairo_surface_t *img = load(path);
    int red = 0, text = 0;
    for (int yy = 0; yy < 300; yy++)
        for (int xx = 0; xx < 400; xx++)
            red += near(pixel(img, xx, yy), 0xd62728, 30);
    for (int yy = 120; yy < 180; yy++)
        for (int xx = 500; xx < 700; xx++)
            text += luminance(pixel(img, xx, yy)) < 200;
    CHECK(red > 100, "only %d pixels of the curve's colour", red);
    CHECK(text > 20, "the empty chart does not say so");
    cairo_surface_destroy(img);
}

/* A log x axis (a regularisation path's rho1) puts 10 halfway between 1
 * and 100, where a linear one would put it near 1: the peak of a curve at
 * x = 10 is found in the middle of the frame. */
static void check_logx(const char *dir)
{
    char path[4096], err[512];
    snprintf(path, sizeof path, "%s/logx.png", dir);
    double x[] = {1, 10, 100}, y[] = {1, 5, 1};
    cplot_series s = {NULL, x, y, 3, 0xd62728, 0};
    cplot_chart c = {0, 0, 400, 300, NULL, "rho1", "y", 0, 0, NULL, NULL, 0, NULL, 1, 1, x, 3};
    cplot *p;
    CHECK(cplot_open(path, 400, 300, &p, err, sizeof err) == 0, "open: %s", err);
    if (test_failures)
        return;
    cplot_lines(cplot_cr(p), &c, &s, 1);
    CHECK(cplot_close(p, err, sizeof err) == 0, "close: %s", err);
    cairo_surface_t *img = load(path);
    int top = -1, at = -1;
    for (int yy = 0; yy < 300 && top < 0; yy++)
        for (int xx = 0; xx < 400; xx++)
            if (near(pixel(img, xx, yy), 0xd62728, 30)) {
                top = yy;
                at = xx;
                break;
            }
    /* the frame spans x 64..386; with 4 % of margin on each side 10 is at 225 */
    CHECK(top >= 0 && at >= 215 && at <= 235, "peak at x = %d (row %d), not near 225", at, top);
    cairo_surface_destroy(img);
}

static void check_files(const char *dir)
{
    char path[4096], err[512];
    snprintf(path, sizeof path, "%s/t.svg", dir);
    cplot *p;
    CHECK(cplot_open(path, 300, 200, &p, err, sizeof err) == 0, "open: %s", err);
    if (!test_failures) {
        cplot_text(cplot_cr(p), 10, 10, "hello", 12, 0, 0, 0, 0);
        CHECK(cplot_close(p, err, sizeof err) == 0, "close: %s", err);
        FILE *f = fopen(path, "r");
        char head[512] = "";
        CHECK(f != NULL, "%s not written", path);
        if (f) {
            size_t n = fread(head, 1, sizeof head - 1, f);
            head[n] = '\0';
            fclose(f);
        }
        CHECK(strncmp(head, "<?xml", 5) == 0, "not XML: %.40s", head);
        CHECK(strstr(head, "width=\"300px\"") && strstr(head, "height=\"200px\""),
              "SVG size not in px: %.200s", head);
    }
    /* nothing is written where the directory does not exist, and the
     * message names the file */
    snprintf(path, sizeof path, "%s/no/such/dir/x.png", dir);
    CHECK(cplot_open(path, 10, 10, &p, err, sizeof err) == 0, "open: %s", err);
    if (!test_failures) {
        CHECK(cplot_close(p, err, sizeof err) != 0, "writing into a missing directory succeeded");
        CHECK(strstr(err, path) != NULL, "message does not name the file: %s", err);
        CHECK(access(path, F_OK) != 0, "file exists");
    }
    cplot_discard(NULL);
    CHECK(cplot_close(NULL, err, sizeof err) == 0, "close(NULL)");
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--inked") == 0)
        return inked(argv[2]);
    if (argc != 2) {
        fprintf(stderr, "usage: test_plot DIR | test_plot --inked PNG\n");
        return 2;
    }
    check_fmt();
    check_colours();
    check_heatmap(argv[1]);
    check_lines(argv[1]);
    check_logx(argv[1]);
    check_files(argv[1]);
    return test_failures ? 1 : 0;
}
