/* Plugin loading with real modules: a good one, broken ones, a missing one,
 * and the good one without its .la file. */
#include "config.h"
#include "crfpipe/host.h"
#include "check.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MODDIR CRFP_ABS_BUILDDIR "/tests/host"

static int copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb");
    if (!in)
        return 0;
    FILE *out = fopen(to, "wb");
    if (!out) {
        fclose(in);
        return 0;
    }
    char buf[8192];
    size_t n;
    int ok = 1;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        ok &= fwrite(buf, 1, n, out) == n;
    ok &= !ferror(in);
    fclose(in);
    ok &= fclose(out) == 0;
    return ok;
}

typedef struct scan_errs {
    int n;
    int saw[7]; /* nodesc, badabi, initfail, misname, badkind, novt, future */
} scan_errs;

static void on_err(void *ud, const char *file, const char *msg)
{
    scan_errs *e = ud;
    static const char *const names[] = {"tp_nodesc", "tp_badabi", "tp_initfail", "tp_misname",
                                        "tp_badkind", "tp_novt", "tp_future"};
    e->n++;
    for (int i = 0; i < 7; i++)
        if (contains(file, names[i]) && contains(msg, names[i]))
            e->saw[i]++;
}

static void check_broken(int *f, crfp_host *h)
{
    const crfp_plugin *p = (const crfp_plugin *)1;

    CHECK(f, crfp_host_load(h, "tp_nodesc", &p) == CRFP_EABI);
    CHECK(f, p == NULL);
    CHECK_MSG(f, h, "no crfp_plugin descriptor");
    CHECK_MSG(f, h, MODDIR "/tp_nodesc");

    CHECK(f, crfp_host_load(h, "tp_badabi", &p) == CRFP_EABI);
    CHECK_MSG(f, h, "tp_badabi");
    CHECK_MSG(f, h, "built for ABI 43.0");
    char want[64];
    snprintf(want, sizeof want, "supports %u.0 to %u.%u", CRFP_ABI_MAJOR, CRFP_ABI_MAJOR,
             CRFP_ABI_MINOR);
    CHECK_MSG(f, h, want);

    /* A newer minor version than the host's is refused; a missing required
     * vtable member is named. */
    CHECK(f, crfp_host_load(h, "tp_future", &p) == CRFP_EABI);
    snprintf(want, sizeof want, "built for ABI %u.%u", CRFP_ABI_MAJOR, CRFP_ABI_MINOR + 1);
    CHECK_MSG(f, h, want);
    CHECK(f, crfp_host_load(h, "tp_novt", &p) == CRFP_EABI);
    CHECK_MSG(f, h, "tagger vtable");
    CHECK_MSG(f, h, "lacks the required member 'process'");

    CHECK(f, crfp_host_load(h, "tp_initfail", &p) == CRFP_EPLUGIN);
    CHECK_MSG(f, h, MODDIR "/tp_initfail");
    CHECK_MSG(f, h, "tp_initfail: resource table missing");
    /* Failures are not cached: the second attempt fails the same way. */
    CHECK(f, crfp_host_load(h, "tp_initfail", &p) == CRFP_EPLUGIN);

    CHECK(f, crfp_host_load(h, "tp_misname", &p) == CRFP_EABI);
    CHECK_MSG(f, h, "descriptor names plugin 'someone_else' but the module is 'tp_misname'");
    CHECK_MSG(f, h, MODDIR "/tp_misname");

    CHECK(f, crfp_host_load(h, "tp_badkind", &p) == CRFP_EABI);
    CHECK_MSG(f, h, "unknown kind 99");

    CHECK(f, crfp_host_load(h, "tp_missing", &p) == CRFP_ENOTFOUND);
    CHECK_MSG(f, h, "plugin 'tp_missing' not found");
    CHECK_MSG(f, h, MODDIR);
    CHECK_MSG(f, h, CRFP_PKGLIBDIR);

    static const char *const invalid[] = {"../tp_good", "", "9lives", "a/b", "tp good"};
    for (size_t i = 0; i < sizeof invalid / sizeof *invalid; i++) {
        CHECK(f, crfp_host_load(h, invalid[i], &p) == CRFP_EINVAL);
        CHECK_MSG(f, h, "is not valid");
    }
    CHECK(f, crfp_host_load(h, NULL, &p) == CRFP_EINVAL);
}

int main(void)
{
    int fails = 0;
    int *f = &fails;
    crfp_host *h = crfp_host_new();
    if (!h)
        return 1;
    CHECK(f, crfp_host_add_plugin_dir(h, MODDIR) == CRFP_OK);

    const crfp_plugin *p = NULL, *q = NULL;
    CHECK(f, crfp_host_load(h, "tp_good", &p) == CRFP_OK);
    CHECK(f, p != NULL);
    if (p) {
        CHECK(f, strcmp(p->desc->name, "tp_good") == 0);
        CHECK(f, p->desc->kind == CRFP_KIND_TAGGER);
        CHECK(f, p->desc->nparams == 3);
        CHECK(f, contains(p->file, MODDIR "/tp_good"));
    }
    CHECK(f, crfp_host_load(h, "tp_good", &q) == CRFP_OK && q == p);
    CHECK(f, crfp_host_load_kind(h, "tp_good", CRFP_KIND_TAGGER, &q) == CRFP_OK && q == p);
    CHECK(f, crfp_host_load_kind(h, "tp_good", CRFP_KIND_READER, &q) == CRFP_EINVAL);
    CHECK_MSG(f, h, "plugin 'tp_good' is a tagger, not a reader");

    /* Users may write '-' for '_' (--trainer sgd-l1). */
    CHECK(f, crfp_host_load(h, "tp-good", &q) == CRFP_OK && q == p);

    /* A 2.2 stage without the optional concurrent process: the pipeline
     * then feeds it one document at a time. */
    if (p) {
        const crfp_stage_vtable *sv = p->desc->vtable;
        CHECK(f, !CRFP_VT_HAS(sv, crfp_stage_vtable, process_concurrent));
    }

    /* A reader built against ABI 2.0 loads in this newer host unchanged: its
     * vtable is smaller (no probe), and the host reads only what it has. */
    const crfp_plugin *old = NULL;
    CHECK(f, crfp_host_load(h, "tp_abi20", &old) == CRFP_OK);
    if (old) {
        const crfp_reader_vtable *rv = old->desc->vtable;
        CHECK(f, old->desc->abi_major == 2 && old->desc->abi_minor == 0);
        CHECK(f, rv->size < sizeof(crfp_reader_vtable));
        CHECK(f, rv->size == offsetof(crfp_reader_vtable, probe));
        CHECK(f, !CRFP_VT_HAS(rv, crfp_reader_vtable, probe));
        /* Its declared format and extension are found through the registry. */
        const crfp_plugin *r = NULL;
        CHECK(f, crfp_host_find_format(h, CRFP_KIND_READER, "tp-old", &r) == CRFP_OK && r == old);
        CHECK(f, crfp_host_format_for_path(h, CRFP_KIND_READER, "x/y.TPOLD", &r) == CRFP_OK &&
                     r == old);
        CHECK(f, crfp_host_find_format(h, CRFP_KIND_READER, "nonesuch", &r) == CRFP_ENOTFOUND);
        CHECK_MSG(f, h, "unknown input format 'nonesuch'");
        CHECK_MSG(f, h, "tp-old");
        /* Content sniffing asks only the readers that have a probe (the
         * build tree's, found by the scan); the 2.0 module is skipped. */
        static const char head[] = "<?xml version=\"1.0\"?>\n<corpus>\n";
        int conf = 0;
        CHECK(f, crfp_host_sniff_reader(h, head, sizeof head - 1, &r, &conf) == CRFP_OK && r &&
                     strcmp(crfp_plugin_format(r), "xml") == 0 && conf == 100);
    }

    check_broken(f, h);

    /* Scan: tp_good listed, each broken module reported once, no crash. */
    const crfp_plugin **list;
    size_t n;
    scan_errs errs = {0, {0}};
    CHECK(f, crfp_host_scan(h, &list, &n, on_err, &errs) == CRFP_OK);
    int good = 0;
    for (size_t i = 0; i < n; i++)
        good += strcmp(list[i]->desc->name, "tp_good") == 0;
    CHECK(f, good == 1);
    for (int i = 0; i < 7; i++)
        CHECK(f, errs.saw[i] == 1);
    CHECK(f, errs.n >= 7);
    /* The good module is still the same one after the scan. */
    CHECK(f, crfp_host_load(h, "tp_good", &q) == CRFP_OK && q == p);
    crfp_host_free(h);

    /* Without the .la file, as distributions ship modules. */
    char tmpl[] = "/tmp/crfp-registry-XXXXXX";
    char *dir = mkdtemp(tmpl);
    CHECK(f, dir != NULL);
    if (dir) {
        char so[512], renamed[512], garbage[512];
        snprintf(garbage, sizeof garbage, "%s/tp_garbage.so", dir);
        snprintf(so, sizeof so, "%s/tp_good.so", dir);
        snprintf(renamed, sizeof renamed, "%s/tp_alias.so", dir);
        CHECK(f, copy_file(MODDIR "/.libs/tp_good.so", so));
        CHECK(f, copy_file(MODDIR "/.libs/tp_good.so", renamed));
        crfp_host *h2 = crfp_host_new();
        CHECK(f, h2 && crfp_host_add_plugin_dir(h2, dir) == CRFP_OK);
        if (h2) {
            CHECK(f, crfp_host_load(h2, "tp_good", &p) == CRFP_OK);
            CHECK(f, p && strcmp(p->file, so) == 0);
            CHECK(f, p && strcmp(p->desc->name, "tp_good") == 0);
            /* A copy under another name does not carry a descriptor for
             * that name (its symbol is tp_good_LTX_crfp_plugin). */
            CHECK(f, crfp_host_load(h2, "tp_alias", &q) == CRFP_EABI);
            CHECK_MSG(f, h2, renamed);
            /* A file that is not a shared object at all. */
            FILE *g = fopen(garbage, "w");
            CHECK(f, g != NULL);
            if (g) {
                fputs("this is not an ELF file\n", g);
                fclose(g);
            }
            CHECK(f, crfp_host_load(h2, "tp_garbage", &q) == CRFP_EPLUGIN);
            CHECK_MSG(f, h2, garbage);
            /* dlopen's reason, not the "file not found" of libltdl's last
             * loader. */
            CHECK_MSG(f, h2, "not a loadable module");
            CHECK(f, !contains(crfp_errmsg(h2), "file not found"));
            crfp_host_free(h2);
        }
        unlink(so);
        unlink(renamed);
        unlink(garbage);
        CHECK(f, rmdir(dir) == 0);
    }
    if (fails)
        fprintf(stderr, "%d check(s) failed\n", fails);
    return fails ? 1 : 0;
}
