function test_ikmap(ctx)
% ikmap: the mapped rows equal what the ikmap program prints for the same
% partitioning (t nonzeros 1/sqrt(t) per row), and the kernel values equal
% the program's -K output and the dot products of mapped rows.
  [y, X] = libsvmread(ctx.heart);
  here = fullfile(ctx.tmp, 'ikmap');
  mkdir(here);
  file = fullfile(here, 'heart.model');
  for options = {'-k anne -g 16 -t 40', '-k iforest -g 32 -t 25 -r 3'}
    model = train(y, X, [options{1} ' -q']);
    t = model.ik.t;
    psi = model.ik.psi;
    Z = ikmap(model, X);
    assert(issparse(Z) && isequal(size(Z), [numel(y), t * psi]), '%s: size', options{1});
    assert(all(full(sum(Z ~= 0, 2)) == t), '%s: t nonzeros per row', options{1});
    assert(all(nonzeros(Z) == 1 / sqrt(t)), '%s: values', options{1});
    % exactly one cell per partitioning
    for k = 1:t
      assert(all(full(sum(Z(:, (k - 1) * psi + (1:psi)) ~= 0, 2)) == 1));
    end
    % the ik field alone maps the same, and 'col' gives the transpose
    assert(isequal(ikmap(model.ik, X), Z));
    assert(isequal(ikmap(model, X', 'col'), Z'));
    % the program's mapped rows (its partitioning file is the model's)
    savemodel(model, file);
    mapped = fullfile(here, 'mapped');
    run_program('"%s" "%s.ik" < "%s" > "%s"', ctx.ikmap, file, ctx.heart, mapped);
    [y2, M] = libsvmread(mapped);
    assert(isequal(y2, y));
    width = size(M, 2);  % the program's file ends at the last cell that occurs
    assert(isequal(Z(:, 1:width), M) && nnz(Z(:, width + 1:end)) == 0, ...
      '%s: mapped rows differ from the ikmap program''s', options{1});
    % kernel values: the program's -K (printed with %g), and Z * Z'
    A = X(1:20, :);
    B = X(31:55, :);
    K = ikmap(model, A, B);
    assert(isequal(size(K), [20 25]) && ~issparse(K));
    assert(max(max(abs(K - full(Z(1:20, :) * Z(31:55, :)')))) < 1e-12, '%s: K against Z*Z''', options{1});
    assert(all(abs(round(K(:) * t) - K(:) * t) < 1e-9), 'K is a count over t');
    libsvmwrite(fullfile(here, 'a'), y(1:20), A);
    libsvmwrite(fullfile(here, 'b'), y(31:55), B);
    printed = run_program('"%s" -K "%s.ik" "%s" "%s"', ctx.ikmap, file, fullfile(here, 'a'), fullfile(here, 'b'));
    lines = strsplit(strtrim(printed), "\n");
    assert(numel(lines) == 20);
    for i = 1:20
      assert(strcmp(strtrim(lines{i}), sprintf('%g ', K(i, :))(1:end-1)), '%s: K row %d', options{1}, i);
    end
    Kxx = ikmap(model, A', A', 'col');
    assert(all(diag(Kxx) == 1) && isequal(Kxx, Kxx'), 'K(x, x) = 1, symmetric');
  end
  % a plain model has no partitioning
  expect_error(@() ikmap(train(y, X, '-q'), X), 'not a -k model');
end
