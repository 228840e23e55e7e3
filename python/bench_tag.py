#!/usr/bin/env python3
"""Tagging speed of the Python bindings against the crfpipe program on the
CoNLL-2000 test set (research use only: read in place, never copied).

    PYTHONPATH=... python3 python/bench_tag.py --data ../shared/data \\
        --crfpipe build/core/crfpipe [--threads 1] [--repeat 5]

Trains a chunker with the program if --model is not given, then times, per
token: `crfpipe tag` (whole run: model load, reading, tagging, writing), and
Tagger.tag_batch on the sentences already in Python lists, in batches of
several sizes, plus Tagger.open + tag_batch (the load included).  Checks
that both give the same labels.  Prints the overhead of Python over the
program; the target is at most 20 %.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

# This file sits next to the package's sources, which lack the built
# extension: import the crfpipe found on PYTHONPATH instead.
if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
    sys.path.pop(0)
import crfpipe  # noqa: E402


def read_conll(path):
    sents, cur = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            fields = line.split()
            if not fields:
                if cur:
                    sents.append(cur)
                    cur = []
                continue
            cur.append(tuple(fields))
    if cur:
        sents.append(cur)
    return sents


def best_of(n, fn):
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.join(here, "..", "..", "shared", "data"))
    ap.add_argument("--crfpipe", default=os.environ.get("CRFPIPE", "crfpipe"))
    ap.add_argument("--model")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    test = os.path.join(args.data, "conll2000", "test.txt")
    train = os.path.join(args.data, "conll2000", "train.txt")
    tmp = tempfile.mkdtemp(prefix="crfpipe-bench-")
    model = args.model
    if not model:
        model = os.path.join(tmp, "chunk.model")
        tpl = os.path.join(here, "..", "samples", "chunking", "chunking.tpl")
        print("training a chunker on %s ..." % train, file=sys.stderr)
        subprocess.run([args.crfpipe, "--quiet", "train", "--template", tpl, "--columns",
                        "word,pos,chunk", "--model", model, train], check=True)

    sents = read_conll(test)
    ntok = sum(map(len, sents))
    xs = [[(w, p) for w, p, _ in s] for s in sents]
    out = os.path.join(tmp, "out.txt")

    def cli():
        subprocess.run([args.crfpipe, "tag", "--threads", str(args.threads), "--columns",
                        "word,pos,chunk", "--model", model, "-o", out, test], check=True)

    t_cli = best_of(args.repeat, cli)
    cli_labels = [[line.split()[-1] for line in block.split("\n") if line]
                  for block in open(out, encoding="utf-8").read().split("\n\n") if block.strip()]

    tagger = crfpipe.Tagger().open(model)
    got = tagger.tag_batch(xs, args.threads)
    assert got == cli_labels, "Python and the program disagree"

    rows = [("crfpipe tag (load, read, tag, write)", t_cli)]
    for size in (len(xs), 1000, 100):
        def batches(size=size):
            for i in range(0, len(xs), size):
                tagger.tag_batch(xs[i:i + size], args.threads)
        rows.append(("tag_batch, batches of %d sentences" % size, best_of(args.repeat, batches)))
    rows.append(("Tagger.open + tag_batch(all)", best_of(
        args.repeat, lambda: crfpipe.Tagger().open(model).tag_batch(xs, args.threads))))
    rows.append(("tag(), one sentence at a time", best_of(
        max(1, args.repeat // 2), lambda: [tagger.tag(x) for x in xs])))

    print("CoNLL-2000 test: %d sentences, %d tokens, %d thread(s)" % (len(xs), ntok, args.threads))
    print("%-40s %10s %12s %10s" % ("", "seconds", "us/token", "vs CLI"))
    for name, t in rows:
        print("%-40s %10.3f %12.3f %+9.1f%%" % (name, t, 1e6 * t / ntok, 100 * (t / t_cli - 1)))


if __name__ == "__main__":
    main()
