/*
 * ik_defaults.h - the defaults of the Isolation Kernel's parameters: the
 * programs' -t, -g, -r and -S (tools/ik_options.h) and the library's
 * lik_map_params_default (liblinear_ik.h). One #define each, so that the
 * benchmark that measures them changes one line.
 */
#ifndef IK_DEFAULTS_H
#define IK_DEFAULTS_H

/*
 * The defaults of psi and -S were chosen by 5-fold cross-validation on the
 * training parts of 14 datasets (bench/ik_defaults.py; the numbers are in
 * bench/results/ik-defaults.md): psi 64 for aNNE and 32 for iForest have
 * the best mean rank among the psi that every dataset can take (psi above
 * the number of rows is an error); -S 1 gains up to 6 points where
 * features have different scales (cod-rna, diabetes) and changes nothing
 * on data already scaled.
 */
#define IK_DEFAULT_T 100
#define IK_DEFAULT_PSI_ANNE 64
#define IK_DEFAULT_PSI_IFOREST 32
#define IK_DEFAULT_SCALE 1
#define IK_DEFAULT_SEED 1

/*
 * The exact-sparse kernels (issue 27): -k minmax's 2^b cells per sample
 * (-g) and its search grid, -k acos's 2 cells per projection, and their
 * -S default 0 (no transform), so that training reads its input once.
 * Their -t (k samples) defaults to IK_DEFAULT_T and is capped by
 * IK_MAX_SAMPLES, the cap of their .ik files.
 */
#define IK_DEFAULT_PSI_MINMAX 256
#define IK_MIN_PSI_MINMAX 16
#define IK_MAX_PSI_MINMAX 65536
#define IK_CELLS_ACOS 2
#define IK_DEFAULT_SCALE_EXACT 0
#define IK_MAX_SAMPLES 65536

#endif /* IK_DEFAULTS_H */
