# Path.cwd/absolute/resolve are anchored at the current directory (printed as /case by the harness).
import os
from pathlib import Path

Path("a/b").mkdir(parents=True)
cwd = Path.cwd()
print(cwd, cwd == Path(os.getcwd()), cwd.is_absolute())
print(Path("a/b").absolute().relative_to(cwd), Path("a/b/../x").resolve().relative_to(cwd))
print(Path("a/./b").resolve() == cwd / "a" / "b", Path(".").resolve() == cwd, Path().absolute() == cwd)
print(Path("missing/x").resolve().relative_to(cwd))
try:
    Path("missing/x").resolve(strict=True)
except FileNotFoundError as e:
    print(type(e).__name__, e.errno)
os.chdir("a")
print(Path.cwd().relative_to(cwd), Path("b").resolve().relative_to(cwd), Path("..").resolve() == cwd)
print(Path("b").absolute())
os.chdir(Path("b"))
print(Path.cwd().relative_to(cwd), Path.cwd().name, Path.cwd().parent.name)
os.chdir(cwd)
print(Path.cwd() == cwd, Path("a").resolve().is_dir())
