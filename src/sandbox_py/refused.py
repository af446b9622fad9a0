"""The standard-library modules the sandbox refuses, each with the reason and what to use instead: importing
one raises ImportError saying so, never a bare "No module named" (a model repairs its code from the words).
A finder first on ``sys.meta_path`` (installed once, in the zygote) answers for them. Modules that other
standard modules import (``urllib.request`` by ``xml.sax``, ``http.client`` by ``urllib.request``) are not
refused: they import, and any connection fails in the ``socket`` stand-in, saying there is no network."""

_NETWORK = "it reaches the network, and the sandbox has none; get the data through a tool the host registers"
_PROCESSES = (
    "it starts processes, and the sandbox runs in one; use concurrent.futures.ThreadPoolExecutor or asyncio"
)
_NATIVE = "it loads native code or maps memory, which the sandbox does not allow; use pure Python"
_HOST = "it reaches the host system (users, terminals, resources), which the sandbox does not see"

REFUSED = {
    "http.server": _NETWORK,
    "ftplib": _NETWORK,
    "smtplib": _NETWORK,
    "imaplib": _NETWORK,
    "poplib": _NETWORK,
    "ssl": _NETWORK,
    "socketserver": _NETWORK,
    "xmlrpc": _NETWORK,
    "webbrowser": _NETWORK,
    "multiprocessing": _PROCESSES,
    "concurrent.futures.process": _PROCESSES,
    "ctypes": _NATIVE,
    "_ctypes": _NATIVE,
    "mmap": _NATIVE,
    "pwd": _HOST,
    "grp": _HOST,
    "resource": _HOST,
    "fcntl": _HOST,
    "termios": _HOST,
    "tty": _HOST,
    "pty": _HOST,
    "curses": _HOST,
    "readline": _HOST,
    "syslog": _HOST,
}


class RefusedFinder:
    """Raises ImportError for a refused module (or one inside a refused package) before any other finder
    looks for it."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        refused = REFUSED.get(name)
        if refused is None and "." in name:
            package = name
            while refused is None and "." in package:
                package = package.rpartition(".")[0]
                refused = REFUSED.get(package)
        if refused is not None:
            raise ImportError(f"module '{name}' is not available in the sandbox: {refused}", name=name)
        return None

    @staticmethod
    def invalidate_caches():
        pass
