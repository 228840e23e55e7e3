"""Models cross between the bindings and the crfpipe program: what one
trains the other tags identically."""
import os
import subprocess

import pytest

import crfpipe
from conftest import CONLLU, POS, SRC, TINY_TPL, read_conllu, xseq_of

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


def cs_attr(a):
    """A CRFsuite attribute as python-crfsuite takes it: the name (escapes
    "\\:" a colon, "\\\\" a backslash, another "\\" itself), or {name: weight}
    when the first colon not escaped starts a weight other than 1."""
    name, i = [], 0
    while i < len(a):
        if a[i] == "\\" and i + 1 < len(a) and a[i + 1] in ":\\":
            name.append(a[i + 1])
            i += 2
        elif a[i] == ":":
            w = float(a[i + 1:])
            return "".join(name) if w == 1.0 else {"".join(name): w}
        else:
            name.append(a[i])
            i += 1
    return "".join(name)


def _sequences(path, token_of):
    """The blank-line separated sequences of a file, each line made a token
    by token_of."""
    seqs, x = [], []
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line:
            if x:
                seqs.append(x)
            x = []
            continue
        x.append(token_of(line))
    if x:
        seqs.append(x)
    return seqs


@pytest.mark.parametrize("fixture", ["crfsuite-model", "crfsuite-valued"])
def test_crfsuite_model_opens_as_is(fixture):
    """A model file written by CRFsuite 0.12 (tests/data/crfsuite-model, and
    crfsuite-valued whose attributes have values; see their make.sh) opens in
    Tagger as python-crfsuite opens it, and tags its test data, given as
    python-crfsuite takes it (weights as dict values), as `crfsuite tag -p -i`
    did: labels, the marginal of each, and each sequence's probability."""
    d = os.path.join(SRC, "tests", "data", fixture)
    seqs = _sequences(os.path.join(d, "test.crfsuite"),
                      lambda line: [cs_attr(a) for a in line.split("\t")[1:]])
    if fixture == "crfsuite-valued":
        # weights of either sign, and of 0
        vals = [w for tok in seqs[0] for a in tok if isinstance(a, dict) for w in a.values()]
        assert min(vals) < 0 < max(vals) and 0 in vals
    want = []
    for block in open(os.path.join(d, "expected.txt"), encoding="utf-8").read().split("\n\n"):
        lines = [l for l in block.split("\n") if l]
        if not lines:
            continue
        prob = float([l for l in lines if l.startswith("@probability")][0].split("\t")[1])
        toks = [l.rsplit(":", 1) for l in lines if not l.startswith("@")]
        want.append((prob, [t[0] for t in toks], [float(t[1]) for t in toks]))
    assert len(seqs) == len(want) == 40
    tagger = crfpipe.Tagger().open(os.path.join(d, "model.crfsuite"))
    assert tagger.info()["meta"]["trainer"] == "crfsuite"
    assert tagger.tag_batch(seqs) == [labels for _, labels, _ in want]
    # the bytes of the file, as sklearn-crfsuite's pickles hold them
    with open(os.path.join(d, "model.crfsuite"), "rb") as f:
        mem = crfpipe.Tagger().open_inmemory(f.read())
    assert mem.tag_batch(seqs) == [labels for _, labels, _ in want]
    for xseq, (prob, labels, margs) in zip(seqs, want):
        tagger.set(xseq)
        assert tagger.probability(labels) == pytest.approx(prob, abs=5e-7)
        for t, (y, m) in enumerate(zip(labels, margs)):
            assert tagger.marginal(y, t) == pytest.approx(m, abs=5e-7)


def read_crfsuite(path):
    """CRFsuite data as python-crfsuite takes it: (xseq, yseq) pairs."""
    seqs, x, y = [], [], []
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line:
            if x:
                seqs.append((x, y))
            x, y = [], []
            continue
        f = line.split("\t")
        y.append(f[0])
        x.append([cs_attr(a) for a in f[1:]])
    return seqs


def test_export_for_crfsuite(tmp_path):
    """A model trained in Python on attributes with values, of CRFsuite's
    model family, written as a CRFsuite model file (Tagger.export_crfsuite)
    and opened again as one, gives the same labels and probabilities; a model
    with start weights does not fit CRFsuite's format and is refused."""
    d = os.path.join(SRC, "tests", "data", "crfsuite-valued")
    train = read_crfsuite(os.path.join(d, "train.crfsuite"))
    test = [x for x, _ in read_crfsuite(os.path.join(d, "test.crfsuite"))]
    tr = crfpipe.Trainer(verbose=False, params={"c2": 1.0, "max_iterations": 60,
                                                "all_possible_states": False,
                                                "all_possible_transitions": False})
    for x, y in train:
        tr.append(x, y)
    tr.train(str(tmp_path / "m.model"))
    ours = crfpipe.Tagger().open(str(tmp_path / "m.model"))
    ours.export_crfsuite(tmp_path / "m.crfsuite")
    with open(tmp_path / "m.crfsuite", "rb") as f:
        assert f.read(4) == b"lCRF"
    theirs = crfpipe.Tagger().open(str(tmp_path / "m.crfsuite"))
    assert theirs.info()["meta"]["trainer"] == "crfsuite"
    assert theirs.tag_batch(test) == ours.tag_batch(test)
    for xseq in test[:10]:
        ours.set(xseq)
        labels = ours.tag()
        p = ours.probability(labels)
        theirs.set(xseq)
        assert theirs.probability(labels) == pytest.approx(p, rel=1e-12)
    # every label pair and the start weights (crfpipe's default): refused
    tr2 = crfpipe.Trainer(verbose=False, params={"max_iterations": 5})
    for x, y in train[:20]:
        tr2.append(x, y)
    tr2.train(str(tmp_path / "all.model"))
    with pytest.raises(crfpipe.Error, match="start weights"):
        crfpipe.Tagger().open(str(tmp_path / "all.model")).export_crfsuite(tmp_path / "x.crfsuite")
    assert not (tmp_path / "x.crfsuite").exists()




@pytest.mark.parametrize("fixture,model,expected", [
    ("wapiti-model", "model.wap", "posterior.txt"),
    ("crfpp-model", "model", "expected.txt"),
    ("crfpp-model", "model.txt", "expected.txt"),
])
def test_wapiti_and_crfpp_models_open_as_is(fixture, model, expected):
    """A model file written by Wapiti 1.5 or CRF++ 0.59 (tests/data/*-model,
    see their make.sh) opens in Tagger, and tags tuples of the columns those
    programs read (word, PTB tag) as they did: `wapiti label -p -s`
    (posterior decoding) and `crf_test -v1`, each token's label and its
    marginal."""
    d = os.path.join(SRC, "tests", "data", fixture)
    seqs = _sequences(os.path.join(SRC, "tests", "data", "wapiti-model", "test.txt"),
                      lambda line: tuple(line.split("\t")[:2]))
    want = []
    for block in open(os.path.join(d, expected), encoding="utf-8").read().split("\n\n"):
        toks = [l.split("\t")[-1].rsplit("/", 1) for l in block.split("\n")
                if l and not l.startswith("#")]
        if toks:
            want.append(([t[0] for t in toks], [float(t[1]) for t in toks]))
    assert len(seqs) == len(want) == 40
    tagger = crfpipe.Tagger().open(os.path.join(d, model))
    assert tagger.info()["meta"]["trainer"] == ("wapiti" if fixture == "wapiti-model" else "crf++")
    decode = "posterior" if fixture == "wapiti-model" else "viterbi"
    for x, (labels, margs) in zip(seqs, want):
        assert tagger.tag(x, decode=decode) == labels
        got = [tagger.marginal(y, t) for t, y in enumerate(labels)]
        assert max(abs(a - b) for a, b in zip(got, margs)) < 1.5e-6


def _same_posteriors(tagger, seqs, toks):
    """Posterior decoding of seqs gives the labels of toks ((label,
    marginal) pairs, in order, as Wapiti printed them) and their marginals
    to Wapiti's six decimals."""
    t = 0
    for x in seqs:
        labels = tagger.tag(x, decode="posterior")
        assert labels == [y for y, _ in toks[t:t + len(x)]]
        got = [tagger.marginal(y, i) for i, y in enumerate(labels)]
        assert max(abs(a - float(p)) for a, (_, p) in zip(got, toks[t:t + len(x)])) < 1.5e-6
        t += len(x)
    assert t == len(toks)


@pytest.mark.parametrize("model", ["raw.wap", "me.wap"])
def test_wapiti_models_without_patterns(model):
    """A Wapiti model trained on observations given in the data (no pattern
    file; me.wap with --me) opens in Tagger and tags lists of those
    observations as `wapiti label -c -p -s` did (raw-posterior.txt,
    me-posterior.txt): each token's label and marginal."""
    d = os.path.join(SRC, "tests", "data", "wapiti-model")
    data = subprocess.run(["awk", "-F", "\t", "-f", os.path.join(d, "raw.awk"),
                           os.path.join(d, "test.txt")], check=True, capture_output=True,
                          env=dict(os.environ, LC_ALL="C"), text=True).stdout
    seqs = [[line.split()[:-1] for line in block.split("\n") if line]
            for block in data.split("\n\n") if block.strip()]
    toks = [l.split("\t")[-1].rsplit("/", 1)
            for l in open(os.path.join(d, model.replace(".wap", "-posterior.txt")),
                          encoding="utf-8").read().split("\n") if l and not l.startswith("#")]
    assert len(seqs) == 40 and sum(map(len, seqs)) == len(toks) > 500
    tagger = crfpipe.Tagger().open(os.path.join(d, model))
    _same_posteriors(tagger, seqs, toks)


def test_wapiti_model_with_patterns_and_me():
    """A Wapiti model trained with patterns and --me (tests/data/wapiti-model/
    pme.wap: every line a sample) opens in Tagger and tags tuples of the
    columns as `wapiti label -p -s` tagged each line alone
    (pme-posterior.txt), whatever the grouping of the tokens."""
    d = os.path.join(SRC, "tests", "data", "wapiti-model")
    seqs = _sequences(os.path.join(d, "test.txt"), lambda line: tuple(line.split("\t")[:2]))
    toks = [l.split("\t")[-1].rsplit("/", 1)
            for l in open(os.path.join(d, "pme-posterior.txt"), encoding="utf-8").read().split("\n")
            if l and not l.startswith("#")]
    assert sum(map(len, seqs)) == len(toks) > 500
    tagger = crfpipe.Tagger().open(os.path.join(d, "pme.wap"))
    assert "\n#!wapiti-me\n" in tagger.info()["features_config"]
    _same_posteriors(tagger, seqs, toks)
