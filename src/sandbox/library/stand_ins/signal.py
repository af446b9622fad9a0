"""signal for the sandbox: signals belong to the session process (its limits use them), so sandbox code can
neither install handlers nor send signals; the names code compares against are here, and asking for either
raises NotImplementedError that says so."""

SIG_DFL, SIG_IGN = 0, 1
SIGHUP, SIGINT, SIGQUIT, SIGABRT, SIGKILL, SIGUSR1, SIGSEGV, SIGUSR2 = 1, 2, 3, 6, 9, 10, 11, 12
SIGPIPE, SIGALRM, SIGTERM, SIGCHLD = 13, 14, 15, 17
NSIG = 65


def _refuse(*args, **kwargs):
    raise NotImplementedError("the sandbox does not deliver signals: handlers, alarms and kill are not available")


def default_int_handler(signalnum, frame):
    raise KeyboardInterrupt


def getsignal(signalnum):
    return SIG_DFL


def set_wakeup_fd(fd, *, warn_on_full_buffer=True):
    return -1


signal = alarm = pause = kill = raise_signal = setitimer = pthread_kill = siginterrupt = _refuse
