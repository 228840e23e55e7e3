/* Fuzz target: the conllu_reader and conllu_writer plugins (see roundtrip.c). */
#include "fuzzhost.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[] = {"unrepresentable"}, *const values[] = {"error"};
    fz_roundtrip(data, size, "conllu_reader", "conllu_writer", names, values, 1);
    return 0;
}
