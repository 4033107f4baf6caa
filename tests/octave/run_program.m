function out = run_program(varargin)
% out = run_program(fmt, ...): runs the shell command sprintf(fmt, ...)
% and returns its standard output; an exit status other than 0 is an error.
  cmd = sprintf(varargin{:});
  [status, out] = system(cmd);
  if status ~= 0
    error('command failed (exit %d): %s\n%s', status, cmd, out);
  end
end
