# Pure path manipulation: name/stem/suffix(es)/parent(s)/parts, with_* methods, joining, relative_to, match.
from pathlib import Path, PurePosixPath

p = Path("archive/2024/report.tar.gz")
print(p.name, p.stem, p.suffix, p.suffixes, p.parent, list(map(str, p.parents)), p.parts)
print(p.with_suffix(".zip"), p.with_suffix(""), p.with_name("other.txt"), p.with_stem("final"))
print(Path("a/b") / "c" / Path("d.txt"), Path("a").joinpath("b", "c"), "x" / Path("y"), Path("a") / "/abs")
print(p.relative_to("archive"), p.is_relative_to("archive"), p.is_relative_to("other"))
try:
    p.relative_to("other")
except ValueError as e:
    print(type(e).__name__)
print(p.match("*.gz"), p.match("2024/*.gz"), p.match("archive/*.gz"), Path("A.TXT").match("*.txt"))
print(Path("a//b/./c/"), Path("."), Path(""), Path("./a"), Path("a/.."), Path("/x/y").parts)
print(Path("a/b").as_posix(), Path("a/b").is_absolute(), Path("/a").is_absolute(), Path("/a").root, Path("a").anchor)
print(repr(Path(".bashrc").suffix), Path(".bashrc").stem, Path("noext").with_suffix(".py"), Path("a.b.c").stem)
for bad in (lambda: p.with_suffix("zip"), lambda: Path("").with_name("x"), lambda: p.with_name("")):
    try:
        bad()
    except ValueError as e:
        print(type(e).__name__)
print(Path("a/b") == PurePosixPath("a/b"), Path("a/b") == Path("a/b/"), Path("a") < Path("b"), hash(Path("a")) == hash(Path("a")))
print(str(Path("x") / "y"), repr(Path("x/y")), Path("x/y").__fspath__(), bytes(Path("x")), type(Path("x")).__name__)
print(sorted([Path("b"), Path("a/c"), Path("a")]), Path("a/b/c").parents[1], len(Path("a/b/c").parents))
