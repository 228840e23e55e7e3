#!/bin/bash
# CoNLL-2000 chunking end to end.  The corpus is research-use only and not
# shipped: pass the directory that holds conll2000/{train,test}.txt.
#   samples/chunking/run.sh ../shared/data [extra train options, e.g. --rho1 0.5]
set -euo pipefail
data=${1:?usage: run.sh DATA_DIR [train options]}
shift
cd "$(dirname "$0")/../.."
CRFPIPE=${CRFPIPE:-core/crfpipe}
out=samples/out
mkdir -p "$out"
"$CRFPIPE" train --template samples/chunking/chunking.tpl --columns word,pos,chunk \
    --model "$out/chunking.model" "$@" "$data/conll2000/train.txt"
"$CRFPIPE" tag --model "$out/chunking.model" --columns word,pos,chunk \
    -o "$out/chunking-test.txt" "$data/conll2000/test.txt"
"$CRFPIPE" eval "$out/chunking-test.txt"
