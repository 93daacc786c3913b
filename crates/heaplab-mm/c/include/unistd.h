/* <unistd.h>, for the types mm.c files take from it; an allocator module grows its
 * heap with mem_sbrk (memlib.h), not sbrk. */
#ifndef HEAPLAB_UNISTD_H
#define HEAPLAB_UNISTD_H

#include <stddef.h>
#include <stdint.h>

typedef long ssize_t;

#endif
