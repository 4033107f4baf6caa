"""train -k reads its file in passes and never holds the raw rows (issue 22).

The independent expectations: the partitioning that `ikmap` builds from the
same file read whole into memory (its .ik bytes must be train's), the file
itself read from a pipe (the same bytes), the line numbers of the lines we
break on purpose, and the scratch folder (TMPDIR) left empty however train
ends."""
import os
import signal
import subprocess
import time

import pytest

import oracle_lib as ol

OPTIONS = [
    "-k anne", "-k anne -S 0", "-k anne -S 2", "-k anne -S 3", "-k anne -S 4",
    "-k iforest", "-k iforest -S 2 -a 0.5", "-k minmax -S 2", "-k minmax -S 3",
    "-k acos", "-k acos -S 3 -a 1", "-k anne -t 7 -g 5 -r 9 -a 0.3",
]
SETS = [("dna", "dna.train"), ("satimage", "satimage.train")]


def train(options, data_path, model, env=None, stdin=None):
    return subprocess.run([str(ol.TRAIN), "-q", *options, str(data_path), str(model)],
        capture_output=True, text=True, timeout=300, env=env, stdin=stdin)


def first_negative_line(path):
    """The 1-based line of the first negative feature value, or 0."""
    with open(path) as f:
        for number, line in enumerate(f, 1):
            for item in line.split()[1:]:
                if float(item.split(":", 1)[1]) < 0:
                    return number
    return 0


def has_negative_value(path):
    return first_negative_line(path) > 0


@pytest.mark.parametrize("name,stem", SETS)
@pytest.mark.parametrize("options", OPTIONS)
def test_streamed_map_is_the_in_memory_map(name, stem, options, data, tmp_path):
    """ikmap reads the whole file, then builds; train reads it in passes."""
    path = data(name, stem)
    r = train(options.split(), path, tmp_path / "m.model")
    refuses_negatives = "-S 4" in options or ("minmax" in options and "-S 2" not in options)
    if refuses_negatives and has_negative_value(path):
        # both builds refuse the set, with the first negative value's line
        b = ol.run([ol.IKMAP_TOOL, *options.split(), path, tmp_path / "ikmap.ik"])
        assert r.returncode == 1 and b.returncode == 1, (r.stderr, b.stderr)
        line = first_negative_line(path)
        assert f"line {line}" in r.stderr and f"line {line}" in b.stderr, (r.stderr, b.stderr)
        assert not (tmp_path / "m.model").exists() and not (tmp_path / "m.model.ik").exists()
        return
    assert r.returncode == 0, r.stderr
    built = tmp_path / "ikmap.ik"
    b = ol.run([ol.IKMAP_TOOL, *options.split(), path, built])
    assert b.returncode == 0, b.stderr
    assert built.read_bytes() == (tmp_path / "m.model.ik").read_bytes()


def test_pipe_gives_the_file_result_and_leaves_no_scratch_file(data, tmp_path):
    path = data("dna", "dna.train")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = dict(os.environ, TMPDIR=str(scratch))
    a = train(["-k", "anne", "-S", "3", "-v", "3"], path, tmp_path / "a.model")
    assert a.returncode == 0, a.stderr
    with open(path) as src:
        b = subprocess.run([str(ol.TRAIN), "-k", "anne", "-S", "3", "-v", "3", "-q",
            "/dev/stdin", str(tmp_path / "b.model")], stdin=src, capture_output=True, text=True,
            timeout=300, env=env)
    assert b.returncode == 0, b.stderr
    assert b.stdout == a.stdout	# the same cross-validation accuracy
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f"cat '{path}' > '{fifo}'"])
    c = train(["-k", "iforest"], fifo, tmp_path / "c.model", env=env)
    writer.wait(timeout=60)
    assert c.returncode == 0, c.stderr
    d = train(["-k", "iforest"], path, tmp_path / "d.model")
    assert (tmp_path / "c.model.ik").read_bytes() == (tmp_path / "d.model.ik").read_bytes()
    assert list(scratch.iterdir()) == []


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_signal_while_spooling_removes_the_scratch_file(data, tmp_path, sig):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = dict(os.environ, TMPDIR=str(scratch))
    p = subprocess.Popen([str(ol.TRAIN), "-q", "-k", "anne", "/dev/stdin",
        str(tmp_path / "m.model")], stdin=subprocess.PIPE, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        # sig at its default disposition: a suite started in the background of a
        # non-interactive shell inherits SIGINT ignored, and train rightly leaves
        # an ignored signal alone
        preexec_fn=lambda: signal.signal(sig, signal.SIG_DFL))
    p.stdin.write(data("dna", "dna.train").read_bytes())
    p.stdin.flush()	# the pipe stays open: train is still spooling
    for _ in range(200):
        if list(scratch.iterdir()):
            break
        time.sleep(0.05)
    spooled = [f.name for f in scratch.iterdir()]
    assert len(spooled) == 1 and spooled[0].startswith("liblinear-ik-train.")
    assert (os.stat(scratch / spooled[0]).st_mode & 0o777) == 0o600
    p.send_signal(sig)
    assert p.wait(timeout=60) == -sig
    p.stdin.close()
    assert list(scratch.iterdir()) == []
    assert not (tmp_path / "m.model").exists()


def big_file(path, rows, bad_line=None, bad_text=""):
    with open(path, "w") as f:
        for i in range(1, rows + 1):
            f.write(bad_text if i == bad_line else f"{i % 2} 1:{i % 7 + 1} 2:{i % 5 + 0.5}\n")


def test_error_late_in_the_file_names_its_line(tmp_path):
    """A bad line after several batches: the first pass names it, nothing is written."""
    path = tmp_path / "d.train"
    big_file(path, 5000, 4999, "1 1:2 2:x\n")
    r = train(["-k", "anne"], path, tmp_path / "m.model")
    assert r.returncode == 1
    assert r.stderr.startswith("Wrong input format at line 4999"), r.stderr
    assert not (tmp_path / "m.model").exists() and not (tmp_path / "m.model.ik").exists()
    big_file(path, 5000, 4321, "0 1:2 2:-3\n")
    r = train(["-k", "minmax"], path, tmp_path / "m.model")
    assert r.returncode == 1
    assert f"{path} line 4321: feature 2 is negative" in r.stderr, r.stderr
    assert not (tmp_path / "m.model").exists() and not (tmp_path / "m.model.ik").exists()
