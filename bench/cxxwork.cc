// cxxwork.cc -- the C++ workload: std::map and std::string heavy, as a
// typical service's index and request handling is.
//
// usage: cxxwork [rounds]   (default 400000)
//
// Each round builds a key and a value with std::string concatenation and
// std::to_string, inserts them into a std::map<std::string,
// std::vector<std::string>>, counts words in a std::unordered_map, and
// erases an older key, so that the map stays around 50,000 entries and
// nodes, strings and vectors churn through operator new and delete.  Prints
// a checksum so that nothing is optimised away.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

struct Event {
	std::string name;
	std::vector<int> fields;
	std::shared_ptr<Event> parent;
};

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? std::atol(argv[1]) : 400000;
	std::map<std::string, std::vector<std::string>> index;
	std::unordered_map<std::string, long> words;
	std::shared_ptr<Event> last;
	unsigned long x = 88172645463325252UL, sum = 0;

	for (long i = 0; i < rounds; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		std::string key = "user/" + std::to_string(x % 100000) + "/session";
		std::vector<std::string> &v = index[key];
		std::string value = "GET /item/" + std::to_string(i) + "?q=" + std::string(x % 200, 'a');
		v.push_back(value);
		words[value.substr(0, 12 + x % 8)]++;
		auto e = std::make_shared<Event>();
		e->name = key;
		e->fields.assign(x % 16, (int)i);
		if (i % 64)
			e->parent = last;
		last = e;
		if (index.size() > 50000)
			index.erase(index.begin());
		if (words.size() > 20000)
			words.clear();
		sum += v.size() + e->fields.size();
	}
	std::printf("%lu %zu %zu\n", sum, index.size(), words.size());
	return 0;
}
