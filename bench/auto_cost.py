#!/usr/bin/env python3
"""bench/auto_cost.py - issue 28's search-cost goal, `train -C -k auto` at
most 5x `train -C -k anne` on the same data, and (with --accuracy) the test
accuracy of auto's choice, for a few sets at a time.

The lighter companion of bench/auto_vs_svc.py: the same splits and files
(bench/ikb_common.py, bench/ik_accuracy.Files), the same auto and anne
measurements (as auto_vs_svc.auto and anne_search: whole processes, `-m 1`;
wall and CPU seconds of each search),
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
import resource  # noqa: E402
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
NOTES = """## Update (2026-11-27, branch cost28): ijcnn1 rerun after stage 3's screen

- **What changed** (README, "Choosing the kernel", stage 3): stage 3 now confirms the cheapest
  kernel row that passes a screen, a score below the subsample's best by at most the standard
  error of the difference (sqrt(se_best^2 + se^2), capped at 0.5 points), then the best score.
  On ijcnn1's subsample iForest t = 100, psi = 512 (96.30%, se 0.31) fell just outside aNNE
  w = 0.3's band (96.65%, se 0.17: 96.48%) and was never scored on all rows; the screen takes it
  in, and on all 39992 rows it scored 98.42% against aNNE's 98.41%, so the choice rule (same
  columns, 900 map operations a row against 614400) takes it. The subsample tables of the other
  seven sets give the same stage-3 candidates as before, except letter's first one (iForest
  t = 100, w = 1 instead of t = 300; the choice stays t = 1000), so their choices are unchanged
  (bench/results/auto-vs-svc.md reran all eight).
- **ijcnn1 (row above, commit fad3fe3, a quiet machine: load 1.5):** `-C -k auto` 13.9 s
  against `-C -k anne`'s 12.4 s, wall and CPU alike: 1.12x (goal <= 5; was 1.3x). A first run
  at load 12-16 (commit 304f220, not kept) gave 204 s against 184 s wall, 23.6 s against 23.6 s
  CPU. The choice, iForest t = 100, psi = 512, C = 4, tested 94.66% (94.24-95.00 over seeds
  1-5) against SVC's 94.67% (noise 0.61; was 94.42% with aNNE w = 0.3), with a 2.8 MB model
  (was 5.6 MB). Its fit + predict against SVC's load + fit + predict, side by side:
  auto-vs-svc.md (0.10x; the goal, 1/3, met).

## Notes (2026-11-27, branch auto28; the runs of commit 4b26280, whose `train` is the branch's)

- **What changed in `-k auto`** (README, "Choosing the kernel"): stage 3 confirms on all rows
  only the subsample's cost-aware choice among the kernels and its best-scoring kernel (was the
  3 best scores), each with `-C -k`'s short C walk about the subsample's best C (was a rising
  walk from a quarter of it, which ran on to C = 1024 whenever the first C was already the best:
  a9a's minmax t = 1000, 408 of 461 s); t = 1000 only when t = 300 gained more than t = 100's
  standard error (was: any gain); stage 2 also tries the raw-feature weights w = 0.3 and 1.
- **Search cost goal (`-C -k auto` <= 5x `-C -k anne`): met on all eight sets**, in wall
  seconds (0.5x-4.2x) and in CPU seconds (0.35x-4.0x; dna's 4.0x is 9 s against 2 s; usps is
  the closest in wall seconds, 4.2x, 3.4x in CPU seconds). Before:
  a9a 17.6x, ijcnn1 6.0x, letter 5.1x (wall, auto-vs-svc.md). The machine's one-minute load
  was 5-13 throughout (other engineers' benchmarks), so the wall seconds are 2-4 times those of
  a quiet machine; the CPU seconds of these one-thread processes depend much less on the load,
  and both ratios tell the same story. An earlier run of the same script at commit 3a17b1b
  (stage 3 bounded, no w searched yet; wall seconds only, results not kept in the .json) gave
  a9a 38.0 s against 18.0 s (2.1x; plain linear chosen, 84.98% test) and ijcnn1 85.8 s against
  30.3 s (2.8x; anne t = 300, psi = 512, 93.96% test, a 9.8 MB model, 14.5 s fit + predict):
  the bounded stage 3 alone met the cost goal there, and w = 0.3 then lifted ijcnn1's accuracy.
- **Accuracy goal (auto >= max(SVC, linear) - noise; SVC and linear from auto-vs-svc.json):
  met on all eight sets, ijcnn1 included** (94.42 against SVC's 94.67, noise 0.61; it
  missed by 0.72 before, with anne t = 1000 psi = 512). The choices changed on a9a (minmax
  t = 100, w = 0.3: 84.97 against 85.16 before, both above SVC's 84.95 - 0.77), ijcnn1 (anne
  t = 100, psi = 512, w = 0.3) and dna (iforest t = 100, psi = 8, w = 0.3: 95.26 against
  94.72 before, SVC 95.03) and pendigits (iforest t = 100 where t = 300 was within the noise:
  97.66 against 97.96 before, SVC 98.17, noise 0.63: met, with 0.12 to spare) and covtype
  (iforest t = 300 where t = 1000 was within the noise: 85.62 against 86.49 before, still 1.9
  above SVC); letter's, satimage's and usps's kernel, t and psi stayed (C changed). The average
  gap SVC - auto over the eight sets: -0.03 points (goal <= 0.4; without covtype +0.24).
- **Model cost goal (sets >= 20000 training rows: the chosen model's train + predict <= 1/3 of
  SVC's load + fit + predict, auto-vs-svc.json's 48.2 s on a9a, 3.75 s on ijcnn1):** a9a met
  (0.64 s, a 35 kB model); **ijcnn1 still missed**, but the model is cheaper: 8.3 s (was 37.5 s;
  a 5.6 MB model, was 19.4 MB) against SVC's 3.75 s, 2.2x where the goal is 0.33x. These
  seconds were measured at load 11-13, SVC's at 2-5.6, so the true ratio is lower, but not 6x
  lower.
"""


def head():
	"""The commit measured: BENCH_COMMIT when the binaries were copied out of the repository."""
	if os.environ.get("BENCH_COMMIT"):
		return os.environ["BENCH_COMMIT"]
	r = subprocess.run(["git", "-C", str(C.REPO), "rev-parse", "--short", "HEAD"],
		capture_output=True, text=True)
	return r.stdout.strip() or "unknown"


def cpu_timed(args):
	"""A.timed, plus the CPU seconds (user + system) of the child: on a machine shared with
	other engineers' jobs the wall time grows with the load, the CPU time of a one-thread
	process much less, so the ratio is also given in CPU seconds."""
	before = resource.getrusage(resource.RUSAGE_CHILDREN)
	out, wall = A.timed(args)
	after = resource.getrusage(resource.RUSAGE_CHILDREN)
	return out, wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure_set(name, accuracy, choice_rows):
	f = A.Files(name, choice_rows)
	r = {"rows": f.n_train, "commit": head(), "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
	out, wall, cpu = cpu_timed([C.TRAIN, "-C", "-k", "anne", "-m", "1", f.train])
	m = A.BEST_K_RE.search(out)
	r["anne"] = {"search_s": wall, "cpu_s": cpu, "psi": int(m.group(1)), "C": float(m.group(2)),
		"cv": float(m.group(3))}
	r["anne"]["load"] = round(C.load_average(), 2)
	print(time.strftime("%H:%M:%S"), name, "anne", r["anne"], flush=True)
	out, wall, cpu = cpu_timed([C.TRAIN, "-C", "-k", "auto", "-m", "1", f.train])
	m = V.BEST_AUTO_RE.search(out)
	r["auto"] = {"search_s": wall, "cpu_s": cpu, "search_output": out, "kernel": m.group(1),
		"t": int(m.group(2)), "psi": int(m.group(3)), "S": int(m.group(4)), "w": float(m.group(5)),
		"C": float(m.group(6)), "cv": float(m.group(7)), "command": V.CMD_RE.search(out).group(1)}
	r["auto"]["load"] = round(C.load_average(), 2)
	r["ratio"] = r["auto"]["search_s"] / r["anne"]["search_s"]
	r["cpu_ratio"] = r["auto"]["cpu_s"] / r["anne"]["cpu_s"]
	if accuracy:
		r["auto"].update(V.command_accuracy(f, r["auto"]["command"]))
	print(time.strftime("%H:%M:%S"), name, "auto", {k: v for k, v in r["auto"].items()
		if k not in ("search_output", "seeds")}, "ratio %.2f" % r["ratio"], flush=True)
	return r


# auto-vs-svc.json as its first run left it (bench28): the "before" columns; the file itself now
# holds later runs of auto (branch cost28), whose SVC and linear rows are still that run's
BEFORE_COMMIT = "8f4305a"


def before_store():
	r = subprocess.run(["git", "-C", str(C.REPO), "show", BEFORE_COMMIT + ":bench/results/auto-vs-svc.json"],
		capture_output=True, text=True)
	if r.returncode == 0:
		return json.loads(r.stdout)
	return json.loads(V.OUT_JSON.read_text()) if V.OUT_JSON.exists() else {}


def report(store):
	before = before_store()
	lines = ["# `train -C -k auto` against `train -C -k anne`, and auto's choice (issue 28)", "",
		"bench/auto_cost.py (its docstring is the protocol): both searches `-m 1`, whole processes, "
		"on the training part; machine: %s; the 2 cores are shared with other engineers' builds "
		"and tests, so each row states the one-minute load after its run. The \"before\" columns "
		"are bench/results/auto-vs-svc.json's first run (same protocol, commit d8a98ed's binaries, "
		"loads 2-5.6; read from git at %s)." % (C.machine_line(), BEFORE_COMMIT),
		"",
		"| set (training rows) | commit | `-C -k anne` s wall, CPU (load) | `-C -k auto` s wall, CPU (load) "
		"| ratio wall, CPU (goal <= %g) | before: auto s, ratio (wall) | auto's choice (CV %%) |" % GOAL_RATIO,
		"|---|---|---|---|---|---|---|"]
	for name, r in sorted(store.items()):
		a, n = r["auto"], r["anne"]
		b = before.get(name + "/auto", {})
		bn = before.get(name + "/anne", {})
		was = "%.1f, %.1fx" % (b["search_s"], b["search_s"] / bn["search_s"]) if b and bn else ""
		cpu = lambda x: "%.1f" % x["cpu_s"] if "cpu_s" in x else "-"
		lines.append("| %s (%d) | %s | %.1f, %s (%.1f) | %.1f, %s (%.1f) | %.2fx, %s | %s | %s t %d psi %d S %d w %g C %g (%.2f) |" % (
			name, r["rows"], r["commit"], n["search_s"], cpu(n), n["load"], a["search_s"], cpu(a), a["load"],
			r["ratio"], "%.2fx" % r["cpu_ratio"] if "cpu_ratio" in r else "-",
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
			if noise is None and svc is not None:  # auto_vs_svc's rule for the sets the issue does not give
				noise = V.noise(name, svc, len(C.split(name)[1]))[0]
			goal = ""
			if lin is not None and svc is not None and noise is not None:
				gap = a["acc"] - max(lin, svc)
				goal = "%s (%+.2f)" % ("met" if gap >= -noise else "MISSED", gap)
			fmt = lambda v: "%.2f" % v if v is not None else "?"
			lines.append("| %s | %.2f [%.2f, %.2f] | %s | %s | %s | %s | %s | %.2f + %.2f | %d |" % (
				name, a["acc"], a["acc_min"], a["acc_max"], fmt(old), fmt(lin), fmt(svc),
				fmt(noise), goal, a["fit_s"], a["predict_s"], a["bytes"]))
	lines += ["", NOTES, "auto's candidate lines:", ""]
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
