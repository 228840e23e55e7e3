/* Fuzz target: the conllu_reader and conllu_writer plugins (see fuzzcols.c). */
#include "fuzzhost.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_columns(data, size, "conllu_reader", "conllu_writer");
    return 0;
}
