% make.m - builds the mex files under MATLAB or Octave, as upstream's
% make.m does, but on the project's C libraries: build those first with
% `make BLAS=builtin NVCC= lib` in the repository root (then the archives
% need nothing else; with OpenBLAS or CUDA add their libraries to
% extra_libs). On Octave, `make octave` in the repository root is the
% tested way; this file has NOT been run on MATLAB (see README).
function make()
extra_libs = {};  % e.g. {'-lopenblas'} when the library was built with OpenBLAS
names = {'train', 'predict', 'libsvmread', 'libsvmwrite', 'ikmap', 'savemodel', 'loadmodel'};
shared = {'lik_mex_convert.c', 'lik_mex_options.c', 'lik_mex_print.c'};
include = {'-I../liblinear', '-I../ik', '-I../common'};
libs = [{'../ik/libliblinear-ik.a', '../liblinear/liblinear.a'}, extra_libs, {'-lgomp', '-lm'}];
try
	for i = 1:numel(names)
		% This part is for OCTAVE
		if(exist('OCTAVE_VERSION', 'builtin'))
			mex(include{:}, [names{i} '.c'], shared{:}, libs{:});
		% This part is for MATLAB
		else
			mex('CFLAGS=$CFLAGS -std=c11 -D_POSIX_C_SOURCE=200809L -fopenmp', '-largeArrayDims', ...
				include{:}, [names{i} '.c'], shared{:}, libs{:});
		end
	end
catch err
	fprintf('Error: %s failed (line %d)\n', err.stack(1).file, err.stack(1).line);
	disp(err.message);
	fprintf('=> Please check README for detailed instructions.\n');
end
