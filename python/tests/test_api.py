"""The python-crfsuite style API: Trainer, Tagger, errors, run(), CRF."""
import math
import os
import pickle
import subprocess
import warnings

import pytest

import crfpipe
from conftest import TINY_TPL, accuracy, xseq_of


def test_train_and_tag_attributes(ewt, attr_model):
    path, iterations = attr_model
    assert iterations, "no iteration recorded"
    it = iterations[-1]
    assert it["trainer"] == "lbfgs" and it["iteration"] == len(iterations)
    assert iterations[-1]["objective"] < iterations[0]["objective"]
    assert all(0 <= i["dev_error"] <= 1 for i in iterations), "the holdout group is the dev set"
    assert math.isnan(iterations[0]["train_error"])
    tagger = crfpipe.Tagger().open(path)
    assert "NOUN" in tagger.labels() and "VERB" in tagger.labels()
    xs = [xseq_of(rows) for rows, _ in ewt["test"]]
    pred = tagger.tag_batch(xs)
    acc = accuracy(pred, [y for _, y in ewt["test"]])
    assert acc > 0.80, "token accuracy %.3f" % acc
    # one at a time gives the same labels
    assert [tagger.tag(x) for x in xs[:50]] == pred[:50]
    assert tagger.tag_batch(xs[:80], threads=1) == tagger.tag_batch(xs[:80], threads=3)


def test_marginals_nbest_probability(ewt, attr_model):
    tagger = crfpipe.Tagger().open(attr_model[0])
    rows, _ = ewt["test"][3]
    x = xseq_of(rows)
    tagger.set(x)
    best = tagger.tag()
    labels = tagger.labels()
    margs = tagger.marginals()
    assert len(margs) == len(x)
    for t, m in enumerate(margs):
        assert abs(sum(m.values()) - 1) < 1e-9
        assert tagger.marginal(best[t], t) == pytest.approx(m[best[t]])
        # the best path's label is likely at each position
        assert m[best[t]] > 0.05
    nb = tagger.nbest(4)
    assert nb[0][0] == best
    probs = [p for _, p in nb]
    assert probs == sorted(probs, reverse=True) and 0 < probs[-1] <= probs[0] <= 1
    assert len({tuple(l) for l, _ in nb}) == len(nb), "n-best lists repeat a labelling"
    assert tagger.probability(best) == pytest.approx(probs[0], rel=1e-9)
    other = list(best)
    other[0] = next(l for l in labels if l != best[0])
    assert tagger.probability(other) < probs[0]
    # posterior decoding: each position's most probable label, which may
    # differ from the best path's; never less probable than it
    post = tagger.tag(decode="posterior")
    assert post == [max(m, key=m.get) for m in margs]
    assert all(margs[t][post[t]] >= margs[t][best[t]] for t in range(len(x)))
    with pytest.raises(ValueError, match="decode must be"):
        tagger.tag(x, decode="best")
    with pytest.raises(ValueError, match="unknown label"):
        tagger.marginal("NO-SUCH-LABEL", 0)
    with pytest.raises(ValueError, match="unknown label"):
        tagger.probability(["NO-SUCH-LABEL"] * len(x))
    with pytest.raises(ValueError, match="labels for"):
        tagger.probability(best[:-1])


def test_dict_tokens(ewt, tmp_path):
    tr = crfpipe.Trainer(verbose=False, params={"max_iterations": 5})
    data = []
    for rows, y in ewt["train"][:300]:
        x = [{"w": r[1].lower(), "title": int(r[1][:1].isupper()), "bias": True} for r in rows]
        data.append((x, y))
        tr.append(x, y)
    tr.train(str(tmp_path / "d.model"))
    tagger = crfpipe.Tagger().open(str(tmp_path / "d.model"))
    assert len(tagger.tag(data[0][0])) == len(data[0][1])
    # the weight is in the message (PyErr_Format has no %g: it printed "%g")
    with pytest.raises(ValueError, match="weight nan:"):
        tagger.tag([{"w": "x", "score": float("nan")}])
    with pytest.raises(ValueError, match="weight inf:"):
        tr.append([{"w": "x", "score": float("inf")}], ["NOUN"])


def test_attribute_values(ewt, tmp_path):
    """A number that is not 0 or 1 is the attribute's value (python-crfsuite's
    weight): its features are scaled by it.  On a one-token sequence the log
    odds of two labels are then affine in the value, exactly; 0 scores as
    if the attribute were absent, and True as 1."""
    tr = crfpipe.Trainer(verbose=False, params={"max_iterations": 30})
    for rows, y in ewt["train"][:300]:
        tr.append([{"w": r[1].lower(), "len": len(r[1]) / 4.0, "neg": -0.5 * r[1].isupper()}
                   for r in rows], y)
    path = str(tmp_path / "v.model")
    tr.train(path)
    tagger = crfpipe.Tagger().open(path)
    info = tagger.info()
    assert any(o == "len" for o, _ in info.state_features)
    assert any(o == "neg" for o, _ in info.state_features)
    labels = tagger.labels()

    def logodds(tok):
        tagger.set([tok])
        return math.log(tagger.marginal(labels[0], 0) / tagger.marginal(labels[1], 0))

    f = [logodds({"len": v}) for v in (0.0, 1.0, 2.0, -1.5)]
    assert f[0] == pytest.approx(logodds({}), abs=1e-12)
    assert f[1] == pytest.approx(logodds({"len": True}), abs=1e-12)
    assert f[1] == pytest.approx(logodds(["len"]), abs=1e-12)
    b = f[1] - f[0]
    assert abs(b) > 1e-3
    assert f[2] - f[0] == pytest.approx(2 * b, abs=1e-9)
    assert f[3] - f[0] == pytest.approx(-1.5 * b, abs=1e-9)
    # ItemSequence keeps the values: items() shows them, and the sequence
    # converted back tags as the original
    x = [{"w": "the", "len": 0.75, "neg": -0.5}, {"w": "cat", "z": 0, "u": True}]
    seq = crfpipe.ItemSequence(x)
    assert seq.items() == [{"w=the": 1.0, "len": 0.75, "neg": -0.5},
                           {"w=cat": 1.0, "z": 0.0, "u": 1.0}]
    assert crfpipe.ItemSequence(list(seq)).items() == seq.items()
    tagger.set(x)
    p = [tagger.marginal(y, 1) for y in labels]
    tagger.set(seq)
    assert [tagger.marginal(y, 1) for y in labels] == p


def test_nested_tokens_and_item_sequence(ewt, tmp_path):
    """python-crfsuite flattens {"suffix": {"2": "ab"}} and {"tags": [...]}
    with "name:" in front; the same attributes written flat train the very
    same model, and an ItemSequence gives the same model and labels again."""
    nested, flat = [], []
    for rows, y in ewt["train"][:200]:
        xn, xf = [], []
        for t, r in enumerate(rows):
            w = r[1]
            xn.append({"w": w.lower(), "suf": {"2": w[-2:], "3": {"x": w[-3:]}},
                       "shape": ["title"] if w[:1].isupper() else [],
                       "near": {"prev=" + (rows[t - 1][1] if t else "<s>")},
                       "bias": 1.0, **({"digit": True} if w.isdigit() else {})})
            xf.append(["w=" + w.lower(), "suf:2=" + w[-2:], "suf:3:x=" + w[-3:]]
                      + (["shape:title"] if w[:1].isupper() else [])
                      + ["near:prev=" + (rows[t - 1][1] if t else "<s>"), "bias"]
                      + (["digit"] if w.isdigit() else []))
        nested.append((xn, y))
        flat.append((xf, y))
    dumps, tags = [], []
    for data, wrap in ((nested, list), (flat, list), (nested, crfpipe.ItemSequence)):
        tr = crfpipe.Trainer(verbose=False, params={"max_iterations": 8})
        for x, y in data:
            tr.append(wrap(x), y)
        path = str(tmp_path / ("m%d.model" % len(dumps)))
        tr.train(path)
        tg = crfpipe.Tagger().open(path)
        # the weight lines only: the metadata holds the training file's name
        dumps.append(sorted(l for l in tg.dump().splitlines() if l[:2] in ("U\t", "B\t")))
        tags.append(tg.tag_batch([wrap(x) for x, _ in data[:40]]))
    assert dumps[0] and dumps[0] == dumps[1] == dumps[2]
    assert tags[0] == tags[1] == tags[2]
    info = crfpipe.Tagger().open(str(tmp_path / "m0.model")).info()
    assert ("suf:3:x=" + ewt["train"][0][0][0][1][-3:], ewt["train"][0][1][0]) in \
        info.state_features
    # python-crfsuite's attributes: each observation with a weight, once
    attrs = info.attributes
    assert set(attrs) == {o for o, _ in info.state_features}
    assert sorted(attrs.values()) == list(range(len(attrs)))
    seq = crfpipe.ItemSequence([{"a": "b c", "n": {"x": True, "y": False}}, ["_", "p\\q"], []])
    assert len(seq) == 3
    # False is the weight 0: the attribute stays, scoring nothing (python-crfsuite)
    assert seq.items() == [{"a=b c": 1.0, "n:x": 1.0, "n:y": 0.0}, {"_": 1.0, "p\\q": 1.0}, {}]
    assert crfpipe.ItemSequence(seq).items() == seq.items()
    loop = {}
    loop["me"] = loop
    for bad, err, msg in (([loop], ValueError, "nested more than"),
                          ([{"a": None}], TypeError, "value must be str"),
                          ([{"a": {"b": float("nan")}}], ValueError, "'a:b' has weight nan"),
                          ([{"a": [3]}], TypeError, "must be str, not int")):
        with pytest.raises(err, match=msg):
            crfpipe.ItemSequence(bad)


def test_nul_characters(attr_model, tmp_path):
    """C reads NUL-terminated strings: "a\0b" must be refused, not taken for
    "a" (tagging used to do that without a word; training failed on a NUL
    byte in a temporary file the user never named)."""
    tagger = crfpipe.Tagger().open(attr_model[0])
    for x in ([["a\0b"]], ["a\0b"], [{"w": "a\0b"}], [{"w\0x": 1}]):
        with pytest.raises(ValueError, match="NUL character"):
            tagger.tag(x)
    tagger.set([["a"]])
    with pytest.raises(ValueError, match="NUL character"):
        tagger.probability(["NOUN\0"])
    tr = crfpipe.Trainer(verbose=False)
    for x, y in (([["a\0b"]], ["X"]), ([["a"]], ["X\0Y"]), ([{"w": "a\0"}], ["X"])):
        with pytest.raises(ValueError, match="NUL character"):
            tr.append(x, y)
    tr = crfpipe.Trainer(verbose=False, template_text="U00:%x[0,0]\n")
    with pytest.raises(ValueError, match="NUL character"):
        tr.append([("a\0",)], ["X"])
    with pytest.raises(ValueError, match="NUL character"):
        tr.append([{"form": "a\0"}], ["X"])
    tpl = str(tmp_path / "t.model")
    tr.append([("a",), ("b",)], ["X", "Y"])
    tr.train(tpl)
    tagger = crfpipe.Tagger().open(tpl)
    for x in ([("a\0b",)], ["a\0b"], [{"0": "a\0b"}]):
        with pytest.raises(ValueError, match="NUL character"):
            tagger.tag(x)


def test_parameters():
    tr = crfpipe.Trainer(verbose=False)
    names = tr.params()
    for p in ("rho1", "rho2", "history", "epsilon", "max-iter"):
        assert p in names
    assert "l2" in tr.help("c2")
    # CRFsuite's c2 weighs |w|², crfpipe's rho2 |θ|²/2: c2 = 0.5 is rho2 = 1
    tr.set("c2", 0.5)
    assert tr.get("c2") == 0.5 and float(tr.get("rho2")) == 1.0
    tr.set_params({"max_iterations": 7, "num_memories": 3})
    assert tr.get("max-iter") == "7" and tr.get("history") == "3"
    assert tr.get("gtol") == "1e-5", "declared default"
    with pytest.raises(ValueError, match="no parameter"):
        tr.set("nonesuch", 1)
    tr.select("pa")
    assert tr.algorithm == "perceptron" and tr.get("variant") == "pa"
    assert "c" in tr.params()
    tr.select("arow")
    assert tr.get("variant") == "arow" and tr.get("gamma") == "100"
    tr.set_params({"variance": 0.5, "gamma": 20})
    assert tr.get("variance") == "0.5" and tr.get("gamma") == "20"
    tr.select("sgd-l1,lbfgs")
    assert "eta0" in tr.params() and "history" in tr.params()
    with pytest.raises(crfpipe.Error, match="lbgfs"):
        crfpipe.Trainer("lbgfs")


def test_all_possible_pairs():
    """sklearn-crfsuite's all_possible_states/transitions and python-crfsuite's
    feature.possible_states/transitions: True (crfpipe's default) weighs every
    attribute-label and label-label pair, False (CRFsuite's default) only those
    the training data shows, which the model's weights are checked against."""
    xs = [[["w=a", "bias"], ["w=b"]], [["w=b"], ["w=c", "bias"]], [["w=c"], ["w=a"]]]
    ys = [["X", "Y"], ["Y", "Z"], ["Z", "X"]]
    seen = {(a, y) for x, yy in zip(xs, ys) for tok, y in zip(x, yy) for a in tok}
    pairs = {(p, y) for yy in ys for p, y in zip(yy, yy[1:])}
    crf = crfpipe.CRF(c2=0.1, max_iterations=50, all_possible_transitions=True,
                      all_possible_states=True).fit(xs, ys)
    assert set(crf.state_features_) > seen and len(crf.state_features_) == 4 * 3
    crf = crfpipe.CRF(c2=0.1, max_iterations=50, all_possible_transitions=False,
                      all_possible_states=False).fit(xs, ys)
    assert set(crf.state_features_) == seen
    assert set(crf.transition_features_) == pairs      # no "<start>" row either
    assert crf.predict(xs) == ys
    tr = crfpipe.Trainer(verbose=False)
    tr.set("feature.possible_transitions", 1)
    tr.set("feature.possible_states", 0)
    assert tr.get("all-transitions") == "true" and tr.get("all-states") == "false"


def test_c2_is_half_rho2(tmp_path):
    """A python-crfsuite c2 trains the model crfpipe's rho2 = 2·c2 trains."""
    xs = [[["w=a", "bias"], ["w=b"]], [["w=b"], ["w=a", "bias"]], [["w=c"], ["w=a"]]]
    ys = [["X", "Y"], ["Y", "X"], ["Y", "X"]]
    dumps = []
    for params in ({"c2": 0.25, "max_iterations": 30}, {"rho2": 0.5, "max_iterations": 30}):
        tr = crfpipe.Trainer(verbose=False, params=params, threads=1)
        for x, y in zip(xs, ys):
            tr.append(x, y)
        path = str(tmp_path / ("m%d" % len(dumps)))
        tr.train(path)
        dumps.append([l for l in crfpipe.dump_model(path).splitlines() if l[:2] in ("U\t", "B\t")])
    assert dumps[0] and dumps[0] == dumps[1]


def test_errors(tmp_path):
    with pytest.raises(crfpipe.Error) as e:
        crfpipe.Tagger().open(str(tmp_path / "missing.model"))
    assert "missing.model" in str(e.value) and e.value.status
    bad = tmp_path / "bad.model"
    bad.write_bytes(b"not a model at all\n" * 10)
    with pytest.raises(crfpipe.Error, match="bad.model"):
        crfpipe.Tagger().open(str(bad))
    with pytest.raises(RuntimeError):
        crfpipe.Tagger().tag([["a"]])
    tr = crfpipe.Trainer(verbose=False, template_text="U00:%x[0,0]\nU01:%q[0,0]\n")
    tr.append([("a",), ("b",)], ["X", "Y"])
    with pytest.raises(crfpipe.Error, match=r"template\.tpl:2"):
        tr.train(str(tmp_path / "t.model"))
    tr = crfpipe.Trainer(verbose=False)
    with pytest.raises(ValueError, match="2 items and yseq 1"):
        tr.append([["a"], ["b"]], ["X"])
    with pytest.raises(ValueError, match="no training data"):
        tr.train(str(tmp_path / "t.model"))
    with pytest.raises(TypeError):
        tr.append([[1, 2]], ["X"])
    with pytest.raises(ValueError, match="line break"):
        tr.append([["a"]], ["X\nY"])


def test_features(ewt, attr_model, tmp_path):
    """Tagger.features gives what the model extracts, as crfpipe features
    writes it: a template's named observations with their kinds, CRFsuite
    attributes with their values."""
    path = str(tmp_path / "tpl.model")
    tr = crfpipe.Trainer(verbose=False, template=TINY_TPL, columns=("form",),
                         params={"max_iterations": 3})
    for rows, y in ewt["train"][:50]:
        tr.append([(r[1],) for r in rows], y)
    tr.train(path)
    tagger = crfpipe.Tagger().open(path)
    f = tagger.features([("The",), ("cat",)])
    assert len(f) == 2
    assert ("U01:cat", "U", 1.0) in f[1] and ("U00:The", "U", 1.0) in f[1]
    assert ("B", "B", 1.0) in f[0], "the template's B is a bigram observation"
    # what the command line writes for the same tokens (Wapiti's data:
    # each observation after its kind's letter)
    src = tmp_path / "two.tsv"
    src.write_text("The\tX\ncat\tX\n\n", encoding="utf-8")
    cli = os.environ.get("CRFPIPE")
    if cli:
        r = subprocess.run([cli, "-q", "features", "--model", path, "--columns", "form,label",
                            "--to", "wapiti", str(src)], capture_output=True, text=True,
                           check=True)
        lines = [l.split(" ")[:-1] for l in r.stdout.splitlines() if l]
        want = [[("u" if k == "U" else "b" if k == "B" else "") + n for n, k, _ in row]
                for row in f]
        assert lines == want
    # attributes with values
    t2 = crfpipe.Tagger().open(attr_model[0])
    g = t2.features([{"w": "x", "len": 2.5}])
    assert ("w=x", "U", 1.0) in g[0] and ("len", "U", 2.5) in g[0]
    with pytest.raises(RuntimeError):
        crfpipe.Tagger().features([["a"]])


def _weights_of(path):
    """{(kind, observation, ...labels): weight} of a model's non-zero weights."""
    out = {}
    for line in crfpipe.dump_model(path).splitlines():
        f = line.split("\t")
        if (f[0], len(f)) in (("U", 4), ("B", 5)):
            out[tuple(f[:-1])] = float(f[-1])
    return out


def _close(a, b, tol):
    return a.keys() == b.keys() and all(abs(a[k] - b[k]) <= tol for k in a)


def test_sequence_weights(ewt, tmp_path):
    """A sequence of weight 2 trains what appending it twice trains, one of
    weight 0 what leaving it out trains (the same optimum, to the optimizer's
    tolerance), with attributes, templates and the sklearn estimator's
    sample_weight; the dev set keeps its columns; bad weights are refused."""
    data = ewt["train"][:120]
    params = {"c2": 0.5, "epsilon": 1e-10, "max_iterations": 500}

    def train(items, name, **kw):
        tr = crfpipe.Trainer(verbose=False, params=params, threads=1, **kw)
        for x, y, w in items:
            if w is None:
                tr.append(x, y)
            else:
                tr.append(x, y, weight=w)
        path = str(tmp_path / name)
        tr.train(path)
        return _weights_of(path)

    ws = [(2, 0, 1.0)[i % 3] for i in range(len(data))]
    for kind, conv, kw in (("attrs", xseq_of, {}),
                           ("tpl", lambda rows: [(r[1],) for r in rows],
                            {"template": TINY_TPL, "columns": ("form",)})):
        weighted = train([(conv(r), y, w) for (r, y), w in zip(data, ws)], kind + "-w", **kw)
        copies = train([(conv(r), y, None) for (r, y), w in zip(data, ws) for _ in range(int(w))],
                       kind + "-c", **kw)
        assert len(weighted) > 500 and _close(weighted, copies, 1e-4), kind
        plain = train([(conv(r), y, None) for r, y in data], kind + "-p", **kw)
        assert not _close(weighted, plain, 1e-2), "the weights changed nothing (%s)" % kind
    # the estimator: sample_weight is Trainer.append's weight; with a dev set
    X = [xseq_of(r) for r, _ in data]
    Y = [y for _, y in data]
    Xd = [xseq_of(r) for r, _ in ewt["dev"][:20]]
    Yd = [y for _, y in ewt["dev"][:20]]
    crf = crfpipe.CRF(c2=0.5, max_iterations=500, epsilon=1e-10, threads=1,
                      model_filename=str(tmp_path / "est"))
    crf.fit(X, Y, sample_weight=ws)
    assert _close(_weights_of(str(tmp_path / "est")), _weights_of(str(tmp_path / "attrs-w")), 1e-6)
    with warnings.catch_warnings():
        # a dev sentence may hold a label these 120 training sentences lack
        warnings.simplefilter("ignore", crfpipe.CrfpipeWarning)
        crf.fit(X, Y, Xd, Yd, sample_weight=ws)
    assert crf.training_log_ and crf.training_log_[-1].get("dev_error") is not None
    with pytest.raises(ValueError, match="2 weights for 120"):
        crf.fit(X, Y, sample_weight=[1, 2])
    tr = crfpipe.Trainer(verbose=False)
    for bad in (-1, float("nan"), float("inf"), 2e9):
        with pytest.raises(ValueError, match="from 0 to 1e9"):
            tr.append([["a"]], ["X"], weight=bad)
    with pytest.raises(TypeError, match="weight must be a number"):
        tr.append([["a"]], ["X"], weight="heavy")


def test_template_training(ewt, tmp_path):
    path = str(tmp_path / "tpl.model")
    tr = crfpipe.Trainer(verbose=False, template=TINY_TPL, columns=("form",),
                         params={"max_iterations": 15})
    for rows, y in ewt["train"]:
        tr.append([(r[1],) for r in rows], y)
    tr.train(path)
    tagger = crfpipe.Tagger().open(path)
    assert tagger.model.columns == ("form",), "the model records the column names"
    pred = tagger.tag_batch([[(r[1],) for r in rows] for rows, _ in ewt["test"]])
    assert accuracy(pred, [y for _, y in ewt["test"]]) > 0.75
    # dict tokens name their columns themselves
    rows = ewt["test"][0][0]
    assert tagger.tag([{"form": r[1], "upos": "?"} for r in rows]) == pred[0]
    # dict tokens go to the model's columns by name; one with none of them
    # is a mistake
    assert tagger.tag([{"upos": "?", "form": r[1]} for r in rows]) == pred[0]
    with pytest.raises(ValueError, match="none of the model's columns"):
        tagger.tag([{"word": "x"}])


def test_dump_and_info(attr_model, tmp_path):
    path = attr_model[0]
    text = crfpipe.dump_model(path)
    assert text.startswith("labels\t")
    assert "features\tattributes" in text and "\nU\tw=the\t" in text
    tagger = crfpipe.Tagger().open(path)
    assert tagger.dump(str(tmp_path / "d.txt")) == text
    assert (tmp_path / "d.txt").read_text() == text
    info = tagger.info()
    assert info["features"] == "attributes" and info["meta"]["trainer"] == "lbfgs"
    assert 0 < info["active"] <= info["parameters"]
    with open(path, "rb") as f:
        t2 = crfpipe.Tagger().open_inmemory(f.read())
    assert t2.labels() == tagger.labels()


def _unescape(field):
    """A dump field back to its string (crfpipe-model(1): \\\\ \\t \\n \\r \\xHH)."""
    out, i = [], 0
    while i < len(field):
        c = field[i]
        if c == "\\":
            n = field[i + 1]
            if n == "x":
                out.append(chr(int(field[i + 2:i + 4], 16)))
                i += 4
                continue
            out.append({"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}[n])
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def test_info_weights(attr_model):
    # python-crfsuite's ParsedDump attributes, against the dump's own lines
    path = attr_model[0]
    state, bigram = {}, {}
    for line in crfpipe.dump_model(path).split("\n"):
        f = line.split("\t")
        if f[0] == "U" and len(f) == 4:
            state[(_unescape(f[1]), _unescape(f[2]))] = float(f[3])
        elif f[0] == "B" and len(f) == 5:
            bigram[tuple(_unescape(x) for x in f[1:4])] = float(f[4])
    info = crfpipe.Tagger().open(path).info()
    assert info["active"] == len(state) + len(bigram) and len(state) > 1000
    assert info.state_features == state
    assert info.bigram_features == bigram
    trans = info.transitions
    assert trans == {(p, y): w for (o, p, y), w in bigram.items() if o == "B"}
    labels = crfpipe.Tagger().open(path).labels()
    assert info.labels == {y: i for i, y in enumerate(labels)}
    assert any(p == "<start>" for p, _ in trans) and len(trans) > len(labels)
    assert info.header["trainer"] == "lbfgs"
    with pytest.raises(ValueError, match="kind must be"):
        crfpipe.Model(path).weights("X")
    # escaped strings come back whole: backslashes, which the dump doubles
    crf = crfpipe.CRF(c2=0.1, max_iterations=20, threads=1)
    crf.fit([[{"w=a\\b": 1.0}, {"w=c": 1.0}], [{"w=c": 1.0}]], [["X\\Y", "Z"], ["Z"]])
    sf = crf.state_features_
    assert ("w=a\\b", "X\\Y") in sf and ("w=c", "Z") in sf
    assert set(crf.transition_features_) <= {(p, y) for p in ("<start>", "X\\Y", "Z")
                                             for y in ("X\\Y", "Z")}
    assert crf.transition_features_


def test_minfreq(tmp_path):
    # python-crfsuite's feature.minfreq (a float there), in CRFsuite's model
    # family (possible_states and possible_transitions False) counted as
    # CRFsuite counts it: per attribute and label, each occurrence counting
    # its value (times its sequence's weight); a pair whose sum falls short
    # gets no weight.  (With every pair weighed, crfpipe's default, it
    # counts the positions of an attribute, as CRF++'s -f does.)
    xs = [[{"w=a": 1.0, "v": 0.75}, {"w=b": 1.0, "v": 0.75}],
          [{"w=a": 1.0, "v": 0.75}, {"w=c": 1.0, "v": 0.75}],
          [{"w=a": 1.0, "v": 0.75}, {"w=c": 1.0, "v": 0.75}],
          [{"w=a": 1.0, "v": 0.75}]]
    ys = [["X", "Y"], ["X", "Y"], ["X", "Y"], ["Y"]]
    # the sums: (w=a, X) 3, (w=a, Y) 1, (w=b, Y) 1, (w=c, Y) 2, (v, X) 2.25, (v, Y) 3
    seen = {}
    for minfreq in (1, 2.0, 2.5, 3, -1):
        tr = crfpipe.Trainer(verbose=False)
        for x, y in zip(xs, ys):
            tr.append(x, y)
        tr.set_params({"feature.minfreq": minfreq, "max_iterations": 10, "threads": 1,
                       "feature.possible_states": False,
                       "feature.possible_transitions": False})
        path = str(tmp_path / ("m%s" % minfreq))
        tr.train(path)
        seen[minfreq] = set(crfpipe.Tagger().open(path).info().state_features)
    every = {("w=a", "X"), ("w=a", "Y"), ("w=b", "Y"), ("w=c", "Y"), ("v", "X"), ("v", "Y")}
    assert seen[1] == every and seen[-1] == every
    assert seen[2.0] == {("w=a", "X"), ("w=c", "Y"), ("v", "X"), ("v", "Y")}
    assert seen[2.5] == seen[3] == {("w=a", "X"), ("v", "Y")}
    # every pair weighed: attributes seen at 3 positions or more
    tr.set_params({"feature.possible_states": True, "feature.possible_transitions": True,
                   "feature.minfreq": 3})
    tr.train(str(tmp_path / "all"))
    sf = set(crfpipe.Tagger().open(str(tmp_path / "all")).info().state_features)
    assert {a for a, _ in sf} == {"w=a", "v"} and ("w=a", "Y") in sf
    with pytest.raises((crfpipe.Error, ValueError), match="min-freq"):
        tr.set("feature.minfreq", "two")
        tr.train(str(tmp_path / "bad"))


CONLL = "He PRP B-NP\nreckons VBZ B-VP\n\nThe DT B-NP\ncat NN I-NP\n"
PIPE = """<pipeline xmlns="urn:crfpipe:pipeline:1">
  <stage plugin="conll_reader"><param name="columns" value="word,pos,chunk"/></stage>
  <stage plugin="xml_writer"/>
</pipeline>"""


def test_run_on_strings(tmp_path, attr_model):
    xml = crfpipe.run(PIPE, CONLL)
    assert isinstance(xml, str) and "<corpus" in xml and ">reckons</f>" in xml
    assert isinstance(crfpipe.run(PIPE, CONLL.encode()), bytes)
    back = crfpipe.run([("xml_reader", {}), ("conll_writer", {})], xml)
    assert back == CONLL
    pfile = tmp_path / "p.xml"
    pfile.write_text(PIPE)
    assert crfpipe.run(str(pfile), CONLL) == xml
    src = tmp_path / "in.txt"
    src.write_text(CONLL)
    assert crfpipe.run(str(pfile), path=str(src)) == xml.encode()
    with pytest.raises(crfpipe.Error, match="nonesuch"):
        crfpipe.run([("conll_reader", {"nonesuch": 1}), ("xml_writer", {})], CONLL)
    with pytest.raises(crfpipe.Error, match="fields"):
        crfpipe.run(PIPE, "a b\nc\n")
    names = {p["name"] for p in crfpipe.plugins()}
    assert {"conll_reader", "viterbi", "lbfgs", "attributes"} <= names


def test_run_many(tmp_path):
    # several inputs through one run: each output equals its own run's
    texts = [CONLL, "A DT B-NP\ndog NN I-NP\n", CONLL.encode()]
    outs = crfpipe.run(PIPE, texts=texts)
    assert outs[0] == crfpipe.run(PIPE, CONLL) and isinstance(outs[0], str)
    assert outs[1] == crfpipe.run(PIPE, texts[1])
    assert outs[2] == crfpipe.run(PIPE, CONLL.encode()) and isinstance(outs[2], bytes)
    files = []
    for k, t in enumerate(texts[:2]):
        f = tmp_path / ("in%d.conll" % k)
        f.write_text(t)
        files.append(str(f))
    assert crfpipe.run(PIPE, paths=files) == [o.encode() for o in outs[:2]]
    assert crfpipe.run(PIPE, texts=[]) == []
    # a bad input raises, naming the error; nothing is returned
    with pytest.raises(crfpipe.Error, match="fields"):
        crfpipe.run(PIPE, texts=[CONLL, "a b\nc\n"])
    with pytest.raises(OSError):
        crfpipe.run(PIPE, paths=[files[0], str(tmp_path / "none")])
    with pytest.raises(TypeError, match="give one of"):
        crfpipe.run(PIPE, CONLL, texts=[CONLL])
    # a training pipeline trains on all of them: the model of the joined text
    tpl = tmp_path / "w.tpl"
    tpl.write_text("U00:%x[0,word]\nU01:%x[0,pos]\nB\n")
    parts = [CONLL + "\n", "A DT B-NP\ndog NN I-NP\nbarks VBZ B-VP\n\n"]

    def train(model):
        return [("conll_reader", {"columns": "word,pos,chunk"}),
                ("templates", {"template": str(tpl)}),
                ("lbfgs", {"model": str(model), "threads": 1, "max-iter": 5})]
    assert crfpipe.run(train(tmp_path / "two"), texts=parts) is None
    crfpipe.run(train(tmp_path / "joined"), "".join(parts))
    assert (tmp_path / "two").read_bytes() == (tmp_path / "joined").read_bytes()


def test_sklearn_estimator(ewt, tmp_path):
    X = [xseq_of(rows) for rows, _ in ewt["train"][:600]]
    y = [ys for _, ys in ewt["train"][:600]]
    Xt = [xseq_of(rows) for rows, _ in ewt["test"][:200]]
    yt = [ys for _, ys in ewt["test"][:200]]
    crf = crfpipe.CRF(c2=0.3, max_iterations=20, threads=1)
    assert crf.fit(X, y) is crf
    assert "NOUN" in crf.classes_
    pred = crf.predict(Xt)
    assert crf.score(Xt, yt) == pytest.approx(accuracy(pred, yt))
    assert crf.score(Xt, yt) > 0.7
    assert crf.predict_single(Xt[0]) == pred[0]
    m = crf.predict_marginals_single(Xt[0])
    assert max(m[0], key=m[0].get) == pred[0][0]
    assert crf.get_params()["c2"] == 0.3
    clone = pickle.loads(pickle.dumps(crf))
    assert clone.predict(Xt) == pred
    assert crf.training_log_ and "objective" in crf.training_log_[0]
    # sklearn-crfsuite's attributes_, num_attributes_ and size_
    assert set(crf.attributes_) == {a for a, _ in crf.state_features_}
    assert crf.num_attributes_ == len(crf.attributes_) > 100
    assert crf.size_ == os.path.getsize(crf.tagger_.info()["path"]) > 0
    assert clone.attributes_ == crf.attributes_
    # sklearn-crfsuite's training_log_ (python-crfsuite's logparser)
    log = crf.training_log_
    assert log.iterations is log and log.last_iteration is log[-1]
    last = log.last_iteration
    assert last["num"] == last["iteration"] == len(log)
    assert last["loss"] == last["objective"] and last["active_features"] == last["active"]
    assert last["time"] == last["seconds"]
    assert isinstance(clone.training_log_, crfpipe.TrainLog)
    assert clone.training_log_.last_iteration["loss"] == last["loss"]   # (NaN != NaN elsewhere)


@pytest.mark.parametrize("algorithm", ["lbfgs", "l2sgd", "ap", "pa", "arow"])
def test_crfsuite_algorithms(ewt, algorithm):
    """Each of python-crfsuite's five algorithm names trains a model that
    tags held-out sentences well above the most frequent tag (NOUN, about
    a sixth of the tokens)."""
    X = [xseq_of(rows) for rows, _ in ewt["train"][:600]]
    y = [ys for _, ys in ewt["train"][:600]]
    Xt = [xseq_of(rows) for rows, _ in ewt["test"][:200]]
    yt = [ys for _, ys in ewt["test"][:200]]
    crf = crfpipe.CRF(algorithm=algorithm, max_iterations=10, threads=1)
    crf.fit(X, y)
    assert crf.score(Xt, yt) > 0.7, "%s: accuracy %.3f" % (algorithm, crf.score(Xt, yt))


def test_cross_validate(ewt, tmp_path):
    """Trainer.cross_validate against the same folds done by hand: each
    fold's model trained on the other folds' sequences, tagging its own.
    INTJ occurs only in the last block here: that fold's model must not
    know it, as a model of the other folds alone does not."""
    data = [(xseq_of(rows), y) for rows, y in ewt["train"][:240]]
    params = {"c2": 0.3, "max_iterations": 15, "threads": 1}
    tr = crfpipe.Trainer(verbose=False, params=params)
    for x, y in data:
        tr.append(x, y)
    labels = {l for _, y in data for l in y}
    lacking = 0
    for split in ("blocks", "interleaved"):
        folds = tr.cross_validate(folds=3, split=split)
        assert [f["fold"] for f in folds] == [0, 1, 2]
        for k, f in enumerate(folds):
            held = (list(range(80 * k, 80 * k + 80)) if split == "blocks"
                    else [i for i in range(len(data)) if i % 3 == k])
            one = crfpipe.Trainer(verbose=False, params=params)
            for i, (x, y) in enumerate(data):
                if i not in held:
                    one.append(x, y)
            path = str(tmp_path / ("fold%d.model" % k))
            one.train(path)
            tagger = crfpipe.Tagger().open(path)
            pred = tagger.tag_batch([data[i][0] for i in held], threads=1)
            errors = sum(p != g for i, seq in zip(held, pred)
                         for p, g in zip(seq, data[i][1]))
            assert f["heldout_sentences"] == len(held) and f["train_sentences"] == 240 - len(held)
            assert f["token_error"] == f["token_errors"] / f["heldout_tokens"]
            assert f["token_errors"] == errors, (split, k)
            lacking += {l for i, (_, y) in enumerate(data) if i not in held for l in y} != labels
            assert "chunks" not in f, "UPOS tags are not chunk tags"
    assert lacking, "no fold whose training part lacks a label: the test data changed"
    # chunk tags: conlleval's counts and F1
    bio = crfpipe.Trainer(verbose=False, params=params)
    for rows, y in ewt["train"][:120]:
        bio.append(xseq_of(rows), ["B-N" if u in ("NOUN", "PROPN") else "O" for u in y])
    for f in bio.cross_validate(folds=2):
        ch = f["chunks"]
        assert 0 < ch["correct"] <= min(ch["found"], ch["expected"])
        assert 0 < f["chunk_f1"] <= 100
    with pytest.raises(crfpipe.Error, match="cv-split must be blocks or interleaved"):
        tr.cross_validate(folds=3, split="random")
    with pytest.raises(crfpipe.Error, match="cv-folds must be 0"):
        tr.cross_validate(folds=1)
