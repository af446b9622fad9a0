# gc: collection on demand, switching it off and on, the counters.
import gc

print(isinstance(gc.collect(), int), gc.collect(0) >= 0)
print(gc.isenabled())
gc.disable()
print(gc.isenabled())
gc.enable()
print(gc.isenabled())
print(len(gc.get_threshold()), len(gc.get_count()))
print(gc.is_tracked([]), gc.is_tracked(1))
