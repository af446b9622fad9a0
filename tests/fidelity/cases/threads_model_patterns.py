# Threads as model code starts them: fan-out with join, a worker pool with a lock, producers and consumers over a
# queue, events, conditions, barriers, semaphores, timers, thread-local data, an exception in a thread, and threads
# left running at the end (run before the program ends, as CPython's would).
import threading, queue, time

results = []
lock = threading.Lock()


def work(i):
    with lock:
        results.append(i * i)


threads = [threading.Thread(target=work, args=(i,)) for i in range(5)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(sorted(results), threads[0].name, threads[0].is_alive())

q = queue.Queue()
out = []


def consumer():
    while True:
        item = q.get()
        if item is None:
            q.task_done()
            break
        out.append(item * 2)
        q.task_done()


cs = [threading.Thread(target=consumer) for _ in range(2)]
for c in cs:
    c.start()
for i in range(6):
    q.put(i)
for _ in cs:
    q.put(None)
q.join()
for c in cs:
    c.join()
print(sorted(out))

ev = threading.Event()
seen = []


def waiter():
    ev.wait()
    seen.append("go")


w = threading.Thread(target=waiter)
w.start()
ev.set()
w.join()
print(seen)


def producer(q2):
    for i in range(3):
        q2.put(i)
    q2.put(None)


q2 = queue.Queue()
got = []


def cons2():
    while (x := q2.get()) is not None:
        got.append(x)


c2 = threading.Thread(target=cons2)
p2 = threading.Thread(target=producer, args=(q2,))
c2.start()
p2.start()
c2.join()
p2.join()
print(got)

fired = []
t = threading.Timer(0.01, lambda: fired.append(1))
t.start()
t.join()
print(fired)
b = threading.Barrier(3)
order = []


def party(n):
    b.wait()
    order.append(n)


ps = [threading.Thread(target=party, args=(n,)) for n in range(3)]
for p in ps:
    p.start()
for p in ps:
    p.join()
print(sorted(order))
threading.excepthook = lambda args: print("hook:", args.exc_type.__name__, args.exc_value, args.thread.name)


def boom():
    raise ValueError("bad")


bt = threading.Thread(target=boom, name="B")
bt.start()
bt.join()
print("after boom")
sem = threading.Semaphore(2)
active = [0]
peak = [0]


def s(i):
    with sem:
        active[0] += 1
        peak[0] = max(peak[0], active[0])
        time.sleep(0.001)
        active[0] -= 1


ss = [threading.Thread(target=s, args=(i,)) for i in range(4)]
for x in ss:
    x.start()
for x in ss:
    x.join()
print("peak", peak[0] <= 2)
loc = threading.local()
loc.v = 1


def readloc():
    out.append(hasattr(loc, "v"))


lt = threading.Thread(target=readloc)
lt.start()
lt.join()
print(out[-1], loc.v)
cond = threading.Condition()
items = []


def cw():
    with cond:
        cond.wait_for(lambda: items)
        items.append("seen")


ct = threading.Thread(target=cw)
ct.start()
with cond:
    items.append(1)
    cond.notify_all()
ct.join()
print(items)
bg = []
threading.Thread(target=lambda: bg.append("ran")).start()
print(threading.current_thread().name, threading.main_thread() is threading.current_thread())
named = threading.Thread(target=print, args=("named",), name="N")
print(repr(named).split(",")[0])
named.start()
named.join()
print(named.is_alive())
