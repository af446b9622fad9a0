"""subprocess for the sandbox, which cannot start programs: the constants and exception types code refers to,
and every way to start a process raising OSError that says so."""

import errno as _errno

__all__ = ["Popen", "PIPE", "STDOUT", "call", "check_call", "getstatusoutput", "getoutput", "check_output", "run",
           "CalledProcessError", "DEVNULL", "SubprocessError", "TimeoutExpired", "CompletedProcess"]

PIPE, STDOUT, DEVNULL = -1, -2, -3


class SubprocessError(Exception):
    pass


class CalledProcessError(SubprocessError):
    def __init__(self, returncode, cmd, output=None, stderr=None):
        self.returncode, self.cmd, self.output, self.stderr = returncode, cmd, output, stderr

    stdout = property(lambda self: self.output)

    def __str__(self):
        return f"Command '{self.cmd}' returned non-zero exit status {self.returncode}."


class TimeoutExpired(SubprocessError):
    def __init__(self, cmd, timeout, output=None, stderr=None):
        self.cmd, self.timeout, self.output, self.stderr = cmd, timeout, output, stderr

    def __str__(self):
        return f"Command '{self.cmd}' timed out after {self.timeout} seconds"


class CompletedProcess:
    def __init__(self, args, returncode, stdout=None, stderr=None):
        self.args, self.returncode, self.stdout, self.stderr = args, returncode, stdout, stderr


def _refuse(*args, **kwargs):
    raise OSError(_errno.EACCES, "the sandbox cannot start programs: subprocesses are not available")


class Popen:
    def __init__(self, *args, **kwargs):
        _refuse()


call = check_call = check_output = run = getoutput = getstatusoutput = _refuse
