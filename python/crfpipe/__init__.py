"""Python bindings of crfpipe, a text pipeline around a sparse linear-chain CRF.

The API follows python-crfsuite, so that code written for it reads the same::

    import crfpipe

    trainer = crfpipe.Trainer(verbose=False)
    for xseq, yseq in data:                 # xseq: one list of attributes per token
        trainer.append(xseq, yseq)
    trainer.set_params({"c2": 0.3, "max_iterations": 50})
    trainer.train("model.crfpipe")

    tagger = crfpipe.Tagger()
    tagger.open("model.crfpipe")
    tagger.tag(xseq)                        # ['B-NP', 'I-NP', ...]
    tagger.set(xseq); tagger.marginal("B-NP", 0)

crfpipe also trains from feature templates (CRF++/Wapiti syntax) over token
columns, exactly as ``crfpipe train --template`` does::

    trainer = crfpipe.Trainer(template="chunking.tpl", columns=("word", "pos"))
    trainer.append([("He", "PRP"), ("reckons", "VBZ")], ["B-NP", "B-VP"])

Models are ordinary crfpipe model files: ``crfpipe tag`` and ``crfpipe model
dump`` read what Python writes and the other way round.  Tagging many
sequences at once (``Tagger.tag_batch``) decodes them on all cores without
the GIL.  ``run()`` streams text through any pipeline.  ``CRF`` is a
scikit-learn style estimator, and ``crfpipe.metrics`` has sklearn-crfsuite's
scores and the chunk scores of ``crfpipe eval``.  Every crfpipe failure raises ``crfpipe.Error``
with crfpipe's own message.
"""

import os
import shutil
import sys
import tempfile
import warnings
import xml.etree.ElementTree as ET

from ._crfpipe import Error, Model, stage_params
from ._crfpipe import attr_cell as _attr_cell
from ._crfpipe import plugins as _plugins
from ._crfpipe import run_pipeline as _run_pipeline
from ._crfpipe import run_stages as _run_stages

__all__ = ["Error", "Model", "ModelInfo", "ItemSequence", "TrainLog", "Trainer", "Tagger", "CRF",
           "run", "dump_model", "plugins", "stage_params", "CrfpipeWarning"]

# a sequence's largest weight (CRFP_MAX_SEQ_WEIGHT, crf.h)
_MAX_WEIGHT = 1e9

# crfpipe_log_level values (status.h)
_LOG_ERROR, _LOG_WARN, _LOG_INFO, _LOG_PROGRESS = 0, 1, 2, 3


class CrfpipeWarning(UserWarning):
    """A warning crfpipe logged while training or running a pipeline."""


def plugins(plugin_path=None):
    """Every plugin on the search path: a list of dicts (name, kind, version,
    file, description)."""
    return _plugins(plugin_path=plugin_path)


def dump_model(path):
    """The text dump of a model file (labels, features, metadata, weights)."""
    return Model(path).dump()


# python-crfsuite's algorithm names, and what they are in crfpipe
_ALGORITHMS = {
    "lbfgs": ("lbfgs", {}),
    "l2sgd": ("sgd-l1", {"rho1": "0"}),
    "ap": ("perceptron", {}),
    "pa": ("perceptron", {"variant": "pa"}),
    "arow": ("perceptron", {"variant": "arow"}),
}

# python-crfsuite's parameter names that have a crfpipe counterpart
_PARAM_ALIASES = {
    "c1": "rho1",
    "c2": "rho2",
    "max_iterations": "max-iter",
    "num_memories": "history",
    "period": "window",
    "delta": "epsilon",
    # counted per attribute-label pair, values and sequence weights summed,
    # as by CRFsuite, in its model family (possible_states and
    # possible_transitions False); with every pair weighed, per attribute
    "feature.minfreq": "min-freq",
}


# python-crfsuite's parameters measured otherwise than crfpipe's: CRFsuite
# adds c2·|w|² to its objective (gradient 2·c2·w), crfpipe rho2/2·|θ|², so
# c2 is rho2 / 2 (c1·|w|₁ and rho1·|θ|₁ agree)
_PARAM_SCALE = {"c2": 2.0}


# python-crfsuite's and sklearn-crfsuite's switches for the features of
# attribute-label and label-label pairs never seen in the training data, and
# crfpipe's training options that are the same switches.  crfpipe's default
# weighs them all (True); CRFsuite's is False.
_ALL_PAIRS = {"feature.possible_states": "all-states",
              "feature.possible_transitions": "all-transitions",
              "all_possible_states": "all-states",
              "all_possible_transitions": "all-transitions"}


def _param_name(name):
    name = _PARAM_ALIASES.get(name, name)
    return name.replace("_", "-")


def _value_text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return v if isinstance(v, str) else repr(v) if isinstance(v, float) else str(v)


def _check_cell(v, what):
    if not isinstance(v, str):
        raise TypeError("%s must be str, not %s" % (what, type(v).__name__))
    if not v or "\t" in v or "\n" in v or "\r" in v or "\0" in v:
        raise ValueError("%s %r: training data cannot hold an empty value, a tab, a line "
                         "break or a NUL character" % (what, v))
    return v


class TrainLog(list):
    """The iterations of a training run, a dict each (also what
    python-crfsuite's Trainer.logparser and sklearn-crfsuite's
    CRF.training_log_ give): ``iterations`` is the list itself and
    ``last_iteration`` its last entry.  Each dict holds crfpipe's keys
    (trainer, iteration, objective, active, dev_error, seconds...) and
    python-crfsuite's names of the same figures (num, loss, active_features,
    time)."""

    @property
    def iterations(self):
        return self

    @property
    def last_iteration(self):
        return self[-1] if self else None


# python-crfsuite's names for crfpipe's iteration figures
_LOG_ALIASES = {"num": "iteration", "loss": "objective", "active_features": "active",
                "time": "seconds"}


class ItemSequence:
    """A sequence's tokens converted once to crfpipe's attributes
    (python-crfsuite's ItemSequence): give it to Trainer.append or Tagger
    instead of the list when the same sequence is used more than once.

    Tokens are given as to the Trainer of an attribute model: a list of
    attribute strings, or a dict of name -> str value (the attribute
    "name=value"), number (the attribute "name" with that weight, by which
    its features are scaled as in CRFsuite; True is 1, 0 and False leave it
    out) or nested dict, list or set, whose attributes get "name:" in front,
    as python-crfsuite flattens them.
    """

    def __init__(self, xseq):
        if isinstance(xseq, ItemSequence):
            self._cells = list(xseq._cells)
        else:
            self._cells = [_attr_cell(t) for t in xseq]

    def items(self):
        """Each token's attributes as a dict {attribute: value} (1.0 unless
        a weight was given)."""
        return [{a: v for a, v in _split_cell(c)} for c in self._cells]

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        # each token as the list of its attributes, {attribute: value} for
        # those with a value other than 1, which every conversion takes back
        # unchanged
        return iter([[a if v == 1.0 else {a: v} for a, v in _split_cell(c)]
                     for c in self._cells])

    def __repr__(self):
        return "<ItemSequence of size %d>" % len(self)


_UNESCAPE = {"s": " ", "t": "\t", "n": "\n", "r": "\r", "\\": "\\", "_": "_"}


def _split_cell(cell):
    """The attributes of an attribute cell as (name, value) pairs (the
    inverse of attr_cell): a trailing "\\*W" is the value W, else 1.0."""
    if cell == "_":
        return []
    out = []
    for a in cell.split(" "):
        r, i, value = [], 0, 1.0
        while i < len(a):
            if a[i] == "\\" and i + 1 < len(a):
                if a[i + 1] == "*":
                    value = float(a[i + 2:])
                    break
                r.append(_UNESCAPE.get(a[i + 1], a[i + 1]))
                i += 2
            else:
                r.append(a[i])
                i += 1
        out.append(("".join(r), value))
    return out


class Trainer:
    """Collects labelled sequences and trains a model (python-crfsuite's
    Trainer).

    algorithm: a crfpipe trainer (lbfgs, sgd-l1, perceptron, or a chain such
    as "sgd-l1,lbfgs") or a python-crfsuite name (lbfgs, l2sgd, ap, pa, arow;
    arow's gamma defaults to 100, not CRFsuite's 1: see ``help("gamma")``).
    params: trainer parameters; python-crfsuite's c1, c2, max_iterations,
    num_memories, period and delta are understood, with CRFsuite's meaning
    (c2 adds c2·|w|², crfpipe's rho2 rho2/2·|θ|²: c2 = 0.5 is rho2 = 1), other
    names are crfpipe's (underscores read as dashes): see ``params()`` and
    ``help(name)``.

    Without ``template`` a token is a list of attribute strings, or a dict
    (name -> str value, a weight that scales the attribute's features, or
    a nested dict, list or set), as in python-crfsuite (see ItemSequence):
    every attribute is an observation.  With ``template`` (a template file) or
    ``template_text`` a token is a tuple of column values (named by
    ``columns``) or a dict of them, and the template makes the observations.
    """

    def __init__(self, algorithm="lbfgs", params=None, verbose=True, *, template=None,
                 template_text=None, columns=None, threads=0, plugin_path=None):
        if template is not None and template_text is not None:
            raise ValueError("give template or template_text, not both")
        self.verbose = verbose
        self._template = template
        self._template_text = template_text
        self._columns = tuple(columns) if columns is not None else None
        self._threads = threads
        self._plugin_path = plugin_path
        self._data = {}
        self._params = {}
        self.iterations = self.logparser = TrainLog()
        self.select(algorithm)
        if params:
            self.set_params(params)

    # --- algorithm and parameters -------------------------------------------------
    def select(self, algorithm, type="crf1d"):
        """Choose the training algorithm (and keep the parameters set so far)."""
        if type != "crf1d":
            raise ValueError("crfpipe trains linear-chain CRFs only (type 'crf1d')")
        name, implied = _ALGORITHMS.get(algorithm, (algorithm, {}))
        self._declared = {}
        for t in name.split(","):
            for pname, ptype, default, helptext in stage_params(t, plugin_path=self._plugin_path):
                self._declared.setdefault(pname, (ptype, default, helptext))
        self.algorithm = name
        self._implied = dict(implied)

    def params(self):
        """The names of the parameters the selected trainer accepts."""
        return [n for n in self._declared if n not in ("model", "init-model", "dev", "label")]

    def help(self, name):
        """One line about a parameter: its type, default and meaning."""
        ptype, default, helptext = self._declared[_param_name(name)]
        return "%s (%s, default %s)" % (helptext, ptype, default)

    def set(self, name, value):
        if name in _ALL_PAIRS:
            # 0/1 and "0"/"1" as python-crfsuite takes them, booleans as
            # sklearn-crfsuite does
            value = not (not value or value in ("0", "false", "False"))
            name = _ALL_PAIRS[name]
        pname = _param_name(name)
        if pname not in self._declared:
            raise ValueError("trainer %s has no parameter %r (see Trainer.params())"
                             % (self.algorithm, name))
        if pname in ("model", "dev", "label"):
            raise ValueError("%r is set by Trainer.train(), not as a parameter" % name)
        if pname == "min-freq" and isinstance(value, float) and value.is_integer():
            value = int(value)  # crfsuite's feature.minfreq is a float
        if name in _PARAM_SCALE:
            value = float(value) * _PARAM_SCALE[name]
        self._params[pname] = _value_text(value)

    def set_params(self, params):
        for k, v in params.items():
            self.set(k, v)

    def get(self, name):
        pname = _param_name(name)
        if pname in self._params:
            v = self._params[pname]
        elif pname in self._implied:
            v = self._implied[pname]
        else:
            v = self._declared[pname][1]
        return float(v) / _PARAM_SCALE[name] if name in _PARAM_SCALE else v

    def get_params(self):
        return {n: self.get(n) for n in self.params()}

    # --- data ---------------------------------------------------------------------
    def clear(self):
        """Forget the sequences appended so far."""
        self._data = {}

    def append(self, xseq, yseq, group=0, weight=1.0):
        """Add one labelled sequence.  group: a number; train(model, holdout=G)
        uses group G as the dev set instead of training on it.  weight: the
        sequence's weight in the training objective, a number from 0 to 1e9
        (CRFsuite's @weight; as if it were appended `weight` times; the dev
        set is not weighed)."""
        try:
            w = float(weight)
        except (TypeError, ValueError):
            raise TypeError("weight must be a number, not %s" % type(weight).__name__) from None
        if not 0.0 <= w <= _MAX_WEIGHT:
            raise ValueError("weight %r: a sequence's weight is a number from 0 to 1e9" % weight)
        xs, ys = list(xseq), list(yseq)
        if len(xs) != len(ys):
            raise ValueError("xseq has %d items and yseq %d labels" % (len(xs), len(ys)))
        if not xs:
            return
        labels = [_check_cell(y, "a label") for y in ys]
        if self._template is None and self._template_text is None:
            rows = [(_attr_cell(t),) for t in xs]
        elif isinstance(xs[0], dict):
            rows = [dict(t) for t in xs]
            for t in rows:
                for k, v in t.items():
                    _check_cell(k, "a column name")
                    _check_cell(v, "column %r" % k)
        else:
            rows = []
            for t in xs:
                row = (t,) if isinstance(t, str) else tuple(t)
                for v in row:
                    _check_cell(v, "a column value")
                rows.append(row)
        self._data.setdefault(group, []).append((rows, labels, w))

    # --- training -----------------------------------------------------------------
    def message(self, s):
        """Called with each line crfpipe logs (progress, summaries); prints it
        when verbose.  Override to redirect."""
        if self.verbose:
            print(s, file=sys.stdout, flush=True)

    def on_iteration(self, info):
        """Called after each training iteration with a dict (trainer,
        iteration, objective, active, dev_error, seconds...).  Override to
        follow training; the dicts are also kept in ``self.iterations``."""

    def _columns_for(self, seqs):
        """Column names of the training file, the label's last."""
        if self._template is None and self._template_text is None:
            return ["attrs"], False
        first = seqs[0][0][0]
        if isinstance(first, dict):
            names = []
            for rows, _, _ in seqs:
                for t in rows:
                    for k in t:
                        if k not in names:
                            names.append(k)
            return names, True
        width = max(len(t) for rows, _, _ in seqs for t in rows)
        if self._columns is not None:
            if len(self._columns) < width:
                raise ValueError("tokens have %d columns but columns names %d"
                                 % (width, len(self._columns)))
            return list(self._columns[:width]), True
        return [str(i) for i in range(width)], False

    @staticmethod
    def _write(path, seqs, names, weighted):
        """The sequences as columns; `weighted`: each token also carries its
        sequence's weight in a column before the label (CoNLL data has no
        sentence features; crfpipe takes a column all of whose tokens agree
        as the sentence's weight)."""
        dicts = seqs and isinstance(seqs[0][0][0], dict)
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            for rows, labels, w in seqs:
                wcell = ["%r" % w] if weighted else []
                for t, y in zip(rows, labels):
                    if dicts:
                        cells = [t.get(n, "_") for n in names]
                    else:
                        cells = list(t) + ["_"] * (len(names) - len(t))
                    f.write("\t".join(cells + wcell))
                    f.write("\t")
                    f.write(y)
                    f.write("\n")
                f.write("\n")

    def train(self, model, holdout=-1):
        """Train on every group but `holdout` (the dev set: its error is
        printed each iteration and stops training when it no longer improves)
        and write the model file.  Returns nothing; the iterations are in
        ``self.iterations``.  Raises crfpipe.Error when crfpipe fails."""
        self._run(os.fspath(model), holdout, {})

    def cross_validate(self, folds=5, split="blocks", holdout=-1, model=None):
        """K-fold cross-validation (``crfpipe train --cv-folds``): the data
        of every group but `holdout` is cut into `folds` folds (`split`
        "blocks": runs of consecutive sequences, groups in increasing order
        and each group's in the order appended;
        "interleaved": sequence i in fold i mod K); each fold's model is
        trained on the others and scored on it.  Returns a list with a dict
        per fold: fold, train_sentences, heldout_sentences, heldout_tokens,
        iterations, objective, active, parameters, token_errors,
        sequence_errors, token_error and sequence_error (rates, 0..1),
        seconds, cpu_seconds, interrupted, and when the labels are chunk
        tags (O, B-x, I-x...) chunks {correct, expected, found} and chunk_f1
        (0..100, as conlleval).  With `model`, a model of all the data is
        then trained and written there.  `holdout` still stops each fold's
        training."""
        results = []
        extra = {"cv-folds": str(int(folds)), "cv-split": split}
        self._run(None if model is None else os.fspath(model), holdout, extra, results)
        for f in results:
            f["token_error"] = f["token_errors"] / f["heldout_tokens"]
            f["sequence_error"] = f["sequence_errors"] / f["heldout_sentences"]
            ch = f.get("chunks")
            if ch is not None:
                p = ch["correct"] / ch["found"] if ch["found"] else 0.0
                r = ch["correct"] / ch["expected"] if ch["expected"] else 0.0
                f["chunk_f1"] = 200.0 * p * r / (p + r) if p + r > 0 else 0.0
        return results

    def _run(self, model, holdout, extra, folds=None):
        """Train through a pipeline of the appended data: `model` (None:
        none is written), `extra` trainer parameters, `folds` the list the
        cross-validation's folds go to."""
        seqs = [s for g, ss in sorted(self._data.items()) if g != holdout for s in ss]
        dev = self._data.get(holdout, []) if holdout != -1 else []
        if not seqs:
            raise ValueError("no training data: call append() first")
        names, named = self._columns_for(seqs + dev)
        label = "label" if "label" not in names else "__label__"
        weighted = any(w != 1.0 for _, _, w in seqs)
        wname = "__weight__"
        if weighted and wname in names:
            raise ValueError("a column is named %r, the name weighted sequences need" % wname)
        tmp = tempfile.mkdtemp(prefix="crfpipe-train-")
        try:
            train_path = os.path.join(tmp, "train.tsv")
            self._write(train_path, seqs, names, weighted)
            rcols = names + ([wname] if weighted else []) + [label]
            reader = [("columns", ",".join(rcols)), ("separator", "tab"),
                      ("docstart", "false")]
            if self._template is None and self._template_text is None:
                features = ("attributes", [("columns", "attrs")])
            else:
                tpl = self._template
                if tpl is None:
                    tpl = os.path.join(tmp, "template.tpl")
                    with open(tpl, "w", encoding="utf-8") as f:
                        f.write(self._template_text)
                fparams = [("template", os.fspath(tpl))]
                if named:
                    # recorded in the model, so that a Tagger names tuple
                    # positions the same way
                    fparams.append(("columns", ",".join(names)))
                features = ("templates", fparams)
            tparams = dict(self._implied)
            tparams.update(self._params)
            tparams.update(extra)
            if model is not None:
                tparams["model"] = model
            tparams["label"] = label
            tparams["weight-feature"] = wname if weighted else ""
            if self._threads:
                tparams["threads"] = str(self._threads)
            if dev:
                dev_path = os.path.join(tmp, "dev.tsv")
                # the dev file's columns are the training file's
                self._write(dev_path, dev, names, weighted)
                tparams["dev"] = dev_path
            stages = [("conll_reader", reader), features]
            chain = self.algorithm.split(",")
            for i, t in enumerate(chain):
                mine = {}
                for k, v in tparams.items():
                    # in a chain the model is the last trainer's
                    if k == "model" and i + 1 < len(chain):
                        continue
                    mine[k] = v
                stages.append((t, list(mine.items())))
            self.iterations = self.logparser = TrainLog()

            def log(level, msg):
                if level == _LOG_WARN:
                    warnings.warn(msg, CrfpipeWarning, stacklevel=3)
                elif level > _LOG_WARN:
                    self.message(msg)

            def iteration(info):
                for alias, key in _LOG_ALIASES.items():
                    if key in info and alias not in info:
                        info[alias] = info[key]
                self.iterations.append(info)
                self.on_iteration(info)

            _run_stages(stages, train_path, is_path=True, log=log, iterations=iteration,
                        plugin_path=self._plugin_path, threads=self._threads, folds=folds)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


class ModelInfo(dict):
    """What Tagger.info() returns: a dict (meta, features, features_config,
    parameters, active, path) whose attributes are those of python-crfsuite's
    ParsedDump, computed from the model when first asked for:

    - labels: {label: id}
    - state_features: {(observation, label): weight}, the unigram weights
      (an observation is an attribute name, or a template pattern and its
      value such as "U02:the")
    - transitions: {(previous, label): weight}, the weights of the label
      bigram (the observation "B" of templates' bare B and of attribute
      models); previous is "<start>" at the first token
    - bigram_features: {(observation, previous, label): weight}, every
      bigram weight, those of B patterns on observations included
    - attributes: {observation: index} of the observations with a non-zero
      unigram weight, numbered in the model's order
    - header: the model's metadata (trainer, rho1, rho2, ...)

    Only non-zero weights are listed, as in crfpipe model dump.
    """

    def __init__(self, model):
        super().__init__(model.info)
        self._model = model
        self._cache = {}

    def _weights(self, kind):
        if kind not in self._cache:
            self._cache[kind] = self._model.weights(kind)
        return self._cache[kind]

    @property
    def labels(self):
        return {name: i for i, name in enumerate(self._model.labels)}

    @property
    def state_features(self):
        return dict(self._weights("U"))

    @property
    def attributes(self):
        # the weights come in observation order (crfp_crf_foreach_weight)
        out = {}
        for o, _ in self._weights("U"):
            if o not in out:
                out[o] = len(out)
        return out

    @property
    def bigram_features(self):
        return dict(self._weights("B"))

    @property
    def transitions(self):
        return {(p, y): w for (o, p, y), w in self._weights("B").items() if o == "B"}

    @property
    def header(self):
        return dict(self["meta"])


class Tagger:
    """Labels sequences with a model (python-crfsuite's Tagger).

    Tokens are given as they were to the Trainer: attribute lists or dicts
    for attribute models; tuples of column values (or dicts of them) for
    template models, a model trained with ``crfpipe train`` included (its
    tuple positions are named by ``columns``, else by the names the model
    recorded, else by number).  open() also reads the model files of
    CRFsuite (python-crfsuite, sklearn-crfsuite), Wapiti and CRF++ as they
    are; the last two tag tuples of the columns their programs read, and a
    Wapiti model trained without patterns lists of its observations (the
    fields of Wapiti's data, "u..."/"b..."/"*...").
    """

    def __init__(self):
        self._model = None
        self._xseq = None
        self._marg = None

    def open(self, name, columns=None, plugin_path=None):
        self._model = Model(os.fspath(name), columns=columns, plugin_path=plugin_path)
        self._xseq = self._marg = None
        return self

    def open_inmemory(self, value, columns=None, plugin_path=None):
        """Open a model given as bytes (the contents of a model file)."""
        fd, path = tempfile.mkstemp(prefix="crfpipe-model-")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(value)
            return self.open(path, columns=columns, plugin_path=plugin_path)
        finally:
            os.unlink(path)

    def close(self):
        self._model = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def model(self):
        if self._model is None:
            raise RuntimeError("no model: call Tagger.open() first")
        return self._model

    def labels(self):
        return list(self.model.labels)

    def info(self):
        """A ModelInfo: a dict of metadata, features plugin and
        configuration and parameter counts that also has python-crfsuite's
        labels, state_features and transitions."""
        return ModelInfo(self.model)

    def export_crfsuite(self, filename):
        """Write the model as a CRFsuite model file, which python-crfsuite's
        Tagger.open and sklearn-crfsuite read (crfpipe model export).  Only
        an attribute model without start weights fits CRFsuite's format:
        train it with all_possible_transitions=False (and, for CRFsuite's
        model family, all_possible_states=False); another raises
        crfpipe.Error with the reason."""
        self.model.export_crfsuite(os.fspath(filename))

    def dump(self, filename=None):
        """The model as text; written to `filename` when given."""
        text = self.model.dump()
        if filename is not None:
            with open(filename, "w", encoding="utf-8") as f:
                f.write(text)
        return text

    def set(self, xseq):
        """Make xseq the sequence probability() and marginal() are about."""
        self._xseq = list(xseq)
        self._marg = None

    def tag(self, xseq=None, decode="viterbi"):
        """The best labelling of xseq (default: the sequence given to set()).
        decode="posterior" instead gives each position its most probable
        label (fewer expected token errors; as crfpipe tag --decode
        posterior)."""
        if xseq is None:
            xseq = self._current()
        else:
            self.set(xseq)
        if decode == "posterior":
            labels = self.model.labels
            return [labels[max(range(len(r)), key=r.__getitem__)]
                    for r in self.model.marginals(self._xseq)]
        if decode != "viterbi":
            raise ValueError("decode must be 'viterbi' or 'posterior', not %r" % (decode,))
        return self.model.tag([self._xseq])[0]

    def tag_batch(self, xseqs, threads=0):
        """The best labellings of many sequences, decoded on `threads` threads
        (0: all cores) without the GIL: the fast way to tag a corpus."""
        return self.model.tag(xseqs, threads)

    def nbest(self, k, xseq=None):
        """The k best labellings with their probabilities, best first."""
        return self.model.nbest(self._current() if xseq is None else list(xseq), k)

    def features(self, xseq=None):
        """What the model's features extract from each token of xseq
        (default: the sequence given to set()): a list per token of
        (observation, kind, value), kind "U" (the observation's label
        weights), "B" (its label-pair weights) or "*" (both); value 1 but
        for valued attributes.  A template's observations are named by its
        pattern ("U02:cat"); as ``crfpipe features --model`` writes them."""
        return self.model.features(self._current() if xseq is None else list(xseq))

    def probability(self, yseq):
        """P(yseq | the sequence given to set())."""
        return self.model.probability(self._current(), list(yseq))

    def marginal(self, y, t):
        """P(label y at position t | the sequence given to set())."""
        if self._marg is None:
            self._marg = self.model.marginals(self._current())
        try:
            return self._marg[t][self.model.labels.index(y)]
        except ValueError:
            raise ValueError("unknown label %r" % (y,)) from None

    def marginals(self, xseq=None):
        """Every position's label distribution, as dicts label -> probability."""
        labels = self.model.labels
        rows = self.model.marginals(self._current() if xseq is None else list(xseq))
        return [dict(zip(labels, r)) for r in rows]

    def _current(self):
        if self._xseq is None:
            raise RuntimeError("no sequence: call Tagger.set(xseq) or pass xseq")
        return self._xseq


_PIPELINE_NS = "{urn:crfpipe:pipeline:1}"


def run(pipeline, text=None, *, path=None, texts=None, paths=None, plugin_path=None,
        threads=0):
    """Stream `text` (str or bytes) or the file `path` through a pipeline and
    return what its writer writes (str for str input, else bytes).

    With `texts` or `paths` (lists), every input goes through one run: the
    stages and their models are loaded once, and a list comes back with
    each input's output (a training pipeline trains on all of them and
    returns None).

    pipeline: a pipeline file (crfpipe-pipeline(5)), its XML text, or a list
    of (plugin, params) stages such as
    [("conll_reader", {"columns": "word,pos"}), ("viterbi", {"model": "m"}),
     ("conll_writer", {})].  Relative paths in the XML text and in stage
    lists are taken from the current directory.
    """
    given = [x is not None for x in (text, path, texts, paths)]
    if sum(given) != 1:
        raise TypeError("give one of text, path, texts or paths")
    many = texts is not None or paths is not None
    if paths is not None:
        data = [os.fspath(p) for p in paths]
    elif texts is not None:
        texts = list(texts)
        data = [t.encode("utf-8") if isinstance(t, str) else bytes(t) for t in texts]
    else:
        data = os.fspath(path) if path is not None else (
            text.encode("utf-8") if isinstance(text, str) else bytes(text))
    kw = dict(is_path=path is not None or paths is not None, plugin_path=plugin_path,
              threads=threads)
    if isinstance(pipeline, (list, tuple)):
        out = _run_stages(list(pipeline), data, basedir=os.getcwd(), **kw)
    elif isinstance(pipeline, str) and pipeline.lstrip().startswith("<"):
        root = ET.fromstring(pipeline)
        if root.tag != _PIPELINE_NS + "pipeline":
            raise ValueError("not a crfpipe pipeline (root element %s)" % root.tag)
        stages = [(st.get("plugin"), [(p.get("name"), p.get("value"))
                                      for p in st.findall(_PIPELINE_NS + "param")])
                  for st in root.findall(_PIPELINE_NS + "stage")]
        out = _run_stages(stages, data, basedir=os.getcwd(), **kw)
    else:
        out = _run_pipeline(os.fspath(pipeline), data, **kw)
    if many:
        if out is None:
            return None
        return [o.decode("utf-8") if isinstance(t, str) else o
                for o, t in zip(out, texts if texts is not None else [b""] * len(out))]
    return out.decode("utf-8") if isinstance(text, str) else out


class CRF:
    """A scikit-learn style estimator over Trainer and Tagger.

    X is a list of sequences of tokens (attribute dicts or lists, or column
    tuples with a template), y a list of label sequences.  Keyword
    parameters are the Trainer's (algorithm, template, columns, c1, c2,
    max_iterations, any crfpipe trainer parameter...).  The trained model
    lives in `model_filename` when given, else in a temporary file owned by
    the estimator (and in its pickled state).
    """

    def __init__(self, algorithm="lbfgs", template=None, template_text=None, columns=None,
                 c1=None, c2=None, max_iterations=None, model_filename=None, verbose=False,
                 threads=0, **params):
        self.algorithm = algorithm
        self.template = template
        self.template_text = template_text
        self.columns = columns
        self.c1 = c1
        self.c2 = c2
        self.max_iterations = max_iterations
        self.model_filename = model_filename
        self.verbose = verbose
        self.threads = threads
        self.params = params
        self._tagger = None
        self._tmpdir = None
        self.training_log_ = None

    _KEYS = ("algorithm", "template", "template_text", "columns", "c1", "c2",
             "max_iterations", "model_filename", "verbose", "threads")

    def get_params(self, deep=True):
        p = {k: getattr(self, k) for k in self._KEYS}
        p.update(self.params)
        return p

    def set_params(self, **p):
        for k, v in p.items():
            if k in self._KEYS:
                setattr(self, k, v)
            else:
                self.params[k] = v
        return self

    def fit(self, X, y, X_dev=None, y_dev=None, sample_weight=None):
        """Train on the sequences X (their labels y); X_dev, y_dev: a dev set
        (its error stops training); sample_weight: one weight per sequence of X
        (scikit-learn's name; see Trainer.append).  Returns self."""
        X, y = list(X), list(y)
        if sample_weight is None:
            sample_weight = [1.0] * len(X)
        else:
            sample_weight = list(sample_weight)
            if len(sample_weight) != len(X):
                raise ValueError("sample_weight has %d weights for %d sequences"
                                 % (len(sample_weight), len(X)))
        trainer = Trainer(self.algorithm, verbose=self.verbose, template=self.template,
                          template_text=self.template_text, columns=self.columns,
                          threads=self.threads)
        p = dict(self.params)
        for k in ("c1", "c2", "max_iterations"):
            if getattr(self, k) is not None:
                p[k] = getattr(self, k)
        trainer.set_params(p)
        for xseq, yseq, w in zip(X, y, sample_weight):
            trainer.append(xseq, yseq, weight=w)
        holdout = -1
        if X_dev is not None:
            for xseq, yseq in zip(X_dev, y_dev):
                trainer.append(xseq, yseq, group=1)
            holdout = 1
        path = self.model_filename
        if path is None:
            if self._tmpdir is None:
                self._tmpdir = tempfile.TemporaryDirectory(prefix="crfpipe-crf-")
            path = os.path.join(self._tmpdir.name, "model")
        trainer.train(path, holdout=holdout)
        self.training_log_ = trainer.iterations
        self._tagger = Tagger().open(path, columns=self.columns)
        return self

    @property
    def tagger_(self):
        if self._tagger is None:
            raise RuntimeError("this CRF is not fitted yet: call fit()")
        return self._tagger

    @property
    def classes_(self):
        return self.tagger_.labels()

    @property
    def state_features_(self):
        """{(attribute, label): weight} of the non-zero unigram weights."""
        return self.tagger_.info().state_features

    @property
    def transition_features_(self):
        """{(previous, label): weight} of the label bigram ("<start>" first)."""
        return self.tagger_.info().transitions

    @property
    def attributes_(self):
        """The attributes (observations) with a non-zero unigram weight."""
        return list(self.tagger_.info().attributes)

    @property
    def num_attributes_(self):
        return len(self.tagger_.info().attributes)

    @property
    def size_(self):
        """The model file's size in bytes."""
        return os.path.getsize(self.tagger_.info()["path"])

    def predict(self, X):
        return self.tagger_.tag_batch(list(X), self.threads)

    def predict_single(self, xseq):
        return self.tagger_.tag(xseq)

    def predict_marginals(self, X):
        return [self.tagger_.marginals(xseq) for xseq in X]

    def predict_marginals_single(self, xseq):
        return self.tagger_.marginals(xseq)

    def score(self, X, y):
        """Token accuracy of predict(X) against y."""
        pred = self.predict(X)
        total = sum(len(s) for s in y)
        good = sum(p == g for ps, gs in zip(pred, y) for p, g in zip(ps, gs))
        return good / total if total else 0.0

    def __getstate__(self):
        state = {k: getattr(self, k) for k in self._KEYS}
        state["params"] = self.params
        state["training_log_"] = self.training_log_
        state["model_bytes"] = None
        if self._tagger is not None:
            with open(self._tagger.info()["path"], "rb") as f:
                state["model_bytes"] = f.read()
        return state

    def __setstate__(self, state):
        model = state.pop("model_bytes")
        self.__init__(**{k: state[k] for k in self._KEYS}, **state["params"])
        self.training_log_ = state["training_log_"]
        if model is not None:
            self._tmpdir = tempfile.TemporaryDirectory(prefix="crfpipe-crf-")
            path = os.path.join(self._tmpdir.name, "model")
            with open(path, "wb") as f:
                f.write(model)
            self._tagger = Tagger().open(path, columns=self.columns)
