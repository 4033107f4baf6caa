#!/usr/bin/env python3
"""bench/auto_cost.py - issue 28's search-cost goal, `train -C -k auto` at
most 5x `train -C -k anne` on the same data, and (with --accuracy) the test
accuracy of auto's choice, for a few sets at a time.

The lighter companion of bench/auto_vs_svc.py: the same splits and files
(bench/ikb_common.py, bench/ik_accuracy.Files), the same auto and anne
measurements (auto_vs_svc.auto and anne_search: whole processes, `-m 1`),
one set after the other, anne first. The RBF SVC and plain-linear numbers
that the accuracy goal compares with are not rerun: they are read from
bench/results/auto-vs-svc.json (they do not depend on -k auto). Results go
to bench/results/auto-cost.json (keyed by set; a rerun replaces that set)
and auto-cost.md, with the one-minute load after each measurement.
"""
import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
	os.environ[_v] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ikb_common as C  # noqa: E402
import ik_accuracy as A  # noqa: E402
import auto_vs_svc as V  # noqa: E402

OUT_JSON = C.REPO / "bench" / "results" / "auto-cost.json"
OUT_MD = C.REPO / "bench" / "results" / "auto-cost.md"
GOAL_RATIO = 5.0


def head():
	"""The commit measured: BENCH_COMMIT when the binaries were copied out of the repository."""
	if os.environ.get("BENCH_COMMIT"):
		return os.environ["BENCH_COMMIT"]
	r = subprocess.run(["git", "-C", str(C.REPO), "rev-parse", "--short", "HEAD"],
		capture_output=True, text=True)
	return r.stdout.strip() or "unknown"


def measure_set(name, accuracy, choice_rows):
	f = A.Files(name, choice_rows)
	r = {"rows": f.n_train, "commit": head(), "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
	r["anne"] = V.anne_search(f)
	r["anne"]["load"] = round(C.load_average(), 2)
	print(time.strftime("%H:%M:%S"), name, "anne", r["anne"], flush=True)
	if accuracy:
		r["auto"] = V.auto(f)
	else:
		out, s = A.timed([C.TRAIN, "-C", "-k", "auto", "-m", "1", f.train])
		m = V.BEST_AUTO_RE.search(out)
		r["auto"] = {"search_s": s, "search_output": out, "kernel": m.group(1), "t": int(m.group(2)),
			"psi": int(m.group(3)), "S": int(m.group(4)), "w": float(m.group(5)),
			"C": float(m.group(6)), "cv": float(m.group(7))}
	r["auto"]["load"] = round(C.load_average(), 2)
	r["ratio"] = r["auto"]["search_s"] / r["anne"]["search_s"]
	print(time.strftime("%H:%M:%S"), name, "auto", {k: v for k, v in r["auto"].items()
		if k not in ("search_output", "seeds")}, "ratio %.2f" % r["ratio"], flush=True)
	return r


def report(store):
	before = json.loads(V.OUT_JSON.read_text()) if V.OUT_JSON.exists() else {}
	lines = ["# `train -C -k auto` against `train -C -k anne`, and auto's choice (issue 28)", "",
		"bench/auto_cost.py (its docstring is the protocol): both searches `-m 1`, whole processes, "
		"on the training part; machine: %s; the 2 cores are shared with other engineers' builds "
		"and tests, so each row states the one-minute load after its run. The \"before\" columns "
		"are bench/results/auto-vs-svc.json's (same protocol, earlier commit, loads 2-5.6)." % C.machine_line(),
		"",
		"| set (training rows) | commit | `-C -k anne` s (load) | `-C -k auto` s (load) | ratio (goal <= %g) "
		"| before: auto s, ratio | auto's choice (CV %%) |" % GOAL_RATIO,
		"|---|---|---|---|---|---|---|"]
	for name, r in sorted(store.items()):
		a, n = r["auto"], r["anne"]
		b = before.get(name + "/auto", {})
		bn = before.get(name + "/anne", {})
		was = "%.1f, %.1fx" % (b["search_s"], b["search_s"] / bn["search_s"]) if b and bn else ""
		lines.append("| %s (%d) | %s | %.1f (%.1f) | %.1f (%.1f) | %.2fx | %s | %s t %d psi %d S %d w %g C %g (%.2f) |" % (
			name, r["rows"], r["commit"], n["search_s"], n["load"], a["search_s"], a["load"], r["ratio"],
			was, a["kernel"], a["t"], a["psi"], a["S"], a["w"], a["C"], a["cv"]))
	acc = [(name, r) for name, r in sorted(store.items()) if "acc" in r["auto"]]
	if acc:
		lines += ["", "Test accuracy of the printed command (`-r 1..5 -m 1`, mean [min, max]) against "
			"auto-vs-svc.json's RBF SVC and plain linear; goal: auto >= max(SVC, linear) - noise; "
			"cost: the chosen model's fit + predict (mean of 5) and model + .ik bytes:", "",
			"| set | auto | before (auto-vs-svc) | linear | RBF SVC | noise | goal | fit + predict s | bytes |",
			"|---|---|---|---|---|---|---|---|---|"]
		for name, r in acc:
			a = r["auto"]
			lin = before.get(name + "/linear", {}).get("acc")
			svc = before.get(name + "/svc", {}).get("acc")
			old = before.get(name + "/auto", {}).get("acc")
			noise = V.NOISE.get(name)
			goal = ""
			if lin is not None and svc is not None and noise is not None:
				gap = a["acc"] - max(lin, svc)
				goal = "%s (%+.2f)" % ("met" if gap >= -noise else "MISSED", gap)
			fmt = lambda v: "%.2f" % v if v is not None else "?"
			lines.append("| %s | %.2f [%.2f, %.2f] | %s | %s | %s | %s | %s | %.2f + %.2f | %d |" % (
				name, a["acc"], a["acc_min"], a["acc_max"], fmt(old), fmt(lin), fmt(svc),
				fmt(noise), goal, a["fit_s"], a["predict_s"], a["bytes"]))
	lines += ["", "auto's candidate lines:", ""]
	for name, r in sorted(store.items()):
		lines += ["%s (%.1f s):" % (name, r["auto"]["search_s"]), "", "```",
			r["auto"]["search_output"].rstrip("\n"), "```", ""]
	OUT_MD.write_text("\n".join(lines) + "\n")


def main():
	p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
	p.add_argument("--sets", default="a9a,ijcnn1,letter")
	p.add_argument("--accuracy", action="store_true")
	p.add_argument("--choice-rows", type=int, default=8000)
	p.add_argument("--report-only", action="store_true")
	args = p.parse_args()
	store = json.loads(OUT_JSON.read_text()) if OUT_JSON.exists() else {}
	if not args.report_only:
		for name in args.sets.split(","):
			store[name] = measure_set(name, args.accuracy, args.choice_rows)
			OUT_JSON.write_text(json.dumps(store, indent=1, sort_keys=True))
	report(store)


if __name__ == "__main__":
	main()
