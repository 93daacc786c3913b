/* <sys/types.h>, for the types mm.c files take from it. */
#ifndef HEAPLAB_SYS_TYPES_H
#define HEAPLAB_SYS_TYPES_H

#include <stddef.h>
#include <stdint.h>

typedef long ssize_t;

#endif
