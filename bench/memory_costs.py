#!/usr/bin/env python3
"""bench/memory_costs.py - what t, psi, w and each kernel cost in bytes on
disk (issue 28's README table), from measured file sizes.

For each set (the training part, bench/ikb_common.py's splits) and each
configuration below: `train -m 1 -c 1 [-k ...]` writes MODEL (the linear
model: nr_feature x nr_w weights as text, "%.17g " each) and MODEL.ik (the
map). Per row of the table: the columns (nr_feature from the model file),
nr_w, model bytes and bytes per weight, .ik bytes and bytes per cell
(t*psi; acos: 2t). Nothing is timed. Results: bench/results/memory-costs.md
and .json.
"""
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ikb_common as C  # noqa: E402

OUT_JSON = C.REPO / "bench" / "results" / "memory-costs.json"
OUT_MD = C.REPO / "bench" / "results" / "memory-costs.md"
SETS = ["dna", "satimage"]
CONFIGS = [
	[],
	["-k", "anne", "-t", "100", "-g", "16"],
	["-k", "anne", "-t", "100", "-g", "256"],
	["-k", "anne", "-t", "300", "-g", "64"],
	["-k", "anne", "-t", "100", "-g", "64", "-a", "0.3"],
	["-k", "iforest", "-t", "100", "-g", "16"],
	["-k", "iforest", "-t", "100", "-g", "256"],
	["-k", "iforest", "-t", "300", "-g", "64"],
	["-k", "minmax", "-t", "100", "-g", "64", "-S", "2"],
	["-k", "minmax", "-t", "300", "-g", "256", "-S", "2"],
	["-k", "acos", "-t", "100"],
	["-k", "acos", "-t", "1000"],
]


def header_value(path, key):
	with open(path) as f:
		for line in f:
			if line.startswith(key + " "):
				return line.split()[1]
			if line.startswith("w"):
				break
	raise RuntimeError("no %s in %s" % (key, path))


def measure(name):
	train, _ = C.split(name)
	d = C.TMP / "memory"
	data = C.write(train, d / (name + ".train"))
	rows = []
	for options in CONFIGS:
		model = str(d / (name + ".model"))
		for p in (Path(model), Path(model + ".ik")):
			if p.exists():
				p.unlink()
		C.run([C.TRAIN, "-q", "-m", "1", "-c", "1"] + options + [data, model])
		n = int(header_value(model, "nr_feature"))
		k = int(header_value(model, "nr_class"))
		nr_w = 1 if k == 2 else k
		mb = Path(model).stat().st_size
		ik = Path(model + ".ik")
		ib = ik.stat().st_size if ik.exists() else 0
		kernel = options[1] if options else "linear"
		t = int(options[3]) if options else 0
		psi = int(options[5]) if len(options) > 5 and options[4] == "-g" else (2 if kernel == "acos" else 0)
		cells = t * psi
		rows.append({"set": name, "options": " ".join(options) or "(plain)", "kernel": kernel,
			"t": t, "psi": psi, "columns": n, "nr_w": nr_w, "model_bytes": mb,
			"bytes_per_weight": mb / (n * nr_w), "ik_bytes": ib,
			"ik_bytes_per_cell": ib / cells if cells else 0, "rows": len(train)})
		print(rows[-1], flush=True)
	return rows


def main():
	rows = []
	for name in SETS:
		rows += measure(name)
	OUT_JSON.write_text(json.dumps(rows, indent=1))
	lines = ["# Bytes on disk per kernel, t, psi and w (issue 28)", "",
		"bench/memory_costs.py (its docstring is the protocol): `train -m 1 -c 1` on the training "
		"part; model = the linear model file (nr_feature x nr_w weights, \"%.17g \" each); .ik = "
		"the map file. Machine: " + C.machine_line() + ".", "",
		"| set (rows) | options | columns | nr_w | model bytes | bytes / weight | .ik bytes | .ik bytes / cell |",
		"|---|---|---|---|---|---|---|---|"]
	for r in rows:
		lines.append("| %s (%d) | %s | %d | %d | %d | %.1f | %d | %s |" % (
			r["set"], r["rows"], r["options"], r["columns"], r["nr_w"], r["model_bytes"],
			r["bytes_per_weight"], r["ik_bytes"],
			"%.1f" % r["ik_bytes_per_cell"] if r["ik_bytes_per_cell"] else "-"))
	OUT_MD.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
	main()
