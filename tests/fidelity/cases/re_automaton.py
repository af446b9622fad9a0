# Regular expressions searched by the automaton first (src/sandbox/library/re/): every method, flag and kind of
# subject gives CPython's results, empty matches and group references included.
import re

text = "2026-11-03 ERROR INC-04211 user=ada disk full\n2026-11-04 info INC-00007 user=bob ok\nßtraße İstanbul ſ K\n"
print(re.findall(r"INC-\d{5}", text), re.findall(r"(\d{4})-(\d\d)", text), re.findall(r"user=(\w+)", text))
print([m.groupdict() for m in re.finditer(r"^(?P<day>\S+) (?P<level>[A-Za-z]+)", text, re.M)])
print(re.sub(r"\d{4}-\d{2}-\d{2}", "DATE", text))
print(re.sub(r"(\w+)=(\w+)", r"\2<-\1", text), re.subn(r"(?P<n>\d+)", r"[\g<n>]", "a1b22c", count=2))
print(re.sub(r"\d+", lambda m: str(int(m.group()) * 2), "a1b22c333"), re.sub(r"x", lambda m: None, "axbx"))
print(re.split(r"\s+", " a  b\tc\n"), re.split(r"(,)(\s*)", "a, b,c"), re.split(r"\W+", "a.b", maxsplit=1))
print(re.split(r"x*", "axbc"), re.sub(r"x*", "-", "abxd"), re.findall(r"\b", "ab cd"), re.findall(r"", "ab"))
print([m.span() for m in re.finditer(r"x*", "axxb")], [m.span() for m in re.finditer(r"|a", "aa")])
print(re.findall(r"(?i)strasse|straße", "STRASSE Straße STRAẞE"), re.findall(r"(?i)k", "kK\u212a"))
print(re.findall(r"(?i)[a-z]+", "İstanbul ſ ß"), re.findall(r"(?i)ı|i", "Iıİi"), re.findall(r"\w+", "héllo wörld ١٢"))
print(re.findall(r"\bfoo\b", "foo éfoo foo_ foo"), re.findall(r"\Bo\B", "foo bob"), re.findall(r"(?a)\w+", "héllo"))
print(re.search(r"o$", "foo\n").span(), re.search(r"o\Z", "foo\n"), re.findall(r"^\w|\w$", "ab\ncd\n", re.M))
print(re.findall(r"(?<=a)b", "ab cb ab"), re.findall(r"\w+(?=,)", "a, bc, d"), re.findall(r"(?<!x)y", "xy zy"))
print(re.findall(r"(a)|b", "ab"), re.findall(r"(a)(b)?", "aab"), re.findall(r"(?s).", "a\nb"), re.findall(r".", "a\nb"))
print(re.findall(r"(\w)\1", "aabbcd"), re.sub(r"(\w)\1", r"<\1>", "aabbcd"), re.findall(r"(?>a+)b", "aaab"))
print(re.findall(r"a{2,3}?", "aaaaa"), re.findall(r"a++b", "aab"), re.findall(r"[^\W\d_]+", "ab_1cd"))
pattern = re.compile(r"\d+")
print(pattern.search("ab12cd34", 3).span(), pattern.search("ab12cd34", 5, 7), pattern.findall("1 22 333", 1, 6))
print(pattern.match("12ab", 1).span(), pattern.match("ab12", 1), pattern.fullmatch("a123", 1).span())
print(pattern.fullmatch("a123b", 1, 4).span(), pattern.fullmatch("a123b", 1), list(pattern.finditer("1a22", 1)))
print(re.fullmatch(r"(?:(?:z|a?)+?)Q", "zzz"), re.fullmatch(r"(?:z|a?)+?", "zza").span())
print(re.findall(r"\d", "١٢3"), re.findall(r"\s+", "a\u2028b\u00a0c"), re.findall(r"[^a]", "abé"))
print(re.search("x", "a" * 1000 + "x").span(), re.search("y", "é" * 1000 + "y" + "é").span())
words = re.compile(r"\b\w+ing\b|\d+")
print(words.findall("singing 42 bring ringing9 thing"), words.sub("#", "doing 7"), words.split("a going b"))
class Text(str):
    pass
print(re.findall(r"b", Text("abcb")), re.search(r"b", Text("ab")).span(), re.findall(rb"\d", b"a1b2"))
print(re.search(r"a", "ba", re.I).span(), re.search("A", "ba", flags=re.I).span(), re.findall("a", "A", re.IGNORECASE))
re.purge()
print(re.findall(r"\d", "a1"), re.split(r",", "a,b", maxsplit=1), re.sub(r"a", "b", "aa", count=1))
class Callable(str):
    def __call__(self, match):
        return "X"
print(re.sub("a", Callable("b"), "aaa"))
try:
    re.sub("a", lambda m: 1, "a")
except TypeError as e:
    print(e)
try:
    re.sub("a", lambda m: 1, "ba")
except TypeError as e:
    print(e)
