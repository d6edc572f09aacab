// A cgo program: C allocates on its own threads (pthreads started from C)
// and on many Go threads (goroutines locked to OS threads, plus plain
// goroutines), and Go allocates C memory with C.malloc/C.CString.
// Prints a deterministic checksum.
package main

/*
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static void *churn(void *arg)
{
	long n = (long)arg, sum = 0;
	for (long i = 0; i < n; i++) {
		size_t sz = 16 + (i * 37) % 4000;
		char *p = malloc(sz);
		memset(p, (int)i, sz);
		sum += p[sz - 1];
		p = realloc(p, sz * 2);
		free(p);
	}
	return (void *)sum;
}

static long c_threads(int nthreads, long n)
{
	pthread_t t[64];
	long total = 0;
	for (int i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, churn, (void *)n);
	for (int i = 0; i < nthreads; i++) {
		void *r;
		pthread_join(t[i], &r);
		total += (long)r;
	}
	return total;
}

static long c_churn(long n) { return (long)churn((void *)n); }
*/
import "C"

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"
)

func main() {
	runtime.GOMAXPROCS(4)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var total int64
	// 32 goroutines locked to their own OS threads, each churning in C.
	for g := 0; g < 32; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			runtime.LockOSThread()
			r := int64(C.c_churn(C.long(20000)))
			s := C.CString(fmt.Sprintf("goroutine %d", g))
			r += int64(C.strlen(s))
			C.free(unsafe.Pointer(s))
			mu.Lock()
			total += r
			mu.Unlock()
		}(g)
	}
	// 200 unlocked goroutines calling C.malloc/C.free.
	for g := 0; g < 200; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				p := C.malloc(C.size_t(64 + i))
				C.free(p)
			}
		}(g)
	}
	// C's own threads, from C.
	total += int64(C.c_threads(8, 20000))
	wg.Wait()
	fmt.Println("total", total)
}
