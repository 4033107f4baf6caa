#!/usr/bin/env python3
"""bench/map_ab.py - mapping time of two builds of bench/ik_mapping, interleaved.

  map_ab.py DATA BIN_A BIN_B [--reps 5] [--method anne] [--t 100] [--psi 256] [--threads 1]

Runs `BIN ik_mapping DATA METHOD T PSI THREADS auto 1 nosgemm` for A and B in turn,
REPS times each (A, B, A, B, ...), and prints the median of map_s (wall) and map_cpu_s
(process CPU time, steadier on a loaded machine) of each, their ratio B / A, and the load
average before and after. Written for issue 22 (the pruned path without per-sample rows,
B, against the rows held per sample, A); it measures any two builds alike.
"""
import argparse
import os
import statistics
import subprocess


def run(binary, a):
    out = subprocess.run([binary, a.data, a.method, str(a.t), str(a.psi), str(a.threads), "auto",
        "1", "nosgemm"], check=True, capture_output=True, text=True).stdout
    kv = dict(p.split("=", 1) for p in out.split() if "=" in p)
    return float(kv["map_s"]), float(kv["map_cpu_s"]), kv.get("pruned"), kv.get("full_fraction")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("bin_a")
    ap.add_argument("bin_b")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--method", default="anne")
    ap.add_argument("--t", type=int, default=100)
    ap.add_argument("--psi", type=int, default=256)
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    load0 = os.getloadavg()
    res = {"A": [], "B": []}
    for _ in range(a.reps):
        for name, binary in (("A", a.bin_a), ("B", a.bin_b)):
            res[name].append(run(binary, a))
    load1 = os.getloadavg()
    print(f"data {a.data}; {a.method} t {a.t} psi {a.psi}, {a.threads} thread(s), {a.reps} runs each,"
        f" interleaved; load average {load0[0]:.1f} before, {load1[0]:.1f} after")
    print("| build | median map wall (s) | median map CPU (s) | pruned | full-score share |")
    print("|---|---:|---:|---|---:|")
    med = {}
    for name, binary in (("A", a.bin_a), ("B", a.bin_b)):
        r = res[name]
        med[name] = (statistics.median(x[0] for x in r), statistics.median(x[1] for x in r))
        print(f"| {name}: {binary} | {med[name][0]:.3f} | {med[name][1]:.3f} | {r[0][2]} | {r[0][3]} |")
    print(f"ratio B / A: wall {med['B'][0] / med['A'][0]:.2f}, CPU {med['B'][1] / med['A'][1]:.2f}")


if __name__ == "__main__":
    main()
