#!/usr/bin/env python3
"""bench/ik_defaults.py - choose the Isolation Kernel defaults by
cross-validation on TRAINING data only (never a test set).

  psi:   train -k TYPE -t 100 -g psi -v 5 (default solver and C) for psi =
         4, 8, ..., 4096 (at most the rows) on each dataset's training part,
         subsampled to --rows rows by a fixed seed; per dataset the psi are
         ranked by CV accuracy, and the default is the psi of best mean rank
         over the datasets that have every psi (ties: mean accuracy).
  scale: aNNE -S 1 against -S 0 at several psi.
  value: cell value 1/sqrt(t) (ours) against raw 1. Value v = s/sqrt(t)
         scales every mapped row by s; w' = w/s gives the same decision
         values and the objective 0.5|w'|^2 + C sum loss = (1/s^2) (0.5|w|^2
         + C s^2 sum loss), so raw 1 (s = sqrt(t)) with C is ours with
         C*t (up to the solver's stopping rule): measured as -c t.

Measurements go to bench/results/ik-defaults.json as they finish (a rerun
skips those already there; --fresh starts over), the tables to
bench/results/ik-defaults.md. Timings are not asserted anywhere.
"""
import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ikb_common as C  # noqa: E402

PSIS = [4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096]
PSI_SETS = ["heart", "sonar", "ionosphere", "australian", "dna", "svmguide1", "satimage",
	"pendigits", "usps", "a9a", "ijcnn1", "cod-rna", "letter", "covtype"]
SCALE_SETS = ["cod-rna", "diabetes", "ionosphere", "svmguide1", "heart", "a9a", "dna",
	"satimage", "pendigits", "usps", "letter", "covtype"]
SCALE_PSIS = [16, 64, 256]
VALUE_SETS = ["a9a", "dna", "satimage", "pendigits", "usps", "ijcnn1", "cod-rna", "heart",
	"ionosphere", "covtype", "letter"]
KERNELS = ["anne", "iforest"]

OUT_JSON = C.REPO / "bench" / "results" / "ik-defaults.json"
OUT_MD = C.REPO / "bench" / "results" / "ik-defaults.md"


def parse_args():
	p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
	p.add_argument("--rows", type=int, default=10000, help="subsample training parts to this many rows")
	p.add_argument("--parts", default="psi,scale,value")
	p.add_argument("--fresh", action="store_true")
	p.add_argument("--report-only", action="store_true")
	return p.parse_args()


class Store:
	"""The measurements, saved after each one so that a partial run counts."""

	def __init__(self, path, fresh):
		self.path = path
		self.data = {} if fresh or not path.exists() else json.loads(path.read_text())

	def get(self, key):
		return self.data.get(key)

	def put(self, key, value):
		self.data[key] = value
		self.path.write_text(json.dumps(self.data, indent=1, sort_keys=True))


def training_file(name, rows):
	lines = C.subsample(C.split(name)[0], rows)
	return C.write(lines, C.TMP / "cv" / ("%s.%d" % (name, rows))), len(lines)


def measure(store, key, options, path):
	if store.get(key) is None:
		t0 = time.time()
		acc = C.cv_accuracy(options, path)
		store.put(key, {"acc": acc, "s": round(time.time() - t0, 2), "load": round(C.load_average(), 2)})
		print(key, acc, flush=True)
	return store.get(key)["acc"]


def run_psi(store, rows):
	for name in PSI_SETS:
		path, n = training_file(name, rows)
		store.put("rows/" + name, n)
		for psi in [p for p in PSIS if p <= n]:
			for kernel in KERNELS:
				measure(store, "psi/%s/%s/%d" % (kernel, name, psi),
					["-k", kernel, "-t", "100", "-g", str(psi), "-v", "5"], path)


def run_scale(store, rows):
	for name in SCALE_SETS:
		path, n = training_file(name, rows)
		store.put("rows/" + name, n)
		for psi in [p for p in SCALE_PSIS if p <= n]:
			for scale in (0, 1):
				measure(store, "scale/%s/%d/%d" % (name, psi, scale),
					["-k", "anne", "-t", "100", "-g", str(psi), "-S", str(scale), "-v", "5"], path)


def run_value(store, rows, psi):
	for name in VALUE_SETS:
		path, n = training_file(name, rows)
		store.put("rows/" + name, n)
		for kernel in KERNELS:
			for c in ("1", "100"):
				measure(store, "value/%s/%s/%d/%s" % (kernel, name, psi, c),
					["-k", kernel, "-t", "100", "-g", str(psi), "-c", c, "-v", "5"], path)


def ranks(values):
	"""Rank 1 = largest; ties share their mean rank."""
	order = sorted(range(len(values)), key=lambda i: -values[i])
	r = [0.0] * len(values)
	i = 0
	while i < len(order):
		j = i
		while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
			j += 1
		for k in range(i, j + 1):
			r[order[k]] = (i + j) / 2 + 1
		i = j + 1
	return r


def psi_summary(store, kernel, sets, psis):
	"""psi -> (mean rank, mean accuracy) over sets that have every psi measured."""
	full = [s for s in sets if all(store.get("psi/%s/%s/%d" % (kernel, s, p)) for p in psis)]
	per = {p: ([], []) for p in psis}
	for s in full:
		accs = [store.get("psi/%s/%s/%d" % (kernel, s, p))["acc"] for p in psis]
		for p, a, r in zip(psis, accs, ranks(accs)):
			per[p][0].append(r)
			per[p][1].append(a)
	if not full:
		return full, {}
	return full, {p: (statistics.mean(per[p][0]), statistics.mean(per[p][1])) for p in psis}


def best_psi(summary):
	return min(summary, key=lambda p: (summary[p][0], -summary[p][1]))


def fmt(x):
	return "%.2f" % x


def report(store, rows, value_psi):
	L = ["# Isolation Kernel defaults by cross-validation on training data", ""]
	L.append("- Machine: %s. Accuracies only; the times in ik-defaults.json are informative "
		"(load average recorded per run; other helpers shared the 2 cores)." % C.machine_line())
	L.append("- Protocol: `bench/ik_defaults.py` (`make bench-ik`). Every number is 5-fold CV accuracy (%%) "
		"of `train -k TYPE -t 100 -g psi -v 5` with the default solver (-s 1) and C = 1 on the dataset's "
		"TRAINING part only (the .train file; for ijcnn1, cod-rna, letter, covtype and the one-file small sets "
		"the rows not held out: row index i %% 5 != 4), subsampled to at most %d rows with a fixed seed. "
		"No test set was used for any choice here." % rows)
	L.append("")
	for kernel in KERNELS:
		L.append("## psi, -k %s" % kernel)
		L.append("")
		sets = [s for s in PSI_SETS if store.get("rows/" + s)]
		L.append("| dataset | rows | " + " | ".join(str(p) for p in PSIS) + " | best |")
		L.append("|---|---|" + "---|" * (len(PSIS) + 1))
		for s in sets:
			cells, accs = [], {}
			for p in PSIS:
				m = store.get("psi/%s/%s/%d" % (kernel, s, p))
				cells.append(fmt(m["acc"]) if m else ("" if p > store.get("rows/" + s) else "n/m"))
				if m:
					accs[p] = m["acc"]
			best = max(accs, key=lambda p: (accs[p], -p)) if accs else None
			L.append("| %s | %d | %s | %s |" % (s, store.get("rows/" + s), " | ".join(cells), best))
		L.append("")
		for title, psis in (("all psi 4..4096 (datasets with >= 4096 training rows)", PSIS),
				("psi 4..128 (every dataset)", PSIS[:6])):
			full, summ = psi_summary(store, kernel, PSI_SETS, psis)
			if not summ:
				continue
			L.append("Mean rank (1 = best) / mean CV accuracy over %d datasets, %s: %s." % (
				len(full), title, "; ".join("%d: %.2f / %.2f" % (p, summ[p][0], summ[p][1]) for p in psis)))
			L.append("Best: **psi = %d**. Datasets: %s." % (best_psi(summ), ", ".join(full)))
			L.append("")
		L.append("Regret of a fixed psi: mean over datasets of (that dataset's best CV accuracy - CV accuracy at "
			"psi), over the datasets with at least psi training rows (psi above the rows is an error):")
		L.append("")
		L.append("| psi | " + " | ".join(str(p) for p in PSIS) + " |")
		L.append("|---|" + "---|" * len(PSIS))
		reg, cnt = [], []
		for p in PSIS:
			r = []
			for s in PSI_SETS:
				accs = [store.get("psi/%s/%s/%d" % (kernel, s, q)) for q in PSIS]
				accs = [a["acc"] for a in accs if a]
				m = store.get("psi/%s/%s/%d" % (kernel, s, p))
				if m and accs:
					r.append(max(accs) - m["acc"])
			reg.append("%.2f" % statistics.mean(r) if r else "")
			cnt.append(str(len(r)))
		L.append("| mean regret (points) | " + " | ".join(reg) + " |")
		L.append("| datasets | " + " | ".join(cnt) + " |")
		L.append("")
	L.append("## aNNE scaling: -S 1 against -S 0 (t = 100, C = 1, -s 1)")
	L.append("")
	L.append("| dataset | rows | " + " | ".join("psi %d: -S 0 / -S 1" % p for p in SCALE_PSIS) + " |")
	L.append("|---|---|" + "---|" * len(SCALE_PSIS))
	diffs = []
	for s in SCALE_SETS:
		if not store.get("rows/" + s):
			continue
		cells = []
		for p in SCALE_PSIS:
			a0, a1 = store.get("scale/%s/%d/0" % (s, p)), store.get("scale/%s/%d/1" % (s, p))
			if a0 and a1:
				cells.append("%s / %s" % (fmt(a0["acc"]), fmt(a1["acc"])))
				diffs.append(a1["acc"] - a0["acc"])
			else:
				cells.append("")
		L.append("| %s | %d | %s |" % (s, store.get("rows/" + s), " | ".join(cells)))
	if diffs:
		L.append("")
		L.append("-S 1 minus -S 0 over %d (dataset, psi) pairs: mean %+.2f points, better in %d, worse in %d, equal in %d." % (
			len(diffs), statistics.mean(diffs), sum(d > 0 for d in diffs), sum(d < 0 for d in diffs),
			sum(d == 0 for d in diffs)))
	L.append("")
	L.append("## Cell value: 1/sqrt(t) (ours) against raw 1")
	L.append("")
	L.append("Scaling every mapped row by s is, for the L2-regularized solvers, training the unscaled rows "
		"with C*s^2 (w' = w/s gives the same decisions; objective 0.5|w'|^2 + C sum loss = (0.5|w|^2 + C s^2 sum "
		"loss)/s^2). Raw value 1 is s = sqrt(t), so it is measured as `-c t` = `-c 100` on our rows (the same "
		"up to the solvers' stopping rules). psi = %d, t = 100, -s 1, 5-fold CV." % value_psi)
	L.append("")
	L.append("| kernel | dataset | 1/sqrt(t), C = 1 | raw 1 (= -c 100) |")
	L.append("|---|---|---|---|")
	vd = []
	for kernel in KERNELS:
		for s in VALUE_SETS:
			a, b = (store.get("value/%s/%s/%d/%s" % (kernel, s, value_psi, c)) for c in ("1", "100"))
			if a and b:
				L.append("| %s | %s | %s | %s |" % (kernel, s, fmt(a["acc"]), fmt(b["acc"])))
				vd.append(a["acc"] - b["acc"])
	if vd:
		L.append("")
		L.append("1/sqrt(t) minus raw 1 over %d pairs: mean %+.2f points, better in %d, worse in %d." % (
			len(vd), statistics.mean(vd), sum(d > 0 for d in vd), sum(d < 0 for d in vd)))
	L.append("")
	OUT_MD.write_text("\n".join(L) + "\n")
	print("wrote", OUT_MD)


def main():
	args = parse_args()
	store = Store(OUT_JSON, args.fresh)
	parts = args.parts.split(",")
	value_psi = 64
	if not args.report_only:
		if "psi" in parts:
			run_psi(store, args.rows)
			report(store, args.rows, value_psi)
		if "scale" in parts:
			run_scale(store, args.rows)
			report(store, args.rows, value_psi)
		if "value" in parts:
			run_value(store, args.rows, value_psi)
	report(store, args.rows, value_psi)


if __name__ == "__main__":
	main()
