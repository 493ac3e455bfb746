// Functions whose plain C names are also Itanium type codes (f: float, d: double, Si:
// std::istream), beside one C++ function, for symbolize_test.cpp.
extern "C" {
__attribute__((noinline, used)) int f(int x) { return x * 3 + 1; }
__attribute__((noinline, used)) int d(int x) { return x * 5 + 2; }
__attribute__((noinline, used)) int Si(int x) { return x * 7 + 3; }
}
namespace hpcsens_fixture {
__attribute__((noinline, used)) int twice(int x) { return x * 2; }
}  // namespace hpcsens_fixture
