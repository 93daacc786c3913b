/* assert, reported to heaplab as a failed call with the expression and its line. */
#ifndef HEAPLAB_ASSERT_H
#define HEAPLAB_ASSERT_H

_Noreturn void __assert_fail(const char *expr, const char *file, int line, const char *func);

#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e) ((e) ? (void)0 : __assert_fail(#e, __FILE__, __LINE__, __func__))
#endif

#endif
