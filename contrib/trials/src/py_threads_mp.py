# python3: 16 threads allocating, then multiprocessing with each start
# method (fork, spawn, forkserver) and a concurrent.futures pool; fork from
# a thread while others allocate.  Deterministic output.
import multiprocessing as mp, threading, os, sys, concurrent.futures as cf

def work(n):
    acc = 0
    for i in range(n):
        d = {j: str(j) * (j % 7) for j in range(50)}
        acc += len(d[i % 50])
    return acc

def churner(stop):
    while not stop.is_set():
        [bytearray(100) for _ in range(100)]

def main():
    out = []
    ts = [threading.Thread(target=lambda k=k: out.append(work(2000 + k))) for k in range(16)]
    for t in ts: t.start()
    for t in ts: t.join()
    print("threads", sum(out))
    for method in ("fork", "spawn", "forkserver"):
        ctx = mp.get_context(method)
        with ctx.Pool(3) as p:
            print(method, sum(p.map(work, [500] * 12)))
    with cf.ProcessPoolExecutor(2) as ex:
        print("futures", sum(ex.map(work, [300] * 6)))
    # fork while 4 threads allocate
    stop = threading.Event()
    bg = [threading.Thread(target=churner, args=(stop,)) for _ in range(4)]
    for t in bg: t.start()
    kids = []
    for i in range(20):
        pid = os.fork()
        if pid == 0:
            x = work(100)
            os._exit(x % 100)
        kids.append(pid)
    st = sum(os.waitstatus_to_exitcode(os.waitpid(k, 0)[1]) for k in kids)
    stop.set()
    for t in bg: t.join()
    print("forked", st)

if __name__ == "__main__":
    main()
