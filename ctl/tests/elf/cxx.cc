// SPDX-License-Identifier: GPL-2.0
/*
 * A C++ program for the demangling tests (tests/test-demangle.c): a method
 * of a class in a namespace, templates, a function of an anonymous
 * namespace, an extern "C" function, and an extern "C" function whose name
 * looks mangled but is not validly so.  noipa: no clones, no inlining.
 */
#define KPT_FN __attribute__((noipa))

volatile int kpt_sink;

namespace kpt {

class Cls {
public:
	KPT_FN int method(int x);
};

KPT_FN int Cls::method(int x)
{
	return x * 3 + kpt_sink;
}

template <typename T> KPT_FN T twice(T v)
{
	return v + v + kpt_sink;
}

template <typename A, typename B> KPT_FN A pick(A a, B b)
{
	return b > 0 ? a : a + 1;
}

namespace {
KPT_FN int hidden(int x)
{
	return x - kpt_sink;
}
}

KPT_FN int use_hidden(int x)
{
	return hidden(x);
}

} // namespace kpt

namespace {
KPT_FN int kpt_top_hidden(int x)
{
	return kpt::use_hidden(x) + 1;
}
}

extern "C" KPT_FN int kpt_plain_c(int x)
{
	return x + 7 + kpt_sink;
}

extern "C" KPT_FN int _Zkpt_bogus(int x)
{
	return x + 9 + kpt_sink;
}

int main()
{
	kpt::Cls c;

	return c.method(1) + kpt::twice<int>(2) + kpt::pick<int, long>(3, 4L) +
	       kpt_top_hidden(5) + kpt_plain_c(6) + _Zkpt_bogus(7);
}
