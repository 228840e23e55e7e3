"""The GIL is released while crfpipe decodes and trains, and one Tagger may
be used from several threads at once."""
import threading
import time

import crfpipe
from conftest import xseq_of


def count_while(fn):
    """Run fn in a thread; count how often this thread gets to run meanwhile
    (next to nothing if fn held the GIL through its C call)."""
    done = threading.Event()
    out = {}

    def work():
        out["result"] = fn()
        done.set()

    th = threading.Thread(target=work)
    t0 = time.perf_counter()
    th.start()
    n = 0
    while not done.is_set():
        n += 1
        time.sleep(0)
    th.join()
    return n, time.perf_counter() - t0, out["result"]


def test_tagging_releases_the_gil(ewt, attr_model):
    tagger = crfpipe.Tagger().open(attr_model[0])
    xs = [xseq_of(rows) for rows, _ in ewt["test"]] * 30
    single = tagger.tag_batch(xs, threads=1)
    n, secs, res = count_while(lambda: tagger.tag_batch(xs, threads=1))
    assert res == single
    # the conversion of the Python lists holds the GIL, the decoding does not
    assert n > 50, "main thread ran %d times in %.2fs" % (n, secs)


def test_training_releases_the_gil(ewt, tmp_path):
    tr = crfpipe.Trainer(verbose=False, params={"max_iterations": 8, "threads": 1})
    for rows, y in ewt["train"][:800]:
        tr.append(xseq_of(rows), y)
    n, secs, _ = count_while(lambda: tr.train(str(tmp_path / "m")))
    assert n > 50, "main thread ran %d times in %.2fs of training" % (n, secs)


def test_one_tagger_many_threads(ewt, attr_model):
    tagger = crfpipe.Tagger().open(attr_model[0])
    xs = [xseq_of(rows) for rows, _ in ewt["test"][:150]]
    want = tagger.tag_batch(xs, threads=1)
    results = [None] * 4

    def work(i):
        results[i] = tagger.tag_batch(xs, threads=2)

    ths = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    assert all(r == want for r in results)


def test_interrupting_training_from_a_callback(ewt, tmp_path):
    class Stop(Exception):
        pass

    class T(crfpipe.Trainer):
        def on_iteration(self, info):
            if info["iteration"] == 3:
                raise Stop()

    tr = T(verbose=False, params={"max_iterations": 30, "threads": 1})
    for rows, y in ewt["train"][:200]:
        tr.append(xseq_of(rows), y)
    try:
        tr.train(str(tmp_path / "m"))
    except Stop:
        pass
    else:
        raise AssertionError("the callback's exception was lost")
    assert len(tr.iterations) == 3
