/* Fuzz target: the gate_reader and gate_writer plugins (see roundtrip.c).
 *
 * GATE XML comes from other tools and is read as hostile input: nodes,
 * offsets, feature classes and collection items are all the file's word.
 * Whatever the reader accepts, gate_writer must write so that the reader
 * gets the same document back (text, sets, annotations with their ids,
 * offsets and typed features, metadata, the sets' processors). */
#include "fuzzhost.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_roundtrip(data, size, "gate_reader", "gate_writer", NULL, NULL, 0);
    return 0;
}
