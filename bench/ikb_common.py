"""bench/ikb_common.py - shared helpers of the Isolation Kernel benchmarks.

Datasets come from ../shared/data (LIBLINEAR_IK_DATA overrides), xz
LIBSVM files. A "split" is (training lines, test lines): the .train/.test
pair when the data has one, else the rows whose 0-based index i has
i % 5 != 4 for training and every 5th row (i % 5 == 4) held out. Work
files go to LIBLINEAR_IK_BENCH_TMP (default /tmp/liblinear-ik-bench).
"""
import lzma
import os
import platform
import random
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA_DIR = Path(os.environ.get("LIBLINEAR_IK_DATA", REPO.parent / "shared" / "data"))
TMP = Path(os.environ.get("LIBLINEAR_IK_BENCH_TMP", "/tmp/liblinear-ik-bench"))
TRAIN = str(REPO / "train")
PREDICT = str(REPO / "predict")
IKMAP = str(REPO / "tools" / "ikmap")

# name -> (folder, training file, test file or None: held-out fifth)
SPLITS = {
	"a9a": ("a9a", "a9a.train", "a9a.test"),
	"w8a": ("w8a", "w8a.train", "w8a.test"),
	"ijcnn1": ("ijcnn1", "ijcnn1.train", None),
	"cod-rna": ("cod-rna", "cod-rna.train", None),
	"usps": ("usps", "usps.train", "usps.test"),
	"letter": ("letter", "letter.all", None),
	"satimage": ("satimage", "satimage.train", "satimage.test"),
	"pendigits": ("pendigits", "pendigits.train", "pendigits.test"),
	"dna": ("dna", "dna.train", "dna.test"),
	"covtype": ("covtype.binary.subset20k", "covtype.binary.subset20k.all", None),
	"svmguide1": ("svmguide1", "svmguide1.train", "svmguide1.test"),
	"heart": ("heart", "heart.all", None),
	"ionosphere": ("ionosphere", "ionosphere.all", None),
	"diabetes": ("diabetes", "diabetes.all", None),
	"australian": ("australian", "australian.all", None),
	"sonar": ("sonar", "sonar.all", None),
	"german.numer": ("german.numer", "german.numer.all", None),
	"breast-cancer": ("breast-cancer", "breast-cancer.all", None),
}


def read_lines(folder, name):
	path = DATA_DIR / folder / (name + ".xz")
	with lzma.open(path, "rt") as f:
		return [line for line in f if line.strip()]


def split(name):
	"""(training lines, test lines) of a dataset as the module doc says."""
	folder, train_name, test_name = SPLITS[name]
	lines = read_lines(folder, train_name)
	if test_name is not None:
		return lines, read_lines(folder, test_name)
	return ([l for i, l in enumerate(lines) if i % 5 != 4],
		[l for i, l in enumerate(lines) if i % 5 == 4])


def subsample(lines, limit, seed=1):
	"""At most limit lines, drawn without replacement by a fixed seed, in file order."""
	if limit is None or len(lines) <= limit:
		return list(lines)
	keep = sorted(random.Random(seed).sample(range(len(lines)), limit))
	return [lines[i] for i in keep]


def write(lines, path):
	path = Path(path)
	path.parent.mkdir(parents=True, exist_ok=True)
	with open(path, "w") as f:
		f.writelines(lines)
	return str(path)


def run(args, **kw):
	"""Runs a command; its stdout, or an exception with its stderr."""
	r = subprocess.run(args, capture_output=True, text=True, **kw)
	if r.returncode != 0:
		raise RuntimeError("%s failed (%d): %s" % (" ".join(args), r.returncode, r.stderr.strip()))
	return r.stdout


CV_RE = re.compile(r"Cross Validation Accuracy = ([0-9.]+)%")


def cv_accuracy(options, path):
	"""train options -v ... path -> CV accuracy in percent."""
	out = run([TRAIN] + options + ["-q", path])
	m = CV_RE.search(out)
	if not m:
		raise RuntimeError("no CV accuracy in: " + out)
	return float(m.group(1))


def load_average():
	return os.getloadavg()[0]


def machine_line():
	return "%s, %d logical cores; Linux %s; Python %s" % (
		platform.processor() or platform.machine(), os.cpu_count(),
		platform.release(), platform.python_version())
