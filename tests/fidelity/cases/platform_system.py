# What code checks to know where it runs: platform.system() and machine(), os.uname()'s kind of system and
# machine (the sandbox had no os.uname: platform answered 'linux' and '').
import os
import platform

print(platform.system(), platform.machine(), platform.uname().system, platform.uname().machine)
info = os.uname()
print(info.sysname, info.machine, info[0] == info.sysname, len(info), type(info).__name__, isinstance(info, tuple))
