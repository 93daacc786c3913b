/* The part of <stdio.h> an allocator's heap check uses, from heaplab's small C library.
 * What it prints goes to heaplab's log of the module, and the last line into the
 * message about a failed call. Formats: %d %i %u %x %X %o %p %s %c %%, with flags - 0 +
 * space #, a width and precision (or *), and the length modifiers hh h l ll z t j. */
#ifndef HEAPLAB_STDIO_H
#define HEAPLAB_STDIO_H

#include <stdarg.h>
#include <stddef.h>

typedef struct hl_file FILE;
extern FILE *const stdout;
extern FILE *const stderr;

int printf(const char *restrict fmt, ...) __attribute__((format(printf, 1, 2)));
int fprintf(FILE *restrict f, const char *restrict fmt, ...)
    __attribute__((format(printf, 2, 3)));
int vprintf(const char *restrict fmt, va_list ap);
int vfprintf(FILE *restrict f, const char *restrict fmt, va_list ap);
int snprintf(char *restrict buf, size_t n, const char *restrict fmt, ...)
    __attribute__((format(printf, 3, 4)));
int vsnprintf(char *restrict buf, size_t n, const char *restrict fmt, va_list ap);
int sprintf(char *restrict buf, const char *restrict fmt, ...)
    __attribute__((format(printf, 2, 3)));
int puts(const char *s);
int putchar(int c);
int fputs(const char *restrict s, FILE *restrict f);
int fflush(FILE *f);

#endif
