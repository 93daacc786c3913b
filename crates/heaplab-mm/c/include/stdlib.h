/* The part of <stdlib.h> an allocator uses, from heaplab's small C library. An
 * allocator module has no malloc of its own to call: it is the malloc. exit and abort
 * end the call heaplab made, which is then reported as failed. */
#ifndef HEAPLAB_STDLIB_H
#define HEAPLAB_STDLIB_H

#include <stddef.h>

#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1

_Noreturn void exit(int status);
_Noreturn void abort(void);
int abs(int x);
long labs(long x);
int atoi(const char *s);

#endif
