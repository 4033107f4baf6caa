#!/usr/bin/env python3
"""bench/make_images.py - a deterministic MNIST-like dense data set.

  make_images.py OUT [--rows N] [--seed S]
  make_images.py OUT --binary [--rows N] [--seed S]

--binary writes only OUT.libsvm, a two-class set (+1 for the first half of
the prototypes, -1 for the rest) made and written in blocks of rows, so its
memory stays small whatever N (1M rows are about 4.4 GB of text; issue 22's
growth per training row, bench/stream_memory.py growth --images). Its rows
come from the same recipe but a different random stream than the default
mode's, and it keeps no .u8.npy.

Writes OUT.u8.npy (rows x 784 uint8 grey levels), OUT.libsvm (the same
rows as LIBSVM text, value v/255 written with %.6g, zeros left out) and
returns the float64 matrix that LIBSVM text parses to (values(u8)), so a
Python benchmark gives ikpykit exactly the numbers our C reader sees.

How the images are made (structured, not uniform noise): 300 prototypes,
each 3 to 6 soft strokes (line segments blurred by a Gaussian profile) on
a 28 x 28 grid; a row takes a prototype at random, shifts it by -2..2
pixels in each direction, scales its ink by 0.7..1.3, adds Gaussian noise
(sd 0.08) on the inked pixels, clips to [0, 1] and zeroes what falls
below 0.15. About half of the pixels end up zero (the script prints the
fraction), like MNIST's digits, which are about 80 % zero (seed 1: 52 % zeros).
"""
import argparse
import sys
from pathlib import Path

import numpy as np

SIDE = 28
PROTOTYPES = 300


def prototypes(rng):
	yy, xx = np.mgrid[0:SIDE, 0:SIDE].astype(np.float64)
	out = np.zeros((PROTOTYPES, SIDE, SIDE))
	for p in range(PROTOTYPES):
		img = np.zeros((SIDE, SIDE))
		for _ in range(rng.integers(3, 7)):
			a = rng.uniform(3, 25, size=2)
			b = rng.uniform(3, 25, size=2)
			width = rng.uniform(1.2, 2.6)
			# distance of every pixel to the segment a-b
			ab = b - a
			t = ((yy - a[0]) * ab[0] + (xx - a[1]) * ab[1]) / max(ab @ ab, 1e-9)
			t = np.clip(t, 0, 1)
			dy = yy - (a[0] + t * ab[0])
			dx = xx - (a[1] + t * ab[1])
			img = np.maximum(img, np.exp(-(dy * dy + dx * dx) / (2 * width * width)))
		out[p] = img
	return out


def images(rows, seed):
	rng = np.random.default_rng(seed)
	protos = prototypes(rng)
	which = rng.integers(0, PROTOTYPES, size=rows)
	shift = rng.integers(-2, 3, size=(rows, 2))
	ink = rng.uniform(0.7, 1.3, size=rows)
	out = np.empty((rows, SIDE * SIDE), dtype=np.uint8)
	for r in range(rows):
		img = np.roll(protos[which[r]], tuple(shift[r]), axis=(0, 1)) * ink[r]
		img = img + (img > 0.05) * rng.normal(0, 0.08, size=img.shape)
		img = np.clip(img, 0, 1)
		img[img < 0.15] = 0
		out[r] = np.rint(img * 255).astype(np.uint8).reshape(-1)
	return out


def image_block(rng, protos, n):
	"""n rows of the recipe above at once: (uint8 n x 784, prototype index n)."""
	which = rng.integers(0, PROTOTYPES, size=n)
	shift = rng.integers(-2, 3, size=(n, 2))
	ink = rng.uniform(0.7, 1.3, size=n)
	# np.roll by s puts pixel (i - s) mod 28 at i: the same rows, gathered
	side = np.arange(SIDE)
	iy = (side[None, :] - shift[:, :1]) % SIDE
	ix = (side[None, :] - shift[:, 1:]) % SIDE
	img = protos[which[:, None, None], iy[:, :, None], ix[:, None, :]] * ink[:, None, None]
	img = img + (img > 0.05) * rng.normal(0, 0.08, size=img.shape)
	img = np.clip(img, 0, 1)
	img[img < 0.15] = 0
	return np.rint(img * 255).astype(np.uint8).reshape(n, SIDE * SIDE), which


def token_table():
	"""Every piece of text a row is made of, as one byte array with starts and lengths.

	Token 0 is the label "+1", 1 is "-1", 2 + 256 j + v is " j+1:value(v)" (v > 0) and the
	last is the newline: a block of rows becomes a list of token ids, and its text one
	gather from this table, instead of a Python format call per nonzero.
	"""
	text = ["%.6g" % (v / 255.0) for v in range(256)]
	pieces = [b"+1", b"-1"]
	for j in range(SIDE * SIDE):
		pieces += [(" %d:%s" % (j + 1, text[v])).encode() for v in range(256)]
	pieces.append(b"\n")
	lens = np.array([len(p) for p in pieces], dtype=np.int64)
	starts = np.concatenate(([0], np.cumsum(lens)[:-1]))
	return np.frombuffer(b"".join(pieces), dtype=np.uint8), starts, lens


def block_text(u8, label, table):
	"""The LIBSVM text of a block: "label j:v ... " with the zeros left out, one line a row."""
	data, starts, lens = table
	n, d = u8.shape
	ids = np.empty((n, d + 2), dtype=np.int64)
	ids[:, 0] = np.where(label > 0, 0, 1)
	ids[:, 1:d + 1] = 2 + 256 * np.arange(d)[None, :] + u8
	ids[:, d + 1] = len(lens) - 1
	keep = np.ones((n, d + 2), dtype=bool)
	keep[:, 1:d + 1] = u8 != 0
	seq = ids[keep]  # row-major: each row's tokens in column order
	ln = lens[seq]
	out_start = np.cumsum(ln) - ln
	# byte k of the block is byte (k - out_start[tok]) of token tok, at starts[tok] + that
	idx = np.repeat(starts[seq] - out_start, ln) + np.arange(int(ln.sum()))
	return data[idx].tobytes()


def write_binary(path, rows, seed, block=1024):
	"""Writes rows two-class image rows to path block by block; returns the share of zeros."""
	rng = np.random.default_rng(seed)
	protos = prototypes(rng)
	table = token_table()
	zeros = 0
	tmp = Path(str(path) + ".part")
	with open(tmp, "wb") as f:
		done = 0
		while done < rows:
			n = min(block, rows - done)
			u8, which = image_block(rng, protos, n)
			zeros += int(np.count_nonzero(u8 == 0))
			f.write(block_text(u8, np.where(which < PROTOTYPES // 2, 1, -1), table))
			done += n
	# the whole file or none: a cut-off run leaves only the .part
	tmp.replace(path)
	return zeros / (rows * SIDE * SIDE)


def values():
	"""The double each grey level becomes after a %.6g round trip."""
	return np.array([float("%.6g" % (v / 255.0)) for v in range(256)])


def write_libsvm(u8, path):
	text = ["%.6g" % (v / 255.0) for v in range(256)]
	with open(path, "w") as f:
		for row in u8:
			nz = np.nonzero(row)[0]
			f.write("0 " + " ".join("%d:%s" % (j + 1, text[row[j]]) for j in nz) + "\n")


def make(out, rows, seed=1):
	"""(u8 matrix, libsvm path); reuses the files when they exist."""
	out = Path(out)
	npy = Path(str(out) + ".u8.npy")
	svm = Path(str(out) + ".libsvm")
	if npy.exists() and svm.exists():
		u8 = np.load(npy)
		if u8.shape[0] == rows:
			return u8, str(svm)
	out.parent.mkdir(parents=True, exist_ok=True)
	u8 = images(rows, seed)
	np.save(npy, u8)
	write_libsvm(u8, svm)
	return u8, str(svm)


def main():
	ap = argparse.ArgumentParser()
	ap.add_argument("out")
	ap.add_argument("--rows", type=int, default=60000)
	ap.add_argument("--seed", type=int, default=1)
	ap.add_argument("--binary", action="store_true", help="two classes, written in blocks, no .npy")
	a = ap.parse_args()
	if a.binary:
		svm = str(a.out) + ".libsvm"
		z = write_binary(svm, a.rows, a.seed)
		print("%s: %d x %d, two classes, %.1f %% zeros" % (svm, a.rows, SIDE * SIDE, 100.0 * z))
		return 0
	u8, svm = make(a.out, a.rows, a.seed)
	print("%s: %d x %d, %.1f %% zeros" % (svm, u8.shape[0], u8.shape[1], 100.0 * np.mean(u8 == 0)))


if __name__ == "__main__":
	sys.exit(main())
