"""LIBLINEAR-IK: LIBLINEAR 2.50 with the Isolation Kernel, import-compatible
with liblinear-official 2.50 (modules liblinear.liblinear,
liblinear.liblinearutil, liblinear.commonutil)."""
