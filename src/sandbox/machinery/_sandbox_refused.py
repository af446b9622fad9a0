"""The standard-library modules the sandbox refuses, each with the reason and what to use instead (the table in
src/sandbox/vm/stdlib.rs says which and why): importing one raises ModuleNotFoundError (an ImportError) saying so,
never a bare
"No module named" (a model repairs its code from the words).
A finder first on ``sys.meta_path`` (installed once, in the zygote) answers for them. Modules that other
standard modules import (``urllib.request`` by ``xml.sax``, ``http.client`` by ``urllib.request``) are not
refused: they import, and any connection fails in the ``socket`` stand-in, saying there is no network. For that
``https`` too, ``http.client`` gets the ``HTTPSConnection`` it leaves out without ``ssl`` (so ``urllib.request``
has its ``HTTPSHandler``): an ``https://`` URL fails with the same words as ``http://``, not "unknown url type"."""

import sys

# Module name -> the reason, from the table of the standard library (src/sandbox/vm/stdlib.rs), set by the sandbox
# before any code runs.
REFUSED = {}


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
            # ModuleNotFoundError (an ImportError): code that probes for an optional module catches either.
            raise ModuleNotFoundError(f"module '{name}' is not available in the sandbox: {refused}", name=name)
        completion = COMPLETED.get(name)
        if completion is not None:
            for finder in sys.meta_path:
                if finder is RefusedFinder or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(name, path, target)
                if spec is not None and spec.loader is not None:
                    spec.loader = _Completing(spec.loader, completion)
                    return spec
        return None

    @staticmethod
    def invalidate_caches():
        pass


class _Completing:
    """A module's own loader, then the part it leaves out in the sandbox."""

    def __init__(self, loader, completion):
        self.loader = loader
        self.completion = completion

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        self.completion(module)


def _https_connection(client):
    """``http.client.HTTPSConnection`` as CPython has it with ``ssl``: its connection goes through the ``socket``
    stand-in, which says there is no network."""

    class HTTPSConnection(client.HTTPConnection):
        default_port = client.HTTPS_PORT

        def __init__(self, host, port=None, *, timeout=client.socket._GLOBAL_DEFAULT_TIMEOUT, source_address=None,
                     context=None, blocksize=8192):
            super().__init__(host, port, timeout, source_address, blocksize=blocksize)
            self._context = context

    HTTPSConnection.__module__ = client.__name__
    client.HTTPSConnection = HTTPSConnection
    # What `urllib.request.HTTPSHandler` makes its default context with (ssl's): no context, no connection.
    client._create_https_context = lambda http_version: None
    if "HTTPSConnection" not in client.__all__:
        client.__all__.append("HTTPSConnection")


# Module name -> what completes it once it has run.
COMPLETED = {"http.client": _https_connection}
