# re.Pattern methods with negative pos/endpos (counted as 0, as CPython does) and positions past the end.
import re

pattern = re.compile(r"a")
print(pattern.search("xa", -5).span(), pattern.match("ab", -1).span(), pattern.fullmatch("a", -3, 9).span())
print(pattern.findall("aaa", 0, -1), pattern.findall("aaa", -2), pattern.findall("aaa", pos=1, endpos=-7))
print([m.span() for m in pattern.finditer("aXa", -1)], pattern.search("xa", pos=-1, endpos=10).span())
print(pattern.search("xa", 5), pattern.match("a", 0, -1))
print(re.compile(r"\d+").findall("a1b22c333", 2, 6))
