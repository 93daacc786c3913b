/* mm.h: malloc lab's allocator interface. */
#ifndef HEAPLAB_MM_H
#define HEAPLAB_MM_H

#include <stdio.h>

extern int mm_init(void);
extern void *mm_malloc(size_t size);
extern void mm_free(void *ptr);
extern void *mm_realloc(void *ptr, size_t size);

/* Malloc lab's students name themselves in a team_t; heaplab keeps it so that mm.c
 * builds unchanged, and reads nothing from it. */
typedef struct {
    char *teamname;
    char *name1;
    char *id1;
    char *name2;
    char *id2;
} team_t;

extern team_t team;

#endif
