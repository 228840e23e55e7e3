"""crfpipe.metrics: sklearn-crfsuite's flat_* scores (checked against hand
counts, and against scikit-learn itself where it is installed) and the chunk
scores, which must equal what ``crfpipe eval`` prints for the same labels."""
import os
import random
import re
import subprocess
import warnings

import pytest

from crfpipe import metrics

# Two sequences, 7 tokens.  Per label (gold / predicted / right):
#   O 3/3/2, B-PER 2/2/1, I-PER 1/1/1, B-LOC 1/1/0
Y_TRUE = [["B-PER", "I-PER", "O", "O"], ["B-LOC", "O", "B-PER"]]
Y_PRED = [["B-PER", "I-PER", "O", "B-LOC"], ["B-PER", "O", "O"]]


def test_flat_scores_by_hand():
    assert metrics.flat_accuracy_score(Y_TRUE, Y_PRED) == pytest.approx(4 / 7)
    assert metrics.sequence_accuracy_score(Y_TRUE, Y_PRED) == 0.0
    assert metrics.sequence_accuracy_score(Y_TRUE, Y_TRUE) == 1.0
    # micro over every label is the accuracy
    assert metrics.flat_f1_score(Y_TRUE, Y_PRED, average="micro") == pytest.approx(4 / 7)
    # labels sorted: B-LOC, B-PER, I-PER, O
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p = metrics.flat_precision_score(Y_TRUE, Y_PRED, average=None)
        r = metrics.flat_recall_score(Y_TRUE, Y_PRED, average=None)
        f = metrics.flat_f1_score(Y_TRUE, Y_PRED, average=None)
    assert p == pytest.approx([0, 1 / 2, 1, 2 / 3])
    assert r == pytest.approx([0, 1 / 2, 1, 2 / 3])
    assert f == pytest.approx([0, 1 / 2, 1, 2 / 3])
    assert metrics.flat_f1_score(Y_TRUE, Y_PRED, average="macro") == pytest.approx(
        (0 + 1 / 2 + 1 + 2 / 3) / 4)
    # weighted by gold support 1, 2, 1, 3
    assert metrics.flat_f1_score(Y_TRUE, Y_PRED, average="weighted") == pytest.approx(
        (0 * 1 + 1 / 2 * 2 + 1 * 1 + 2 / 3 * 3) / 7)
    # the entity labels only (sklearn-crfsuite's tutorial drops 'O'): micro
    # over B-LOC, B-PER, I-PER: 2 right of 4 predicted, of 4 gold
    ents = ["B-LOC", "B-PER", "I-PER"]
    assert metrics.flat_f1_score(Y_TRUE, Y_PRED, labels=ents, average="micro") == 0.5
    # F-beta: beta = 2 on O (P = R = 2/3) is 2/3 too
    assert metrics.flat_fbeta_score(Y_TRUE, Y_PRED, 2, labels=["O"],
                                    average="macro") == pytest.approx(2 / 3)


def test_flat_errors_and_undefined():
    with pytest.raises(ValueError, match="multiclass"):
        metrics.flat_f1_score(Y_TRUE, Y_PRED)          # average="binary", as scikit-learn
    with pytest.raises(ValueError, match="average"):
        metrics.flat_f1_score(Y_TRUE, Y_PRED, average="mean")
    with pytest.raises(ValueError, match="sequence 1"):
        metrics.flat_f1_score(Y_TRUE, [Y_PRED[0], ["O"]], average="micro")
    with pytest.raises(ValueError, match="2 sequences"):
        metrics.flat_accuracy_score(Y_TRUE, Y_PRED[:1])
    # binary: the positive label's figure
    yt, yp = [["y", "n", "y"]], [["y", "y", "n"]]
    assert metrics.flat_precision_score(yt, yp, pos_label="y") == 0.5
    with pytest.raises(ValueError, match="pos_label"):
        metrics.flat_f1_score(yt, yp)                   # pos_label=1 is no label here
    # a label never predicted: precision 0, with a warning
    with pytest.warns(metrics.UndefinedMetricWarning, match="I-LOC"):
        p = metrics.flat_precision_score(Y_TRUE, Y_PRED, labels=["I-LOC"], average=None)
    assert p == [0.0]
    assert metrics.flat_precision_score(Y_TRUE, Y_PRED, labels=["I-LOC"], average=None,
                                        zero_division=1) == [1.0]


def test_flat_report_text():
    rep = metrics.flat_classification_report(Y_TRUE, Y_PRED, digits=3)
    lines = rep.splitlines()
    assert lines[0].split() == ["precision", "recall", "f1-score", "support"]
    assert lines[2].split() == ["B-LOC", "0.000", "0.000", "0.000", "1"]
    assert lines[5].split() == ["O", "0.667", "0.667", "0.667", "3"]
    assert lines[7].split() == ["accuracy", "0.571", "7"]
    assert lines[8].split()[:2] == ["macro", "avg"]
    # a subset of labels: a micro average instead of the accuracy
    rep = metrics.flat_classification_report(Y_TRUE, Y_PRED, labels=["B-PER", "I-PER"])
    assert "micro avg" in rep and "accuracy" not in rep
    d = metrics.flat_classification_report(Y_TRUE, Y_PRED, output_dict=True)
    assert d["accuracy"] == pytest.approx(4 / 7)
    assert d["O"] == {"precision": pytest.approx(2 / 3), "recall": pytest.approx(2 / 3),
                      "f1-score": pytest.approx(2 / 3), "support": 3}
    assert d["weighted avg"]["support"] == 7


def random_labels(rng, n, types=("PER", "LOC", "ORG")):
    out, prev = [], "O"
    for _ in range(n):
        x = rng.random()
        if x < 0.5:
            lab = "O"
        elif x < 0.75 or prev == "O":
            lab = "B-" + rng.choice(types)
        else:
            lab = "I-" + (prev[2:] if rng.random() < 0.8 else rng.choice(types))
        out.append(lab)
        prev = lab
    return out


def corrupt(rng, seq, rate=0.2):
    return [random_labels(rng, 1)[0] if rng.random() < rate else lab for lab in seq]


def test_against_scikit_learn():
    skm = pytest.importorskip("sklearn.metrics")
    rng = random.Random(5)
    for trial in range(20):
        yt = [random_labels(rng, rng.randint(1, 12)) for _ in range(rng.randint(1, 30))]
        yp = [corrupt(rng, s, 0.3) for s in yt]
        ft = [lab for s in yt for lab in s]
        fp = [lab for s in yp for lab in s]
        labels = None if trial % 2 else sorted({lab for lab in ft + fp if lab != "O"})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for avg in ("micro", "macro", "weighted", None):
                for mine, theirs in ((metrics.flat_precision_score, skm.precision_score),
                                     (metrics.flat_recall_score, skm.recall_score),
                                     (metrics.flat_f1_score, skm.f1_score)):
                    a = mine(yt, yp, labels=labels, average=avg)
                    b = theirs(ft, fp, labels=labels, average=avg)
                    assert a == pytest.approx(list(b) if avg is None else b), (trial, avg)
            assert metrics.flat_fbeta_score(yt, yp, 0.5, labels=labels, average="macro") == \
                pytest.approx(skm.fbeta_score(ft, fp, beta=0.5, labels=labels, average="macro"))
            assert metrics.flat_classification_report(yt, yp, labels=labels, digits=4) == \
                skm.classification_report(ft, fp, labels=labels, digits=4)
            mine = metrics.flat_classification_report(yt, yp, labels=labels, output_dict=True)
            theirs = skm.classification_report(ft, fp, labels=labels, output_dict=True)
            assert set(mine) == set(theirs)
            for k, v in theirs.items():
                assert mine[k] == (pytest.approx(v) if not isinstance(v, dict)
                                   else {m: pytest.approx(x) for m, x in v.items()}), k


def conlleval_by_hand(yt, yp):
    """Chunks as sets of (sequence, start, end, type) from BIO labels (an I-
    after O or another type starts a chunk, as conlleval has it)."""
    def spans(seqs):
        out = set()
        for i, s in enumerate(seqs):
            start, typ = None, None
            for t, lab in enumerate(list(s) + ["O"]):
                tag, _, ty = lab.partition("-")
                if start is not None and (tag in ("B", "O") or ty != typ):
                    out.add((i, start, t, typ))
                    start = None
                if tag == "B" or (tag == "I" and start is None):
                    start, typ = t, ty
        return out
    g, p = spans(yt), spans(yp)
    return len(g & p), len(g), len(p)


def test_chunk_scores_by_hand():
    s = metrics.chunk_scores(Y_TRUE, Y_PRED)
    # gold: PER(0-2), LOC, PER; predicted: PER(0-2), LOC at 3, PER at 0 of seq 2
    assert (s["correct"], s["found_gold"], s["found_guess"]) == (1, 3, 3)
    assert s["f1"] == pytest.approx(1 / 3) and s["accuracy"] == pytest.approx(4 / 7)
    assert s["types"]["PER"]["correct"] == 1 and s["types"]["LOC"]["correct"] == 0
    assert metrics.chunk_f1_score(Y_TRUE, Y_TRUE) == 1.0
    # a chunk does not run on from one sequence into the next
    s = metrics.chunk_scores([["B-X"], ["I-X"]], [["B-X"], ["I-X"]])
    assert (s["correct"], s["found_gold"]) == (2, 2)
    rng = random.Random(9)
    for _ in range(50):
        yt = [random_labels(rng, rng.randint(1, 10)) for _ in range(rng.randint(1, 20))]
        yp = [corrupt(rng, s) for s in yt]
        s = metrics.chunk_scores(yt, yp)
        assert (s["correct"], s["found_gold"], s["found_guess"]) == conlleval_by_hand(yt, yp)
    with pytest.raises(TypeError, match=r"y_pred\[0\]\[1\] must be str"):
        metrics.chunk_scores([["O", "O"]], [["O", 3]])
    with pytest.raises(ValueError, match="NUL"):
        metrics.chunk_scores([["B-A\0B"]], [["O"]])
    with pytest.raises(ValueError, match="sequence 0: 2 gold labels, 1 predicted"):
        metrics.chunk_scores([["O", "O"]], [["O"]])


CRFPIPE = os.environ.get("CRFPIPE")


@pytest.mark.skipif(not CRFPIPE, reason="needs the crfpipe program ($CRFPIPE)")
def test_chunk_scores_equal_crfpipe_eval(tmp_path):
    """The same labels written as a column file and scored by crfpipe eval
    give the same counts and F1 per type."""
    rng = random.Random(3)
    yt = [random_labels(rng, rng.randint(1, 15)) for _ in range(200)]
    yp = [corrupt(rng, s) for s in yt]
    path = tmp_path / "tagged.txt"
    with open(path, "w") as f:
        for g, p in zip(yt, yp):
            for t, (a, b) in enumerate(zip(g, p)):
                f.write("w%d %s %s\n" % (t, a, b))
            f.write("\n")
    out = subprocess.run([CRFPIPE, "eval", str(path)], check=True, capture_output=True,
                         text=True).stdout
    s = metrics.chunk_scores(yt, yp)
    m = re.search(r"processed (\d+) tokens with (\d+) phrases; found: (\d+) phrases; "
                  r"correct: (\d+)", out)
    assert m, out
    assert tuple(map(int, m.groups())) == (s["tokens"], s["found_gold"], s["found_guess"],
                                           s["correct"])
    f1 = float(re.search(r"^chunk F1: ([0-9.]+)", out, re.M).group(1))
    assert f1 == pytest.approx(100 * s["f1"], abs=0.005)
    for typ, v in s["types"].items():
        m = re.search(r"^ *%s: precision: *([0-9.]+)%%; recall: *([0-9.]+)%%; FB1: *([0-9.]+)"
                      r" +(\d+)" % typ, out, re.M)
        assert m, (typ, out)
        assert float(m.group(3)) == pytest.approx(100 * v["f1"], abs=0.005)
        assert int(m.group(4)) == v["found_guess"]
    # and the report prints the type lines as conlleval does
    rep = metrics.chunk_classification_report(yt, yp)
    for typ in s["types"]:
        line = [l for l in rep.splitlines() if l.strip().startswith(typ + ":")][0]
        assert line in out, line
