function test_raw_features(ctx)
% -a w (issue 28): a -k -a model counts the raw columns (nr_feature =
% t*psi + d); ikmap's rows are the cells, then w times the features
% divided by their range (iforest -S 2; the range computed here, zeros
% counted), and equal the ikmap program's rows; K = Z*Z'; 'col' is the
% transpose; -a without -k and a negative w are refused.
  [y, X] = libsvmread(ctx.heart);
  here = fullfile(ctx.tmp, 'raw');
  mkdir(here);
  file = fullfile(here, 'heart.model');
  model = train(y, X, '-k iforest -t 12 -g 8 -S 2 -a 0.4 -q');
  t = model.ik.t;
  psi = model.ik.psi;
  d = size(X, 2);
  assert(model.nr_feature == t * psi + d, 'nr_feature counts the raw columns');
  Z = ikmap(model, X);
  assert(issparse(Z) && isequal(size(Z), [numel(y), t * psi + d]), 'size');
  assert(all(full(sum(Z(:, 1:t * psi) ~= 0, 2)) == t), 't cells per row');
  F = full(X);
  range = max(F, [], 1) - min(F, [], 1);
  range(range == 0) = 1;
  assert(max(max(abs(full(Z(:, t * psi + 1:end)) - 0.4 * F ./ range))) < 1e-12, 'raw part');
  assert(isequal(ikmap(model, X', 'col'), Z'), 'col is the transpose');
  savemodel(model, file);
  mapped = fullfile(here, 'mapped');
  run_program('"%s" "%s.ik" < "%s" > "%s"', ctx.ikmap, file, ctx.heart, mapped);
  [y2, M] = libsvmread(mapped);
  width = size(M, 2);
  assert(isequal(y2, y) && isequal(Z(:, 1:width), M) && nnz(Z(:, width + 1:end)) == 0, ...
    'mapped rows differ from the ikmap program''s');
  A = X(1:20, :);
  B = X(31:55, :);
  K = ikmap(model, A, B);
  assert(max(max(abs(K - full(Z(1:20, :) * Z(31:55, :)')))) < 1e-12, 'K against Z*Z''');
  % predictions: the program's on the same model
  [predicted, ~, ~] = predict(y, X, model, '-q');
  out = fullfile(here, 'out');
  run_program('"%s" "%s" "%s" "%s" > /dev/null', ctx.predict, ctx.heart, file, out);
  assert(isequal(predicted, load(out)), 'predictions differ from the program''s');
  expect_error(@() train(y, X, '-a 0.3 -q'), 'needs -k');
  expect_error(@() train(y, X, '-k anne -a -1 -q'), '-a needs');
end
