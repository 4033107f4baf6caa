function test_libsvm_io(ctx)
% libsvmread/libsvmwrite on every shared dataset: what libsvmread gives
% has the rows, columns, nonzeros and label counts MANIFEST.tsv states;
% libsvmwrite then libsvmread gives back the same doubles bit for bit (and
% writing that again gives the same bytes); index 0 (a precomputed kernel)
% shifts the columns by one, as upstream.
  manifest = strsplit(strtrim(fileread(fullfile(ctx.data, 'MANIFEST.tsv'))), "\n");
  header = strsplit(manifest{1}, "\t");
  col = @(name) find(strcmp(header, name));
  here = fullfile(ctx.tmp, 'io');
  mkdir(here);
  text = fullfile(here, 'data');
  first = fullfile(here, 'written1');
  second = fullfile(here, 'written2');
  checked = 0;
  for i = 2:numel(manifest)
    f = strsplit(manifest{i}, "\t");
    run_program('xz -dc "%s" > "%s"', fullfile(ctx.data, f{col('name')}, f{col('file')}), text);
    [y, X] = libsvmread(text);
    what = sprintf('%s/%s', f{col('name')}, f{col('file')});
    assert(numel(y) == str2double(f{col('rows')}) && size(X, 1) == numel(y), '%s: rows', what);
    assert(size(X, 2) == str2double(f{col('dims')}), '%s: columns', what);
    assert(nnz(X) == str2double(f{col('nnz')}), '%s: nonzeros', what);
    for pair = strsplit(f{col('labels')}, ',')
      lc = strsplit(pair{1}, ':');
      assert(sum(y == str2double(lc{1})) == str2double(lc{2}), '%s: label %s', what, lc{1});
    end
    libsvmwrite(first, y, X);
    [y2, X2] = libsvmread(first);
    assert(isequal(size(X2), size(X)), '%s: size after the round trip', what);
    assert(isequal(typecast(y2, 'uint64'), typecast(y, 'uint64')), '%s: labels not bit for bit', what);
    [i1, j1, v1] = find(X);
    [i2, j2, v2] = find(X2);
    assert(isequal(i1, i2) && isequal(j1, j2), '%s: positions', what);
    assert(isequal(typecast(v1, 'uint64'), typecast(v2, 'uint64')), '%s: values not bit for bit', what);
    libsvmwrite(second, y2, X2);
    assert(strcmp(fileread(first), fileread(second)), '%s: written twice, different bytes', what);
    checked = checked + 1;
  end
  assert(checked >= 20, 'only %d datasets checked', checked);

  % the fewest digits that read back exactly: 16 for pi, 17 for 0.1 + 0.2,
  % where upstream's %g would write 3.14159 and 0.3
  y = [1; -1; 0.1];
  X = sparse([1 1 2 3], [1 3 2 5], [pi, 0.1 + 0.2, 1e-300, 2^53 + 2]);
  libsvmwrite(first, y, X);
  [y2, X2] = libsvmread(first);
  assert(isequal(y2, y) && isequal(X2, X));
  lines = strsplit(strtrim(fileread(first)), "\n");
  assert(strcmp(lines{1}, '1 1:3.141592653589793 3:0.30000000000000004'), lines{1});
  assert(strcmp(lines{2}, '-1 2:1e-300'), lines{2});
  assert(strcmp(lines{3}, '0.1 5:9007199254740994'), lines{3});
  % an empty row is a label alone
  libsvmwrite(first, [1; 2], sparse([1], [2], [5], 2, 3));
  assert(strcmp(fileread(first), sprintf('1 2:5\n2\n')));
  % index 0: columns shift by one
  fid = fopen(text, 'w');
  fprintf(fid, '1 0:1 2:3\n-1 1:2\n');
  fclose(fid);
  [y, X] = libsvmread(text);
  assert(isequal(full(X), [1 0 3; 0 2 0]) && isequal(y, [1; -1]));
  % a file with labels only
  fid = fopen(text, 'w');
  fprintf(fid, '1\n2\n');
  fclose(fid);
  [y, X] = libsvmread(text);
  assert(isequal(y, [1; 2]) && isequal(size(X), [2 0]));
end
