/* names — lists of names given as one parameter ("PER,LOC"), and the
 * document id a file name gives; shared by the readers and writers that
 * take such lists (markup_reader, markup_writer, gate_writer).
 */
#ifndef CRFPIPE_COMMON_NAMES_H
#define CRFPIPE_COMMON_NAMES_H

/* The comma-separated items of s as a NULL-terminated array of copies
 * (free with names_free).  keep_empty: items are kept as written, so ""
 * is one empty item (a set name); otherwise blanks around items are
 * trimmed and empty items dropped, so "" is the empty list.  NULL when
 * memory runs out. */
char **names_split(const char *s, int keep_empty);
void names_free(char **list);   /* NULL accepted */
/* Whether name is in list (NULL: no), compared exactly or ignoring ASCII
 * case. */
int names_has(char *const *list, const char *name, int nocase);
/* The id of the document a stream holds when it is one document: the base
 * name of the file ("<stdin>" gives "stdin"), as valid UTF-8 (a file name
 * may be any bytes).  malloc'd; NULL when memory runs out. */
char *names_docid(const char *stream_name);

#endif
