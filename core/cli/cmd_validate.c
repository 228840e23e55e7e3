/* crfpipe validate — check XML files against the document or pipeline
 * schema, reporting every error as file:line. */
#include "config.h"
#include "cli.h"
#include "help.h"

#include <string.h>

int cmd_validate(crfp_host *host, int argc, char **argv)
{
    const char *schema = NULL; /* chosen per file by its root element */
    if (cli_wants_help(argc, argv))
        return cli_help(host, argc, argv);
    int i = 1;
    for (; i < argc; i++) {
        const char *v;
        int r = cli_opt(argv[0], argc, argv, &i, "schema", &v);
        if (r < 0)
            return CLI_USAGE;
        if (r > 0) {
            if (strcmp(v, "document") != 0 && strcmp(v, "pipeline") != 0)
                return cli_usage(argv[0], "--schema must be 'document' or 'pipeline', not '%s'", v);
            schema = v;
            continue;
        }
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        if (argv[i][0] == '-' && argv[i][1] != '\0')
            return cli_unknown_option(host, argc, argv, argv[i]);
        break;
    }
    if (i >= argc)
        return cli_usage(argv[0], "no file to validate");
    int rc = CLI_OK;
    for (; i < argc; i++) {
        if (crfp_xml_validate_file(host, argv[i], schema) == CRFP_OK) {
            printf("%s: valid\n", argv[i]);
        } else {
            fprintf(stderr, "%s\n", crfp_errmsg(host));
            printf("%s: invalid\n", argv[i]);
            rc = CLI_FAIL;
        }
    }
    if (fflush(stdout) != 0)
        rc = CLI_FAIL;
    return rc;
}
