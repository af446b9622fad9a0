"""decimal: CPython's pure-Python implementation (`_pydecimal`, as CPython itself falls back to), with the
errors of CPython's C implementation, which is what CPython runs and models have seen: a trapped signal is
raised with the list of the conditions that raised it (`InvalidOperation: [<class
'decimal.ConversionSyntax'>]`), where `_pydecimal` gives a sentence (`Invalid literal for Decimal: '$4'`)."""

import sys

import _pydecimal

_raise_in_words = _pydecimal.Context._raise_error


def _raise_error(self, condition, explanation=None, *args):
    try:
        return _raise_in_words(self, condition, explanation, *args)
    except _pydecimal.DecimalException as error:
        if type(error).__module__ != "decimal":
            raise
        raise type(error)([condition]) from None


_pydecimal.Context._raise_error = _raise_error
sys.modules[__name__] = _pydecimal
