/* Fuzz target: the conll_reader and conll_writer plugins (see fuzzcols.c). */
#include "fuzzhost.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_columns(data, size, "conll_reader", "conll_writer");
    return 0;
}
