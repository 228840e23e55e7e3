"""Shared data for the binding tests: the EWT excerpt shipped in samples/pos
(CoNLL-U), read here with a few lines of Python."""
import os

import pytest

SRC = os.environ.get("top_srcdir", os.path.join(os.path.dirname(__file__), "..", ".."))
POS = os.path.join(SRC, "samples", "pos")
TINY_TPL = os.path.join(SRC, "tests", "pipeline", "tiny.tpl")
CONLLU = ("id", "form", "lemma", "upos", "xpos", "feats", "head", "deprel", "deps", "misc")


def read_conllu(path, limit=None):
    """[(rows, upos)] with rows the 10 columns of each word (multiword ranges
    and empty nodes left out, as crfpipe's reader keeps them apart)."""
    sents, rows = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                if rows:
                    sents.append((rows, [r[3] for r in rows]))
                    rows = []
                    if limit and len(sents) == limit:
                        break
                continue
            if line.startswith("#"):
                continue
            cols = line.split("\t")
            if "-" in cols[0] or "." in cols[0]:
                continue
            rows.append(tuple(cols))
    if rows and not (limit and len(sents) == limit):
        sents.append((rows, [r[3] for r in rows]))
    return sents


def attrs(rows, t):
    """CRFsuite-style attributes of word t: what a python-crfsuite user
    writes."""
    w = rows[t][1]
    a = ["w=" + w.lower(), "suf3=" + w[-3:].lower(), "suf2=" + w[-2:].lower(), "bias"]
    if w[:1].isupper():
        a.append("title")
    if w.isdigit():
        a.append("digit")
    a.append("w-1=" + (rows[t - 1][1].lower() if t > 0 else "<s>"))
    a.append("w+1=" + (rows[t + 1][1].lower() if t + 1 < len(rows) else "</s>"))
    return a


def xseq_of(rows):
    return [attrs(rows, t) for t in range(len(rows))]


@pytest.fixture(scope="session")
def ewt():
    return {
        "train": read_conllu(os.path.join(POS, "train.conllu"), 1500),
        "dev": read_conllu(os.path.join(POS, "dev.conllu"), 300),
        "test": read_conllu(os.path.join(POS, "test.conllu")),
    }


@pytest.fixture(scope="session")
def attr_model(ewt, tmp_path_factory):
    """An attribute model trained once for the session."""
    import crfpipe
    path = str(tmp_path_factory.mktemp("m") / "attr.model")
    tr = crfpipe.Trainer(verbose=False)
    for rows, y in ewt["train"]:
        tr.append(xseq_of(rows), y)
    for rows, y in ewt["dev"]:
        tr.append(xseq_of(rows), y, group=1)
    tr.set_params({"c2": 0.3, "max_iterations": 25, "threads": 1})
    tr.train(path, holdout=1)
    return path, tr.iterations


def accuracy(pred, gold):
    total = sum(len(g) for g in gold)
    return sum(p == q for ps, gs in zip(pred, gold) for p, q in zip(ps, gs)) / total
