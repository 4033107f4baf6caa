"""Fixtures of the Python package's tests (tests/python/).

These run in a virtual environment that has our package (build/pyvenv,
made by `make python-check`). Upstream's package (liblinear-official 2.50)
has the same import name, so it runs in its own environment: the python
named by LIBLINEAR_IK_ORACLE_PYTHON, in a subprocess (snippet_runner.py).
"""
import json
import lzma
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
import snippet_runner  # noqa: E402

DATA_DIR = Path(os.environ.get("LIBLINEAR_IK_DATA", REPO.parent / "shared" / "data"))
ORACLE_PYTHON = os.environ.get("LIBLINEAR_IK_ORACLE_PYTHON")
# The programs built at the repository root (make all), unless LIBLINEAR_IK_BIN names another folder.
BIN_DIR = Path(os.environ.get("LIBLINEAR_IK_BIN", REPO))

# Datasets the tests use: name -> (folder, file stem).
DATASETS = {
    "heart": ("heart", "heart.all"),
    "dna.train": ("dna", "dna.train"),
    "dna.test": ("dna", "dna.test"),
    "sonar": ("sonar", "sonar.all"),
    "vowel": ("vowel", "vowel.train"),
    "liver": ("liver-disorders", "liver-disorders.all"),
    "satimage": ("satimage", "satimage.train"),
}


@pytest.fixture(scope="session")
def data(tmp_path_factory):
    """{name: path} of the decompressed datasets."""
    folder = tmp_path_factory.mktemp("data")
    paths = {}
    for name, (directory, stem) in DATASETS.items():
        source = DATA_DIR / directory / (stem + ".xz")
        if not source.exists():
            pytest.fail("dataset %s is missing (set LIBLINEAR_IK_DATA)" % source)
        target = folder / stem
        if not target.exists():
            with lzma.open(source) as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst)
        paths[name] = str(target)
    return paths


@pytest.fixture(scope="session")
def oracle_python():
    if not ORACLE_PYTHON:
        pytest.fail("LIBLINEAR_IK_ORACLE_PYTHON is not set: it names a python with liblinear-official 2.50 "
                    "(make python-check sets it to the oracle's python)")
    check = subprocess.run([ORACLE_PYTHON, "-c", "import liblinear.liblinearutil, numpy, scipy; "
                            "import importlib.metadata as m; print(m.version('liblinear-official'))"],
                           capture_output=True, text=True)
    if check.returncode != 0 or not check.stdout.startswith("2.50"):
        pytest.fail("LIBLINEAR_IK_ORACLE_PYTHON=%s does not import liblinear-official 2.50: %s"
                    % (ORACLE_PYTHON, check.stderr or check.stdout))
    return ORACLE_PYTHON


class Both:
    """Runs one snippet in the oracle's environment and in ours; each result is (emitted, stdout)."""

    def __init__(self, oracle, data, tmp_path, capfd):
        self.oracle = oracle
        self.data = data
        self.tmp_path = tmp_path
        self.capfd = capfd

    def upstream(self, code):
        folder = self.tmp_path / "upstream"
        folder.mkdir(exist_ok=True)
        snippet = folder / "snippet.py"
        snippet.write_text(code)
        result = folder / "result.json"
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        run = subprocess.run([self.oracle, str(HERE / "snippet_runner.py"), str(snippet), str(result),
                              json.dumps(self.data), str(folder)], capture_output=True, text=True,
                             env=env, cwd=str(folder), timeout=600)
        assert run.returncode == 0, "the oracle's snippet failed:\n" + run.stderr
        self.upstream_stderr = run.stderr
        return json.loads(result.read_text()), run.stdout

    def ours(self, code):
        folder = self.tmp_path / "ours"
        folder.mkdir(exist_ok=True)
        self.capfd.readouterr()
        previous = os.getcwd()
        os.chdir(folder)
        try:
            emitted = snippet_runner.run_snippet(code, self.data, str(folder))
        finally:
            os.chdir(previous)
        out, err = self.capfd.readouterr()
        self.our_stderr = err
        # what json does to ours too (tuples become lists, keys strings)
        return json.loads(json.dumps(emitted)), out

    def run(self, code):
        return self.upstream(code), self.ours(code)


@pytest.fixture
def both(oracle_python, data, tmp_path, capfd):
    return Both(oracle_python, data, tmp_path, capfd)


@pytest.fixture(scope="session")
def programs():
    """Our train and predict programs (make all)."""
    train, predict = BIN_DIR / "train", BIN_DIR / "predict"
    for program in (train, predict):
        if not program.exists():
            pytest.fail("%s is missing: run make first" % program)
    return str(train), str(predict)
