function test_refusals(ctx)
% Refusals: a -k struct whose partitioning bytes are damaged, or that
% does not match its weights, is an error (never a plain linear model);
% bad options, dense X where sparse is required, labels that do not fit,
% files that cannot be read or written are errors with upstream's message,
% and Octave goes on (the next call works).
  [y, X] = libsvmread(ctx.heart);
  here = fullfile(ctx.tmp, 'refusals');
  mkdir(here);
  good = train(y, X, '-k anne -g 16 -q');
  expected = predict(y, X, good, '-q');

  % damaged partitioning bytes: one bit, a cut, an appended byte, the type
  m = good;
  m.ik.bytes(200) = bitxor(m.ik.bytes(200), uint8(4));
  expect_error(@() predict(y, X, m), 'damaged -k model');
  m = good;
  m.ik.bytes = m.ik.bytes(1:end - 9);
  expect_error(@() predict(y, X, m), 'damaged -k model');
  m = good;
  m.ik.bytes(end + 1) = 0;
  expect_error(@() predict(y, X, m), 'damaged -k model');
  m = good;
  m.ik.bytes = double(m.ik.bytes);
  expect_error(@() predict(y, X, m), 'must be a uint8 vector');
  m = good;
  m.ik.bytes = uint8([]);
  expect_error(@() predict(y, X, m), 'damaged -k model');
  % descriptive fields that disagree with the bytes
  for f = {'t', 'psi', 'scale'}
    m = good;
    m.ik.(f{1}) = m.ik.(f{1}) + 1;
    expect_error(@() predict(y, X, m), sprintf('model.ik.%s does not match', f{1}));
  end
  m = good;
  m.ik.seed = m.ik.seed + 1;
  expect_error(@() predict(y, X, m), 'model.ik.seed does not match');
  m = good;
  m.ik.kernel = 'iforest';
  expect_error(@() predict(y, X, m), 'model.ik.kernel does not match');
  m = good;
  m.ik.checksum(1) = char('0' + ('0' == m.ik.checksum(1)));
  expect_error(@() predict(y, X, m), 'model.ik.checksum does not match');
  m = good;
  m.ik = rmfield(m.ik, 'bytes');
  m.ik.x = 1;
  expect_error(@() predict(y, X, m), 'model.ik.bytes is missing');
  m = good;
  m.ik = [];
  expect_error(@() predict(y, X, m), 'model.ik is empty');

  % weights that do not match the partitioning
  other = train(y, X, '-k anne -g 8 -q');
  m = good;
  m.ik = other.ik;  % psi 8 under weights of psi 16
  expect_error(@() predict(y, X, m), 'nr_feature 1600 but the map has t\*psi = 100\*8');
  m = good;
  m.w = other.w;
  m.nr_feature = other.nr_feature;  % weights of psi 8 with a partitioning of psi 16
  expect_error(@() predict(y, X, m), 'nr_feature 800 but the map has t\*psi = 100\*16');
  m = good;
  m.w = m.w(1:end - 1);
  expect_error(@() predict(y, X, m), 'model.w must be a full real 1 x 1600');
  m = good;
  m.nr_feature = 7;
  expect_error(@() predict(y, X, m), 'model.w must be');
  % the same refusals in savemodel and ikmap (nothing written)
  m = good;
  m.ik.bytes(200) = bitxor(m.ik.bytes(200), uint8(4));
  file = fullfile(here, 'damaged.model');
  expect_error(@() savemodel(m, file), 'damaged -k model');
  assert(~exist(file, 'file') && ~exist([file '.ik'], 'file'), 'savemodel wrote a damaged model');
  expect_error(@() ikmap(m, X), 'damaged -k model');

  % plain structs that cannot be models
  plain = train(y, X, '-q');
  m = plain;
  m.Label = [];
  expect_error(@() predict(y, X, m), 'model.Label is empty');
  m = plain;
  m.Parameters = 99;
  expect_error(@() predict(y, X, m), 'unknown solver type 99');
  m = rmfield(plain, 'w');
  expect_error(@() predict(y, X, m), 'model.w is missing');
  m = plain;
  m.nr_class = -3;
  expect_error(@() predict(y, X, m), 'model.nr_class must be an integer');
  expect_error(@() predict(y, X, 5), 'model file should be a struct array');
  % a struct from before 2.44 (no rho) is still a model, as upstream reads it
  assert(isequal(predict(y, X, rmfield(plain, 'rho'), '-q'), predict(y, X, plain, '-q')));

  % bad options (the usage is printed first, as upstream)
  bad = {'-s 99', 'unknown solver type'; '-c abc', '-c needs a finite real number'; ...
         '-x 1', 'unknown option: -x'; '-v 1', 'n must >= 2'; '-k foo', '-k needs 0'; ...
         '-k anne -g 0', '-g needs'; '-k anne -g 1000', 'psi'; '-k anne -t 0', '-t needs'; ...
         '-k anne -S 5', '-S needs'; '-k anne -S -1', '-S needs'; '-k anne -r -1', '-r needs'; '-d tpu', '-d needs'; ...
         '-C -s 1', 'Warm-start parameter search only available'; '-c', 'needs a value'; ...
         '-w1', 'needs a value'; '-wx 2', '-wi needs an integer'; '-m 0', '-m needs'; ...
         '-s 21 -B 1', 'ignored in ONECLASS_SVM'; 'junk', 'unexpected word'; '-c -1', 'C <= 0'};
  for i = 1:size(bad, 1)
    text = evalc('message = expect_error(@() train(y, X, bad{i, 1}), bad{i, 2});');
    if i >= 2 && i <= 4  % option errors (-s 99 is check_parameter's: no usage)
      assert(~isempty(strfind(text, 'Usage: model = train(')), '%s: no usage printed', bad{i, 1});
    end
  end
  expect_error(@() train(y, X, 5), 'options must be a string');
  expect_error(@() predict(y, X, plain, '-b x'), '-b needs an integer');
  expect_error(@() predict(y, X, plain, '-z 1'), 'unknown option');
  expect_error(@() predict(y, X, good, '-d gpu -m 0'), '-m needs');

  % dense X where sparse is required; labels that do not fit
  expect_error(@() train(y, full(X)), 'Training_instance_matrix must be sparse');
  expect_error(@() predict(y, full(X), plain), 'Testing_instance_matrix must be sparse');
  expect_error(@() predict(y, full(X), good), 'Testing_instance_matrix must be sparse');
  expect_error(@() ikmap(good, full(X)), 'must be sparse');
  expect_error(@() libsvmwrite(fullfile(here, 'dense'), y, full(X)), 'Instance_matrix must be sparse');
  assert(~exist(fullfile(here, 'dense'), 'file'));
  expect_error(@() train(y(1:10), X), 'Length of label vector does not match # of instances');
  expect_error(@() predict(y(1:10), X, plain), 'Length of label vector does not match # of instances');
  expect_error(@() train([y y], X), 'should be a vector');
  expect_error(@() train(int32(y), X), 'label vector and instance matrix must be double');
  expect_error(@() train(sparse(y), X), 'label vector should not be in sparse format');
  expect_error(@() train(y, logical(X)), 'label vector and instance matrix must be double');
  expect_error(@() train(y, X * 1i), 'real sparse double');
  expect_error(@() train(y), 'wrong number of arguments');
  expect_error(@() train(zeros(0, 1), sparse(0, 5)), 'no instances');

  % files
  expect_error(@() libsvmread(fullfile(here, 'missing')), 'can''t open input file');
  broken = fullfile(here, 'broken');
  fid = fopen(broken, 'w');
  fprintf(fid, '1 1:0.5 2:1\n-1 3:1 2:4\n');  % indices must ascend
  fclose(fid);
  expect_error(@() libsvmread(broken), 'Wrong input format at line 2');
  fid = fopen(broken, 'w');
  fprintf(fid, '1 1:0.5\n\n-1 3:1\n');
  fclose(fid);
  expect_error(@() libsvmread(broken), 'Empty line at line 2');
  fid = fopen(broken, 'w');
  fprintf(fid, '1 1:0.5\nx 3:1\n');
  fclose(fid);
  expect_error(@() libsvmread(broken), 'Wrong input format at line 2');
  expect_error(@() savemodel(good, here), 'can''t save model');  % a directory
  missing_dir = fullfile(here, 'no', 'such', 'dir', 'plain.model');
  message = expect_error(@() savemodel(plain, missing_dir), 'can''t save model to file');
  assert(numel(strfind(message, 'can''t save model')) == 1, 'said twice: %s', message);
  expect_error(@() loadmodel(fullfile(here, 'missing.model')), 'can''t');
  % a pair whose .ik is damaged or missing is refused by loadmodel (as by predict)
  file = fullfile(here, 'pair.model');
  savemodel(good, file);
  assert(isequal(loadmodel(file), good));
  fid = fopen([file '.ik'], 'r+');
  fseek(fid, 300, 'bof');
  fwrite(fid, 255, 'uint8');
  fclose(fid);
  expect_error(@() loadmodel(file), 'can''t load model');
  delete([file '.ik']);
  expect_error(@() loadmodel(file), 'can''t load model');

  % a second output of train only with -C -k (the search's table): upstream's usage otherwise
  for options = {'-q', '-v 5 -q', '-C -q'}
    raised = '';
    try
      evalc('[first, second] = train(y, X, options{1});');
    catch err
      raised = err.message;
    end
    assert(~isempty(strfind(raised, 'only given by -C with -k')), '%s: "%s"', options{1}, raised);
  end

  % after all that, Octave and the functions work as before
  assert(isequal(predict(y, X, good, '-q'), expected));
end
