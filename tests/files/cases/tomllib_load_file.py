# tomllib reads a TOML file opened in binary mode; errors are TOMLDecodeError with the line and column.
import tomllib

with open("config.toml", "w", encoding="utf-8") as f:
    f.write('title = "files"\n[server]\nport = 8080\nhosts = ["a", "b"]\n[server.limits]\nrate = 2.5\nenabled = true\n')
with open("config.toml", "rb") as f:
    config = tomllib.load(f)
print(sorted(config), config["server"]["port"], config["server"]["hosts"], config["server"]["limits"])
try:
    with open("config.toml", "r", encoding="utf-8") as f:
        tomllib.load(f)
except TypeError as e:
    print(type(e).__name__)
with open("bad.toml", "w") as f:
    f.write("a = 1\nb = \n")
try:
    with open("bad.toml", "rb") as f:
        tomllib.load(f)
except tomllib.TOMLDecodeError as e:
    print(type(e).__name__, str(e))
