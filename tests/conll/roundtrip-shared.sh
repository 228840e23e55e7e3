# Round trips of the full shared corpora (read from $CRFP_SHARED_DATA, never
# copied into the tree): CoNLL-2000 test and EWT dev, directly and through
# XML, must come back byte for byte.
. "$top_srcdir/tests/conll/common.sh"

c2k=${CRFP_SHARED_DATA:-/nonexistent}/conll2000/test.txt
ewt=${CRFP_SHARED_DATA:-/nonexistent}/ud_english_ewt/en_ewt-ud-dev.conllu
if [ ! -r "$c2k" ] || [ ! -r "$ewt" ]; then
    echo "shared data not found under ${CRFP_SHARED_DATA:-(unset)}: skipping" >&2
    exit 77
fi

convert --from conll --to conll "$c2k" "$work/c2k.txt"
same_bytes "$c2k" "$work/c2k.txt" "conll2000 conll -> conll"
convert --from conll --to xml --columns word,pos,chunk "$c2k" "$work/c2k.xml"
convert --from xml --to conll "$work/c2k.xml" "$work/c2k2.txt"
same_bytes "$c2k" "$work/c2k2.txt" "conll2000 conll -> xml -> conll"

convert --from conllu --to conllu "$ewt" "$work/dev.conllu"
same_bytes "$ewt" "$work/dev.conllu" "EWT dev conllu -> conllu"
convert --from conllu --to xml "$ewt" "$work/dev.xml"
convert --from xml --to conllu "$work/dev.xml" "$work/dev2.conllu"
same_bytes "$ewt" "$work/dev2.conllu" "EWT dev conllu -> xml -> conllu"
exit 0
