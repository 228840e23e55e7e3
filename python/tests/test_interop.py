"""Models cross between the bindings and the crfpipe program: what one
trains the other tags identically."""
import os
import subprocess

import pytest

import crfpipe
from conftest import CONLLU, POS, TINY_TPL, read_conllu, xseq_of

CRFPIPE = os.environ.get("CRFPIPE")
pytestmark = pytest.mark.skipif(not CRFPIPE, reason="needs the crfpipe program ($CRFPIPE)")


def cli(*args, **kw):
    return subprocess.run([CRFPIPE, *args], check=True, capture_output=True, text=True, **kw)


def last_column(text):
    return [[line.split()[-1] for line in block.split("\n") if line]
            for block in text.split("\n\n") if block.strip()]


def test_cli_model_in_python(tmp_path):
    model = str(tmp_path / "cli.model")
    cli("--quiet", "train", "--template", TINY_TPL, "--label", "upos", "--threads", "1",
        "--max-iter", "10", "--model", model, os.path.join(POS, "train.conllu"))
    out = cli("tag", "--model", model, "--to", "conll", os.path.join(POS, "test.conllu")).stdout
    want = last_column(out)
    test = read_conllu(os.path.join(POS, "test.conllu"))
    # the CoNLL-U reader's column names, which the template's %x[0,form] uses
    tagger = crfpipe.Tagger().open(model, columns=CONLLU)
    got = tagger.tag_batch([rows for rows, _ in test])
    assert got == want
    # dicts name their columns themselves
    assert tagger.tag([dict(zip(CONLLU, r)) for r in test[0][0]]) == want[0]


def test_python_models_with_the_cli(tmp_path, ewt, attr_model):
    path = attr_model[0]
    test = ewt["test"][:100]
    tagger = crfpipe.Tagger().open(path)
    want = tagger.tag_batch([xseq_of(rows) for rows, _ in test])
    # the same attributes as a file the attributes plugin reads: one cell
    # of space-separated attributes per token, tab-separated columns
    data = tmp_path / "test.tsv"
    with open(data, "w") as f:
        for rows, ys in test:
            for t, yy in enumerate(ys):
                f.write(" ".join(xseq_of(rows)[t]) + "\t" + yy + "\n")
            f.write("\n")
    pipe = tmp_path / "tag.xml"
    pipe.write_text("""<pipeline xmlns="urn:crfpipe:pipeline:1">
  <stage plugin="conll_reader"><param name="columns" value="attrs,gold"/>
    <param name="separator" value="tab"/></stage>
  <stage plugin="viterbi"><param name="model" value="%s"/></stage>
  <stage plugin="conll_writer"/>
</pipeline>""" % path)
    out = cli("run", str(pipe), "-i", str(data)).stdout
    assert last_column(out) == want
    # and the evaluate plugin's report on it agrees with Python's accuracy
    pipe.write_text(pipe.read_text().replace('<stage plugin="conll_writer"/>',
                                             '<stage plugin="evaluate"><param name="gold" '
                                             'value="gold"/></stage>'))
    report = cli("run", str(pipe), "-i", str(data)).stdout
    gold = [ys for _, ys in test]
    acc = sum(p == g for ps, gs in zip(want, gold) for p, g in zip(ps, gs)) / sum(map(len, gold))
    assert "token accuracy:    %6.2f%%" % (100 * acc) in report


def test_template_model_with_the_cli(tmp_path, ewt):
    path = str(tmp_path / "tpl.model")
    # the template's column names resolve to positions when the model is
    # trained: the CoNLL-U columns, in the order crfpipe's reader gives them
    tr = crfpipe.Trainer(verbose=False, template=TINY_TPL, columns=CONLLU,
                         params={"max_iterations": 8, "threads": 1})
    for rows, y in ewt["train"][:500]:
        tr.append(rows, y)
    tr.train(path)
    tagger = crfpipe.Tagger().open(path)
    assert tagger.model.columns == CONLLU
    want = tagger.tag_batch([rows for rows, _ in ewt["test"]])
    out = cli("tag", "--model", path, "--to", "conll", os.path.join(POS, "test.conllu")).stdout
    assert last_column(out) == want
