/* crfpipe run PIPELINE.xml [-i IN] [IN...] [-o OUT | --output-dir DIR] [--threads N] */
#include "config.h"
#include "cli.h"
#include "help.h"
#include "progress.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Shared by run, train and tag: stream `in` through `p` into `outpath`
 * (committed only on success). */
int cli_run_pipeline(crfp_host *host, crfp_pipeline *p, const char *inpath, const char *outpath)
{
    crfp_stream in;
    cli_output out;
    if (cli_input_open(host, &in, inpath) != CRFP_OK)
        return cli_fail(host);
    int training = crfp_pipeline_is_training(p);
    if (!training && cli_output_open_over(host, &out, outpath, inpath) != CRFP_OK) {
        cli_input_close(&in);
        return cli_fail(host);
    }
    /* Training prints a line per iteration instead of a bar. */
    cli_progress *bar = training ? NULL : cli_progress_start(host, in.fp, "crfpipe");
    crfp_status st = crfp_pipeline_run(p, &in, training ? NULL : &out.stream);
    cli_progress_end(bar);
    cli_input_close(&in);
    /* A stage that failed without recording why (a writer out of memory)
     * must not be reported as "ok". */
    if (st != CRFP_OK && (crfp_errcode(host) == CRFP_OK || !*crfp_errmsg(host)))
        crfp_error_wrap(host, st, "%s", outpath && strcmp(outpath, "-") ? outpath : "pipeline");
    if (training)
        return st == CRFP_OK ? CLI_OK : cli_fail(host);
    if (st != CRFP_OK) {
        cli_output_abort(&out);
        return cli_fail(host);
    }
    if (cli_output_commit(host, &out) != CRFP_OK)
        return cli_fail(host);
    return CLI_OK;
}

/* DIR/STEM.EXT for input `in`: STEM is its base name without the
 * extension its reader declares (else without its last ".xxx"), EXT the
 * writer's first declared extension.  malloc'd; NULL when out of memory. */
static char *output_name(const char *dir, const char *in, const crfp_plugin *reader,
                         const crfp_plugin *writer)
{
    const char *base = strrchr(in, '/');
    base = base ? base + 1 : in;
    size_t n = strlen(base), cut = crfp_plugin_ext_match(reader, base);
    if (!cut) {
        const char *dot = strrchr(base, '.');
        if (dot && dot != base)
            cut = n - (size_t)(dot - base);
    }
    const char *ext = writer->desc->extensions && writer->desc->extensions[0]
                          ? writer->desc->extensions[0]
                          : "";
    size_t len = strlen(dir) + 1 + (n - cut) + strlen(ext) + 1;
    char *out = malloc(len);
    if (out)
        snprintf(out, len, "%s/%.*s%s", dir, (int)(n - cut), base, ext);
    return out;
}

int cli_run_many(crfp_host *host, crfp_pipeline *p, const char *cmd, const char *const *inputs,
                 size_t nin, const char *outpath, const char *outdir)
{
    int training = crfp_pipeline_is_training(p);
    if (training && (outdir || outpath))
        return cli_usage(cmd, "a pipeline that trains writes no documents: no -o or "
                         "--output-dir");
    /* said before anything is read (crfp_pipeline_feed would refuse the
     * second input only after the first) */
    if (training && nin > 1 && crfp_dist_size() > 1)
        return cli_usage(cmd, "a distributed training run reads one input: join the files "
                         "into one");
    char **names = NULL;
    if (outdir) {
        struct stat sb;
        /* a missing directory is made (its parent must exist) */
        if (stat(outdir, &sb) != 0 && errno == ENOENT && mkdir(outdir, 0777) != 0) {
            crfp_error(host, CRFP_EIO, "--output-dir %s: %s", outdir, strerror(errno));
            return cli_fail(host);
        }
        if (stat(outdir, &sb) != 0 || !S_ISDIR(sb.st_mode))
            return cli_usage(cmd, "--output-dir %s: not a directory", outdir);
        const crfp_plugin *reader = crfp_pipeline_plugin(p, CRFP_KIND_READER),
                          *writer = crfp_pipeline_plugin(p, CRFP_KIND_WRITER);
        /* the pipeline's defaults: XML in, XML out */
        if ((!reader && crfp_host_find_format(host, CRFP_KIND_READER, "xml", &reader) != CRFP_OK) ||
            (!writer && crfp_host_find_format(host, CRFP_KIND_WRITER, "xml", &writer) != CRFP_OK))
            return cli_fail(host);
        if (!(names = calloc(nin, sizeof *names))) {
            crfp_error(host, CRFP_ENOMEM, "out of memory");
            return cli_fail(host);
        }
        int rc = CLI_OK;
        for (size_t i = 0; i < nin && rc == CLI_OK; i++) {
            if (strcmp(inputs[i], "-") == 0) {
                rc = cli_usage(cmd, "--output-dir names each output after its input: not "
                               "stdin");
            } else if (!(names[i] = output_name(outdir, inputs[i], reader, writer))) {
                crfp_error(host, CRFP_ENOMEM, "out of memory");
                rc = cli_fail(host);
            }
            for (size_t k = 0; k < i && rc == CLI_OK; k++)
                if (strcmp(names[k], names[i]) == 0)
                    rc = cli_usage(cmd, "%s and %s would both be written to %s", inputs[k],
                                   inputs[i], names[i]);
            struct stat a, b;
            if (rc == CLI_OK && stat(inputs[i], &a) == 0 && stat(names[i], &b) == 0 &&
                a.st_dev == b.st_dev && a.st_ino == b.st_ino)
                rc = cli_usage(cmd, "%s would be overwritten by its own output", inputs[i]);
        }
        if (rc != CLI_OK) {
            for (size_t i = 0; i < nin; i++)
                free(names[i]);
            free(names);
            return rc;
        }
    }
    cli_output common;
    int have_common = !training && !outdir;
    crfp_status st = CRFP_OK;
    for (size_t i = 0; have_common && i < nin && st == CRFP_OK; i++)
        st = cli_not_input(host, outpath, inputs[i]);
    if (st != CRFP_OK) {
        for (size_t i = 0; names && i < nin; i++)
            free(names[i]);
        free(names);
        return cli_fail(host);
    }
    st = have_common ? cli_output_open(host, &common, outpath) : CRFP_OK;
    if (st == CRFP_OK)
        st = crfp_pipeline_begin(p, have_common ? &common.stream : NULL);
    else
        have_common = 0;
    for (size_t i = 0; st == CRFP_OK && i < nin; i++) {
        crfp_stream in;
        cli_output o;
        if ((st = cli_input_open(host, &in, inputs[i])) != CRFP_OK)
            break;
        if (names && (st = cli_output_open(host, &o, names[i])) != CRFP_OK) {
            cli_input_close(&in);
            break;
        }
        crfp_log(host, CRFP_LOG_PROGRESS, "[%zu/%zu] %s%s%s", i + 1, nin, inputs[i],
                 names ? " -> " : "", names ? names[i] : "");
        st = crfp_pipeline_feed(p, &in, names ? &o.stream : NULL);
        cli_input_close(&in);
        if (names) {
            if (st == CRFP_OK)
                st = cli_output_commit(host, &o);
            else
                cli_output_abort(&o);
        }
    }
    if (st == CRFP_OK) {
        st = crfp_pipeline_end(p, 1);
    } else if (crfp_pipeline_end(p, 0) != CRFP_OK) {
        /* ending without finishing cannot fail */
    }
    if (have_common) {
        if (st == CRFP_OK)
            st = cli_output_commit(host, &common);
        else
            cli_output_abort(&common);
    }
    for (size_t i = 0; names && i < nin; i++)
        free(names[i]);
    free(names);
    return st == CRFP_OK ? CLI_OK : cli_fail(host);
}

int cmd_run(crfp_host *host, int argc, char **argv)
{
    const char *pipe = NULL, *out = NULL, *outdir = NULL, *v;
    if (cli_wants_help(argc, argv))
        return cli_help(host, argc, argv);
    /* inputs: -i (repeatable) and the arguments after the pipeline */
    const char **inputs = calloc((size_t)argc + 1, sizeof *inputs);
    size_t nin = 0;
    if (!inputs) {
        fprintf(stderr, "crfpipe: error: out of memory\n");
        return CLI_FAIL;
    }
    int rc = -1;
    for (int i = 1; i < argc && rc < 0; i++) {
        int r;
        if (strcmp(argv[i], "-i") == 0 || strcmp(argv[i], "-o") == 0) {
            if (i + 1 >= argc)
                rc = cli_usage(argv[0], "option %s needs a file", argv[i]);
            else if (argv[i][1] == 'i')
                inputs[nin++] = argv[++i];
            else
                out = argv[++i];
        } else if ((r = cli_opt(argv[0], argc, argv, &i, "input", &v)) != 0) {
            if (r < 0)
                rc = CLI_USAGE;
            else
                inputs[nin++] = v;
        } else if ((r = cli_opt(argv[0], argc, argv, &i, "output", &v)) != 0) {
            if (r < 0)
                rc = CLI_USAGE;
            else
                out = v;
        } else if ((r = cli_opt(argv[0], argc, argv, &i, "output-dir", &v)) != 0) {
            if (r < 0)
                rc = CLI_USAGE;
            else
                outdir = v;
        } else if ((r = cli_opt(argv[0], argc, argv, &i, "threads", &v)) != 0) {
            /* The host's team: documents (a reader's batches) processed at
             * once by stages that allow it. */
            if (r < 0) {
                rc = CLI_USAGE;
            } else {
                char *end;
                long n = strtol(v, &end, 10);
                if (*end || n < 0 || n > 1024)
                    rc = cli_usage(argv[0], "--threads expects a number from 0 (all cores) to 1024");
                else
                    crfp_host_set_threads(host, (int)n);
            }
        } else if (argv[i][0] == '-' && argv[i][1]) {
            rc = cli_unknown_option(host, argc, argv, argv[i]);
        } else if (!pipe) {
            pipe = argv[i];
        } else {
            inputs[nin++] = argv[i];
        }
    }
    if (rc < 0 && !pipe)
        rc = cli_usage(argv[0], "which pipeline? usage: crfpipe run PIPELINE.xml [-i IN] [-o OUT] "
                                "[--threads N]");
    if (rc < 0 && out && outdir)
        rc = cli_usage(argv[0], "-o and --output-dir exclude each other: one output for all "
                                "inputs, or one per input");
    if (rc >= 0) {
        free(inputs);
        return rc;
    }
    crfp_pipeline *p;
    if (crfp_pipeline_load(host, pipe, &p) != CRFP_OK) {
        free(inputs);
        return cli_fail(host);
    }
    if (nin <= 1 && !outdir)
        rc = cli_run_pipeline(host, p, nin ? inputs[0] : NULL, out);
    else
        rc = cli_run_many(host, p, argv[0], nin ? inputs : (const char *[]){"-"}, nin ? nin : 1,
                          out, outdir);
    crfp_pipeline_free(p);
    free(inputs);
    return rc;
}
