/*
 * runtime.cc -- the C and C++ runtimes' one-time and cache allocations,
 * none of them a leak: iostreams and std::locale(""), setlocale, an
 * exception thrown and caught (libstdc++'s emergency pool), getpwuid and
 * getaddrinfo (glibc's name-service modules and caches), dlopen and
 * dlclose, strerror, stdio buffers, a thread that exited (its TLS).
 * valgrind: nothing definitely or indirectly lost.
 */
#include <clocale>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <iostream>
#include <locale>
#include <netdb.h>
#include <pthread.h>
#include <pwd.h>
#include <stdexcept>
#include <sys/socket.h>
#include <unistd.h>

static __thread char tls_buf[64];

static void *worker(void *)
{
	strcpy(tls_buf, "thread");
	return nullptr;
}

int main()
{
	std::locale loc("");
	setlocale(LC_ALL, "");
	std::cout << "runtime: " << loc.name().size() << std::endl;
	try {
		throw std::runtime_error("caught");
	} catch (const std::exception &e) {
		std::cout << e.what() << std::endl;
	}
	struct passwd *pw = getpwuid(getuid());
	struct addrinfo *ai = nullptr;
	if (getaddrinfo("localhost", "80", nullptr, &ai) == 0)
		freeaddrinfo(ai);
	void *m = dlopen("libm.so.6", RTLD_NOW);
	if (m)
		dlclose(m);
	pthread_t t;
	pthread_create(&t, nullptr, worker, nullptr);
	pthread_join(t, nullptr);
	printf("%s %s\n", pw ? "user" : "nouser", strerror(2));
	return 0;
}
