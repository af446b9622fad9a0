# os.access answers existence and readability/writability; directories are searchable (X_OK).
import os

with open("f.txt", "w", encoding="utf-8") as f:
    f.write("x")
os.mkdir("d")
print(os.F_OK, os.R_OK, os.W_OK, os.X_OK)
for path in ("f.txt", "d", "missing", "d/missing", "f.txt/x", "."):
    print(path, os.access(path, os.F_OK), os.access(path, os.R_OK), os.access(path, os.W_OK),
          os.access(path, os.R_OK | os.W_OK))
print(os.access("d", os.X_OK), os.access(".", os.X_OK), os.access("f.txt", os.X_OK))
