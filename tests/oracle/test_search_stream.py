"""train -C -k reads its file in passes too (issue 22): above lik_search's
4000-row subsample the search holds only the subsample's rows, and maps all
rows in one pass per psi it walks on all of them (tools/ik_search_stream.c).

The independent expectations: the same file through a pipe (spooled, then
read by seeking) must print the same lines and write the same model; the
model -W 1 writes must be the one its printed command trains (train -k, whose
map test_stream.py checks against ikmap's build of the rows read whole); the
search must walk on both the 4000-row subsample and all rows; and a broken
line late in the file is named before any work. The held-rows references of
the same search are tests/unit/test_ik_stream.c (lik_search on the rows read
whole, every table field) and tests/python/test_ik.py (the Python train,
which holds the rows, prints the program's lines)."""
import re
import shlex
import subprocess

import oracle_lib as ol

SECONDS = re.compile(r", \d+\.\d s\)$")
COMMAND = re.compile(r"^best model: (train .*)$")


def search(options, data_path, cwd, stdin=None):
    """train -C OPTIONS FILE best.model in cwd; stdin given: FILE is /dev/stdin."""
    source = "/dev/stdin" if stdin is not None else str(data_path)
    r = subprocess.run([str(ol.TRAIN), "-C", *options.split(), source, "best.model"], cwd=cwd,
        capture_output=True, text=True, timeout=600, stdin=stdin)
    return r


def without_seconds(lines, source):
    return [SECONDS.sub(")", line).replace(source, "FILE") for line in lines]


def test_pipe_and_file_give_the_same_search_and_model(data, tmp_path):
    """satimage has 4435 rows: stage 1 on the subsample, all-row walks streamed."""
    sat = data("satimage", "satimage.train")
    lines = {}
    for way in ("file", "pipe"):
        folder = tmp_path / way
        folder.mkdir()
        if way == "pipe":
            with open(sat) as src:
                r = search("-k anne -t 20 -s 0 -W 1", sat, folder, stdin=src)
        else:
            r = search("-k anne -t 20 -s 0 -W 1", sat, folder)
        assert r.returncode == 0, r.stderr
        assert r.stderr == ""
        lines[way] = without_seconds(r.stdout.splitlines(),
            "/dev/stdin" if way == "pipe" else str(sat))
    assert lines["file"] == lines["pipe"]
    assert any(line.endswith("(4435 rows)") for line in lines["file"]), lines["file"]
    assert any(line.endswith("(4000 rows)") for line in lines["file"]), lines["file"]
    assert lines["file"][-1] == "written: best.model"
    for name in ("best.model", "best.model.ik"):
        assert (tmp_path / "file" / name).read_bytes() == (tmp_path / "pipe" / name).read_bytes(), name


def test_written_model_is_what_the_printed_command_trains(data, tmp_path):
    sat = data("satimage", "satimage.train")
    written, again = tmp_path / "written", tmp_path / "again"
    written.mkdir()
    again.mkdir()
    r = search("-k iforest -t 20 -s 2 -B 1 -W 1", sat, written)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[-1] == "written: best.model"
    command = shlex.split(next(COMMAND.match(l) for l in lines if COMMAND.match(l)).group(1))
    assert command[0] == "train" and "-C" not in command and "-W" not in command
    t = ol.run([ol.TRAIN] + command[1:], cwd=again)
    assert t.returncode == 0, t.stderr
    for name in ("best.model", "best.model.ik"):
        assert (written / name).read_bytes() == (again / name).read_bytes(), name


def test_a_bad_line_late_in_a_large_file_is_named_first(tmp_path):
    """The first pass reads every line before any search: the broken one is named, exit 1,
    nothing written (the in-memory reader's message)."""
    path = tmp_path / "d.train"
    with open(path, "w") as f:
        for i in range(1, 6001):
            f.write("1 1:2 2:x\n" if i == 5999 else f"{i % 2} 1:{i % 7 + 1} 2:{i % 5 + 0.5}\n")
    r = search("-k anne -W 1", path, tmp_path)
    assert r.returncode == 1
    # after upstream's "Solver not specified" line, as the in-memory reader says it
    assert r.stderr.splitlines()[-1].startswith("Wrong input format at line 5999"), r.stderr
    assert r.stdout == ""
    assert not (tmp_path / "best.model").exists() and not (tmp_path / "best.model.ik").exists()
