"""Scores of label sequences: sklearn-crfsuite's ``metrics`` names, without
scikit-learn, and the chunk (entity) scores ``crfpipe eval`` prints.

``flat_*`` treat every token as one classification, as sklearn-crfsuite's
functions of the same names do (they flatten the sequences and call
scikit-learn); their ``average`` and ``labels`` arguments mean what
scikit-learn's do, and so does the text of ``flat_classification_report``.
Where scikit-learn returns a NumPy array (``average=None``), these return
a list.

For chunking and named entities the token figures flatter a tagger: a
two-token entity with one wrong label counts half right.  ``chunk_scores``,
``chunk_f1_score`` and ``chunk_classification_report`` score whole spans
by conlleval's rules (BIO, IOB1, IOE, BIOES labels), with the evaluator
``crfpipe eval`` runs, so that both give the same figures.
"""

import warnings

from ._crfpipe import chunk_eval as _chunk_eval

__all__ = ["flat_accuracy_score", "flat_precision_score", "flat_recall_score",
           "flat_f1_score", "flat_fbeta_score", "flat_classification_report",
           "sequence_accuracy_score", "chunk_scores", "chunk_f1_score",
           "chunk_classification_report"]

_AVERAGES = (None, "micro", "macro", "weighted", "binary")


class UndefinedMetricWarning(UserWarning):
    """A precision or recall of a label with no prediction or no gold token:
    taken as 0 (scikit-learn's zero_division="warn")."""


def _flatten(y_true, y_pred):
    y_true, y_pred = list(y_true), list(y_pred)
    if len(y_true) != len(y_pred):
        raise ValueError("y_true has %d sequences, y_pred %d" % (len(y_true), len(y_pred)))
    gold, pred = [], []
    for i, (g, p) in enumerate(zip(y_true, y_pred)):
        g, p = list(g), list(p)
        if len(g) != len(p):
            raise ValueError("sequence %d: %d gold labels, %d predicted" % (i, len(g), len(p)))
        gold.extend(g)
        pred.extend(p)
    return gold, pred


def _ratio(num, den, zero_division, what, label):
    if den:
        return num / den
    if zero_division == "warn":
        warnings.warn("%s of label %r is ill-defined (no %s): taken as 0" %
                      (what, label, "prediction" if what == "precision" else "gold token"),
                      UndefinedMetricWarning, stacklevel=4)
        return 0.0
    return float(zero_division)


def _fbeta(p, r, beta):
    b2 = beta * beta
    return (1 + b2) * p * r / (b2 * p + r) if (b2 * p + r) > 0 else 0.0


def _counts(gold, pred, labels):
    tp = dict.fromkeys(labels, 0)
    n_true = dict.fromkeys(labels, 0)
    n_pred = dict.fromkeys(labels, 0)
    for g, p in zip(gold, pred):
        if g in n_true:
            n_true[g] += 1
        if p in n_pred:
            n_pred[p] += 1
        if g == p and g in tp:
            tp[g] += 1
    return tp, n_true, n_pred


def _prfs(y_true, y_pred, labels=None, average=None, beta=1.0, pos_label=1,
          zero_division="warn"):
    """(precision, recall, fbeta, support) as scikit-learn's
    precision_recall_fscore_support computes them on the flattened labels."""
    if average not in _AVERAGES:
        raise ValueError("average must be one of %s, not %r" % (list(_AVERAGES), average))
    if not beta > 0:
        raise ValueError("beta must be > 0, not %r" % (beta,))
    gold, pred = _flatten(y_true, y_pred)
    present = sorted(set(gold) | set(pred))
    if average == "binary":
        if len(present) > 2:
            raise ValueError("Target is multiclass but average='binary'. Please choose another "
                             "average setting, one of [None, 'micro', 'macro', 'weighted'].")
        if pos_label not in present and present:
            raise ValueError("pos_label=%r is not a valid label: it should be one of %s" %
                             (pos_label, present))
        labels, average = [pos_label], None
    labels = present if labels is None else list(labels)
    tp, n_true, n_pred = _counts(gold, pred, labels)
    if average == "micro":
        t, st, sp = sum(tp.values()), sum(n_true.values()), sum(n_pred.values())
        p = _ratio(t, sp, zero_division, "precision", "micro")
        r = _ratio(t, st, zero_division, "recall", "micro")
        return p, r, _fbeta(p, r, beta), None
    ps = [_ratio(tp[l], n_pred[l], zero_division, "precision", l) for l in labels]
    rs = [_ratio(tp[l], n_true[l], zero_division, "recall", l) for l in labels]
    fs = [_fbeta(p, r, beta) for p, r in zip(ps, rs)]
    sup = [n_true[l] for l in labels]
    if average is None:
        return ps, rs, fs, sup
    if average == "macro":
        n = len(labels)
        return (sum(ps) / n, sum(rs) / n, sum(fs) / n, None) if n else (0.0, 0.0, 0.0, None)
    total = sum(sup)   # weighted
    if not total:
        return 0.0, 0.0, 0.0, None
    return (sum(p * w for p, w in zip(ps, sup)) / total,
            sum(r * w for r, w in zip(rs, sup)) / total,
            sum(f * w for f, w in zip(fs, sup)) / total, None)


def _one(values, average):
    # binary: pos_label's figure, scored as the only label
    return values[0] if average == "binary" else values


def flat_accuracy_score(y_true, y_pred):
    """The fraction of tokens labelled correctly."""
    gold, pred = _flatten(y_true, y_pred)
    return sum(g == p for g, p in zip(gold, pred)) / len(gold) if gold else 0.0


def flat_precision_score(y_true, y_pred, labels=None, pos_label=1, average="binary",
                         zero_division="warn"):
    """Token precision; average: None (a list, one per label), 'micro',
    'macro', 'weighted' or 'binary' (pos_label's, two labels at most)."""
    p = _prfs(y_true, y_pred, labels, average, 1.0, pos_label, zero_division)[0]
    return _one(p, average)


def flat_recall_score(y_true, y_pred, labels=None, pos_label=1, average="binary",
                      zero_division="warn"):
    """Token recall; the arguments of flat_precision_score."""
    r = _prfs(y_true, y_pred, labels, average, 1.0, pos_label, zero_division)[1]
    return _one(r, average)


def flat_fbeta_score(y_true, y_pred, beta, labels=None, pos_label=1, average="binary",
                     zero_division="warn"):
    """Token F-beta; the arguments of flat_precision_score."""
    f = _prfs(y_true, y_pred, labels, average, beta, pos_label, zero_division)[2]
    return _one(f, average)


def flat_f1_score(y_true, y_pred, labels=None, pos_label=1, average="binary",
                  zero_division="warn"):
    """Token F1; the arguments of flat_precision_score.  For entities,
    chunk_f1_score is the figure to report."""
    f = _prfs(y_true, y_pred, labels, average, 1.0, pos_label, zero_division)[2]
    return _one(f, average)


def flat_classification_report(y_true, y_pred, labels=None, target_names=None, digits=2,
                               output_dict=False, zero_division="warn"):
    """Per-label precision, recall, F1 and support, then the accuracy (or
    the micro average, when labels leaves some out), macro and weighted
    averages: the text of scikit-learn's classification_report, or with
    output_dict its dict ({name: {"precision", "recall", "f1-score",
    "support"}}, "accuracy" a number)."""
    gold, pred = _flatten(y_true, y_pred)
    present = sorted(set(gold) | set(pred))
    labels_given = labels is not None
    labels = present if labels is None else list(labels)
    if target_names is None:
        target_names = [str(l) for l in labels]
    elif len(target_names) != len(labels):
        raise ValueError("%d target_names for %d labels" % (len(target_names), len(labels)))
    ps, rs, fs, sup = _prfs(y_true, y_pred, labels, None, 1.0, 1, zero_division)
    total = sum(sup)
    micro_is_accuracy = not labels_given or set(labels) >= set(present)
    rows = [(name, p, r, f, s) for name, p, r, f, s in zip(target_names, ps, rs, fs, sup)]
    avgs = []
    for avg in ("micro", "macro", "weighted"):
        p, r, f, _ = _prfs(y_true, y_pred, labels, avg, 1.0, 1, zero_division)
        heading = "accuracy" if avg == "micro" and micro_is_accuracy else avg + " avg"
        avgs.append((heading, p, r, f, total))
    if output_dict:
        out = {name: {"precision": p, "recall": r, "f1-score": f, "support": s}
               for name, p, r, f, s in rows}
        for heading, p, r, f, s in avgs:
            out[heading] = f if heading == "accuracy" else {
                "precision": p, "recall": r, "f1-score": f, "support": s}
        return out
    width = max([len(n) for n in target_names] + [len("weighted avg"), digits])
    head = "{:>{w}s} " + " {:>9}" * 4
    row = "{:>{w}s} " + " {:>9.{d}f}" * 3 + " {:>9}\n"
    text = head.format("", "precision", "recall", "f1-score", "support", w=width) + "\n\n"
    for name, p, r, f, s in rows:
        text += row.format(name, p, r, f, s, w=width, d=digits)
    text += "\n"
    for heading, p, r, f, s in avgs:
        if heading == "accuracy":
            text += ("{:>{w}s} " + " {:>9}" * 2 + " {:>9.{d}f} {:>9}\n").format(
                "accuracy", "", "", f, s, w=width, d=digits)
        else:
            text += row.format(heading, p, r, f, s, w=width, d=digits)
    return text


def sequence_accuracy_score(y_true, y_pred):
    """The fraction of sequences labelled correctly in full."""
    y_true, y_pred = list(y_true), list(y_pred)
    if len(y_true) != len(y_pred):
        raise ValueError("y_true has %d sequences, y_pred %d" % (len(y_true), len(y_pred)))
    if not y_true:
        return 0.0
    return sum(list(g) == list(p) for g, p in zip(y_true, y_pred)) / len(y_true)


def _prf(correct, gold, guess):
    p = correct / guess if guess else 0.0
    r = correct / gold if gold else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def chunk_scores(y_true, y_pred):
    """Chunk (entity) scores by conlleval's rules, as ``crfpipe eval`` prints
    them, but as fractions: a dict with precision, recall, f1, correct,
    found_gold, found_guess, accuracy (of tokens), tokens, and types, a dict
    of the same per chunk type.  A chunk is right when its type, start and
    end all are; each sequence ends the chunks open in it."""
    c = _chunk_eval(y_true, y_pred)
    p, r, f = _prf(c["correct"], c["found_gold"], c["found_guess"])
    types = {}
    for t, correct, gold, guess in c["types"]:
        tp, tr, tf = _prf(correct, gold, guess)
        types[t] = {"precision": tp, "recall": tr, "f1": tf, "correct": correct,
                    "found_gold": gold, "found_guess": guess}
    return {"precision": p, "recall": r, "f1": f, "correct": c["correct"],
            "found_gold": c["found_gold"], "found_guess": c["found_guess"],
            "accuracy": c["correct_tags"] / c["tokens"] if c["tokens"] else 0.0,
            "tokens": c["tokens"], "types": types}


def chunk_f1_score(y_true, y_pred):
    """The chunk (entity) F1 of conlleval, as a fraction."""
    return chunk_scores(y_true, y_pred)["f1"]


def chunk_classification_report(y_true, y_pred, digits=2):
    """Per chunk type precision, recall and F1 (in percent) and the chunks
    found, then the totals: conlleval's report."""
    s = chunk_scores(y_true, y_pred)
    out = ("processed %d tokens with %d phrases; found: %d phrases; correct: %d.\n" %
           (s["tokens"], s["found_gold"], s["found_guess"], s["correct"]))
    out += ("accuracy: %6.{d}f%%; precision: %6.{d}f%%; recall: %6.{d}f%%; FB1: %6.{d}f\n"
            .format(d=digits) % (100 * s["accuracy"], 100 * s["precision"],
                                 100 * s["recall"], 100 * s["f1"]))
    for t, v in s["types"].items():
        out += ("%17s: precision: %6.{d}f%%; recall: %6.{d}f%%; FB1: %6.{d}f  %d\n"
                .format(d=digits) % (t, 100 * v["precision"], 100 * v["recall"],
                                     100 * v["f1"], v["found_guess"]))
    return out
