"""The standard-library modules the sandbox refuses, each with the reason and what to use instead (the table in
src/sandbox/stdlib.rs says which and why): importing one raises ModuleNotFoundError (an ImportError) saying so,
never a bare
"No module named" (a model repairs its code from the words).
A finder first on ``sys.meta_path`` (installed once, in the zygote) answers for them. Modules that other
standard modules import (``urllib.request`` by ``xml.sax``, ``http.client`` by ``urllib.request``) are not
refused: they import, and any connection fails in the ``socket`` stand-in, saying there is no network."""

# Module name -> the reason, from the table of the standard library (src/sandbox/stdlib.rs), set by the sandbox
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
        return None

    @staticmethod
    def invalidate_caches():
        pass
