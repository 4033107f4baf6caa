"""Output paths that are not regular files, cut-short -k models, FIFOs
where a partitioning file should be, and signals while writing (issue 18,
section 2).

The independent expectations: the kind of each path before and after a
run (os.stat), the exact names left in a folder, what a reader of a FIFO
receives compared with the same run into a regular file, upstream's
load_model for plain models with CRLF endings and trailing text, and the
exit status of a process killed by a signal (-SIGTERM)."""
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import oracle_lib as ol

# tools/ikmap in the build tree, bin/ikmap installed (oracle_lib).
IKMAP_TOOL = ol.IKMAP_TOOL
HERE = Path(__file__).resolve().parent
NOT_A_FILE = "not a regular file"


def names(folder):
    return sorted(p.name for p in Path(folder).iterdir())


def kind(path):
    mode = os.lstat(path).st_mode
    return ("fifo" if stat.S_ISFIFO(mode) else "dir" if stat.S_ISDIR(mode)
            else "chr" if stat.S_ISCHR(mode) else "file" if stat.S_ISREG(mode) else "other")


def make_special(path, what):
    """A FIFO, a folder, or (root only) a character device like /dev/null
    made in the test's own folder, so the real /dev/null is never at risk."""
    if what == "fifo":
        os.mkfifo(path)
    elif what == "dir":
        os.mkdir(path)
    else:
        if os.geteuid() != 0:
            pytest.skip("making a device node needs root")
        null = os.stat("/dev/null").st_rdev
        os.mknod(path, 0o666 | stat.S_IFCHR, null)
    assert kind(path) == what


class FifoReader:
    """Reads a FIFO to its end in a thread (a writer blocks until a reader opens it)."""

    def __init__(self, path):
        self.data = None
        self.thread = threading.Thread(target=self._read, args=(path,), daemon=True)
        self.thread.start()

    def _read(self, path):
        with open(path, "rb") as f:
            self.data = f.read()

    def result(self):
        self.thread.join(timeout=60)
        assert not self.thread.is_alive(), "nobody wrote to the FIFO"
        return self.data


@pytest.fixture(scope="module")
def heart(data):
    return data("heart", "heart.all")


@pytest.fixture(scope="module")
def tool():
    if not IKMAP_TOOL.exists():
        pytest.fail(f"{IKMAP_TOOL} is not built; run make first")
    return IKMAP_TOOL


# ------------------------------------------- 1. outputs that are not files

@pytest.mark.parametrize("what", ["fifo", "dir", "chr"])
@pytest.mark.parametrize("at", ["m", "m.ik"])
def test_train_k_refuses_a_model_path_that_is_not_a_file(what, at, heart, binaries, tmp_path):
    """Refused before any data is read (a missing training file is not even
    noticed), and with real data nothing is created or replaced."""
    make_special(tmp_path / at, what)
    r = ol.run([binaries[0], "-k", "anne", tmp_path / "no-such-data", tmp_path / "m"])
    assert r.returncode == 1
    assert "can't open input file" not in r.stderr, r.stderr
    assert (NOT_A_FILE if what != "dir" else "Is a directory") in r.stderr, r.stderr
    r = ol.run([binaries[0], "-q", "-k", "anne", "-t", "10", heart, tmp_path / "m"], timeout=60)
    assert r.returncode == 1 and "ERROR: cannot write" in r.stderr, r.stderr
    assert names(tmp_path) == [at] and kind(tmp_path / at) == what


@pytest.mark.parametrize("what", ["fifo", "dir", "chr"])
def test_ikmap_refuses_a_partitioning_path_that_is_not_a_file(what, heart, tool, tmp_path):
    make_special(tmp_path / "p", what)
    r = ol.run([tool, "-k", "anne", tmp_path / "no-such-data", tmp_path / "p"])
    assert r.returncode == 1
    assert "can't open input file" not in r.stderr and "partitioning file" in r.stderr, r.stderr
    r = ol.run([tool, "-k", "iforest", "-t", "10", heart, tmp_path / "p"], timeout=60)
    assert r.returncode == 1, r.stderr
    assert names(tmp_path) == ["p"] and kind(tmp_path / "p") == what


def test_plain_train_writes_into_a_fifo_as_upstream_does(heart, binaries, tmp_path):
    ol.run([binaries[0], "-q", heart, tmp_path / "regular"])
    make_special(tmp_path / "fifo", "fifo")
    reader = FifoReader(tmp_path / "fifo")
    r = ol.run([binaries[0], "-q", heart, tmp_path / "fifo"], timeout=60)
    assert r.returncode == 0, r.stderr
    assert reader.result() == (tmp_path / "regular").read_bytes()
    assert names(tmp_path) == ["fifo", "regular"] and kind(tmp_path / "fifo") == "fifo"


def test_plain_train_writes_into_a_device_and_keeps_it(heart, binaries, tmp_path):
    make_special(tmp_path / "null", "chr")
    r = ol.run([binaries[0], "-q", heart, tmp_path / "null"])
    assert r.returncode == 0, r.stderr
    assert names(tmp_path) == ["null"] and kind(tmp_path / "null") == "chr"


def test_plain_train_into_a_folder_fails_and_leaves_nothing(heart, binaries, tmp_path):
    make_special(tmp_path / "m", "dir")
    r = ol.run([binaries[0], "-q", heart, tmp_path / "m"])
    assert r.returncode == 1 and "can't save model to file" in r.stderr
    assert names(tmp_path) == ["m"] and names(tmp_path / "m") == []


@pytest.fixture
def heart_ik(heart, binaries, tmp_path):
    model = tmp_path / "m"
    r = ol.run([binaries[0], "-q", "-k", "anne", "-t", "20", "-g", "16", heart, model])
    assert r.returncode == 0, r.stderr
    return model


def test_predict_output_into_a_fifo_and_a_folder(heart, heart_ik, binaries, tmp_path):
    r = ol.run([binaries[1], heart, heart_ik, tmp_path / "regular"])
    assert r.returncode == 0, r.stderr
    make_special(tmp_path / "fifo", "fifo")
    reader = FifoReader(tmp_path / "fifo")
    r = ol.run([binaries[1], heart, heart_ik, tmp_path / "fifo"], timeout=60)
    assert r.returncode == 0, r.stderr
    assert reader.result() == (tmp_path / "regular").read_bytes()
    assert kind(tmp_path / "fifo") == "fifo"
    make_special(tmp_path / "folder", "dir")
    r = ol.run([binaries[1], heart, heart_ik, tmp_path / "folder"])
    assert r.returncode == 1 and "can't open output file" in r.stderr
    assert names(tmp_path) == ["fifo", "folder", "m", "m.ik", "regular"]
    assert names(tmp_path / "folder") == []


# --------------------------------------------- 4. a FIFO at MODEL.ik

def test_predict_refuses_a_fifo_partitioning_file_at_once(heart, heart_ik, binaries, tmp_path):
    """Nobody writes to the FIFO: the old predict waited forever in open()."""
    ik = tmp_path / "m.ik"
    ik.unlink()
    os.mkfifo(ik)
    start = time.monotonic()
    r = ol.run([binaries[1], heart, heart_ik, tmp_path / "out"], timeout=20)
    assert time.monotonic() - start < 10
    assert r.returncode == 1 and NOT_A_FILE in r.stderr, r.stderr
    assert names(tmp_path) == ["m", "m.ik"]


# ----------------------------------------------- 2. cut-short trailers

def end_of_weights(text):
    """Offset just after the last weight of a -k model's text."""
    return len(text[:text.rindex("ik_partitioning")].rstrip())


def test_every_cut_of_the_trailer_is_refused(heart, heart_ik, binaries, tmp_path):
    """Cut anywhere from the end of the weights on, with the partitioning
    file beside it, a -k model is refused: a cut trailer by the trailer
    rule, a cut that leaves only white space because the .ik beside it fits
    (its trailer is missing). Only the whole trailer line predicts."""
    full = heart_ik.read_bytes()
    start = end_of_weights(full.decode())
    cuts = tmp_path / "cuts"
    cuts.mkdir()
    (cuts / "m.ik").write_bytes((tmp_path / "m.ik").read_bytes())
    accepted = []
    for cut in range(start, len(full) + 1):
        (cuts / "m").write_bytes(full[:cut])
        r = ol.run([binaries[1], heart, cuts / "m", cuts / "out"], timeout=60)
        if r.returncode != 1 or "ERROR:" not in r.stderr or (cuts / "out").exists():
            accepted.append((cut, full[start:cut].decode()))
        (cuts / "out").unlink(missing_ok=True)
    # the whole trailer line, with or without its final newline
    assert accepted == [(len(full) - 1, full[start:-1].decode()), (len(full), full[start:].decode())]
    assert names(cuts) == ["m", "m.ik"]


def test_missing_trailer_message_and_plain_without_ik(heart, heart_ik, binaries, tmp_path):
    text = heart_ik.read_text()
    heart_ik.write_text(text[:end_of_weights(text)] + " \r\n\t\n")
    r = ol.run([binaries[1], heart, heart_ik, tmp_path / "out"])
    assert r.returncode == 1 and "trailer is missing" in r.stderr, r.stderr
    (tmp_path / "m.ik").unlink()	# no partitioning beside it: a plain linear model
    r = ol.run([binaries[1], heart, heart_ik, tmp_path / "out"])
    assert r.returncode == 0, r.stderr


def upstream_loads(path):
    code = ("import sys; from liblinear.liblinearutil import load_model; "
            "m = load_model(sys.argv[1]); print(m.get_nr_feature(), m.get_nr_class())")
    r = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                       timeout=60)
    return r.returncode == 0 and r.stdout.split() == ["13", "2"], r.stdout + r.stderr


@pytest.mark.parametrize("variant", ["crlf", "trailing", "crlf+trailing", "prefix-like"])
def test_plain_models_with_crlf_and_trailing_text_load_as_upstream(variant, heart, binaries,
                                                                    tmp_path):
    model = tmp_path / "m"
    r = ol.run([binaries[0], "-q", heart, model])
    assert r.returncode == 0, r.stderr
    r = ol.run([binaries[1], heart, model, tmp_path / "expected"])
    expected = (tmp_path / "expected").read_bytes()
    text = model.read_text()
    if "trailing" in variant:
        text += "some trailing text\nik_partitioning is only a trailer on the first line\n"
    if variant == "prefix-like":
        text += "info: ikea\n"
    if "crlf" in variant:
        text = text.replace("\n", "\r\n")
    model.write_bytes(text.encode())
    ok, said = upstream_loads(model)
    assert ok, said
    r = ol.run([binaries[1], heart, model, tmp_path / "out"])
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out").read_bytes() == expected


# ----------------------------------------- 5. signals while writing

@pytest.fixture(scope="module")
def slow_fsync(tmp_path_factory):
    """The shim (slow_fsync.c) built for this run."""
    so = tmp_path_factory.mktemp("shim") / "slow_fsync.so"
    cc = os.environ.get("CC", "cc")
    r = subprocess.run([cc, "-shared", "-fPIC", "-o", str(so), str(HERE / "slow_fsync.c"), "-ldl"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return so


def kill_while_writing(cmd, folder, sig, shim):
    """Runs cmd with a slow fsync, waits until a new file appears in folder
    (the temporary file being written), then sends sig."""
    before = set(names(folder))
    # verify_asan_link_order=0: a sanitizer build accepts the shim loaded before it
    env = dict(os.environ, LD_PRELOAD=str(shim), SLOW_FSYNC_S="5",
               ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0")
    # The program must meet sig at its default disposition: a test run started
    # in the background of a non-interactive shell inherits SIGINT ignored,
    # and the programs rightly leave an ignored signal alone.
    p = subprocess.Popen([str(c) for c in cmd], env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                         preexec_fn=lambda: signal.signal(sig, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while not set(names(folder)) - before:
        assert p.poll() is None, f"finished before writing anything: {p.stderr.read()}"
        assert time.monotonic() < deadline, "no temporary file appeared"
        time.sleep(0.005)
    time.sleep(0.2)
    p.send_signal(sig)
    p.wait(timeout=60)
    p.stderr.close()
    return p.returncode


SIGNALS = [signal.SIGTERM, signal.SIGINT]


def old_contents(folder, *files):
    for name in files:
        (folder / name).write_text(f"old {name}\n")
    return {name: f"old {name}\n" for name in files}


def assert_untouched(folder, contents):
    assert names(folder) == sorted(contents)
    for name, text in contents.items():
        assert (folder / name).read_text() == text


@pytest.mark.parametrize("sig", SIGNALS)
def test_signal_during_train_k_leaves_no_temporary(sig, heart, binaries, slow_fsync, tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    contents = old_contents(folder, "m", "m.ik")
    rc = kill_while_writing([binaries[0], "-q", "-k", "anne", "-t", "20", heart, folder / "m"],
                            folder, sig, slow_fsync)
    assert rc == -sig
    assert_untouched(folder, contents)


@pytest.mark.parametrize("sig", SIGNALS)
def test_signal_during_plain_train_leaves_no_temporary(sig, heart, binaries, slow_fsync,
                                                       tmp_path):
    contents = old_contents(tmp_path, "m")
    rc = kill_while_writing([binaries[0], "-q", heart, tmp_path / "m"], tmp_path, sig, slow_fsync)
    assert rc == -sig
    assert_untouched(tmp_path, contents)


@pytest.mark.parametrize("sig", SIGNALS)
def test_signal_during_predict_leaves_no_temporary(sig, heart, heart_ik, binaries, slow_fsync,
                                                   tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    contents = old_contents(folder, "predictions")
    rc = kill_while_writing([binaries[1], heart, heart_ik, folder / "predictions"], folder, sig,
                            slow_fsync)
    assert rc == -sig
    assert_untouched(folder, contents)


@pytest.mark.parametrize("sig", SIGNALS)
def test_signal_during_ikmap_leaves_no_temporary(sig, heart, tool, slow_fsync, tmp_path):
    contents = old_contents(tmp_path, "p")
    rc = kill_while_writing([tool, "-k", "iforest", "-t", "50", heart, tmp_path / "p"], tmp_path,
                            sig, slow_fsync)
    assert rc == -sig
    assert_untouched(tmp_path, contents)
