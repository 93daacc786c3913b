/* heaplab's small C library for allocator modules: the functions an mm.c calls, over
 * the two WASI calls heaplab provides (fd_write for what it prints, proc_exit for exit
 * and abort). `heaplab mm build` compiles it beside mm.c; nothing here allocates. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "assert.h"
#include "stdio.h"
#include "stdlib.h"
#include "string.h"

struct hl_iovec {
    const void *buf;
    size_t len;
};

__attribute__((import_module("wasi_snapshot_preview1"), import_name("fd_write"))) int
hl_fd_write(int fd, const struct hl_iovec *iovs, size_t count, size_t *written);
__attribute__((import_module("wasi_snapshot_preview1"), import_name("proc_exit")))
_Noreturn void hl_proc_exit(int status);

struct hl_file {
    int fd;
};
static struct hl_file hl_stdout = {1}, hl_stderr = {2};
FILE *const stdout = &hl_stdout;
FILE *const stderr = &hl_stderr;

void *memcpy(void *restrict dst, const void *restrict src, size_t n) {
    unsigned char *d = dst;
    const unsigned char *s = src;
    while (n--) *d++ = *s++;
    return dst;
}

void *memmove(void *dst, const void *src, size_t n) {
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (d < s) {
        while (n--) *d++ = *s++;
    } else {
        while (n--) d[n] = s[n];
    }
    return dst;
}

void *memset(void *dst, int c, size_t n) {
    unsigned char *d = dst;
    while (n--) *d++ = (unsigned char)c;
    return dst;
}

int memcmp(const void *a, const void *b, size_t n) {
    const unsigned char *x = a, *y = b;
    for (; n; n--, x++, y++)
        if (*x != *y) return *x - *y;
    return 0;
}

size_t strlen(const char *s) {
    const char *p = s;
    while (*p) p++;
    return (size_t)(p - s);
}

int strcmp(const char *a, const char *b) {
    while (*a && *a == *b) a++, b++;
    return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n) {
    for (; n; n--, a++, b++) {
        if (*a != *b || !*a) return (unsigned char)*a - (unsigned char)*b;
    }
    return 0;
}

char *strcpy(char *restrict dst, const char *restrict src) {
    char *d = dst;
    while ((*d++ = *src++)) {
    }
    return dst;
}

int abs(int x) { return x < 0 ? -x : x; }
long labs(long x) { return x < 0 ? -x : x; }

int atoi(const char *s) {
    int sign = 1, v = 0;
    while (*s == ' ' || *s == '\t' || *s == '\n') s++;
    if (*s == '-' || *s == '+') sign = *s++ == '-' ? -1 : 1;
    while (*s >= '0' && *s <= '9') v = v * 10 + (*s++ - '0');
    return sign * v;
}

_Noreturn void exit(int status) { hl_proc_exit(status); }

_Noreturn void abort(void) {
    static const char msg[] = "abort() called\n";
    struct hl_iovec iov = {msg, sizeof msg - 1};
    size_t n;
    hl_fd_write(2, &iov, 1, &n);
    hl_proc_exit(134);
}

/* Formatted output, into a buffer or through a sink that flushes to a file. */
struct sink {
    char *buf;   /* where characters go */
    size_t cap;  /* room in buf */
    size_t len;  /* characters written to buf */
    size_t total;
    int fd;      /* flush buf here when full; -1 for a string */
};

static void flush(struct sink *s) {
    if (s->fd >= 0 && s->len) {
        struct hl_iovec iov = {s->buf, s->len};
        size_t n;
        hl_fd_write(s->fd, &iov, 1, &n);
        s->len = 0;
    }
}

static void put(struct sink *s, char c) {
    s->total++;
    if (s->len + 1 < s->cap || (s->fd >= 0 && s->len < s->cap)) {
        s->buf[s->len++] = c;
        if (s->fd >= 0 && s->len == s->cap) flush(s);
    }
}

static void pad(struct sink *s, char c, int n) {
    while (n-- > 0) put(s, c);
}

static void format(struct sink *s, const char *fmt, va_list ap) {
    for (; *fmt; fmt++) {
        if (*fmt != '%') {
            put(s, *fmt);
            continue;
        }
        int left = 0, zero = 0, plus = 0, space = 0, alt = 0;
        for (;; fmt++) {
            if (fmt[1] == '-') left = 1;
            else if (fmt[1] == '0') zero = 1;
            else if (fmt[1] == '+') plus = 1;
            else if (fmt[1] == ' ') space = 1;
            else if (fmt[1] == '#') alt = 1;
            else break;
        }
        fmt++;
        int width = 0, prec = -1;
        if (*fmt == '*') {
            width = va_arg(ap, int);
            if (width < 0) left = 1, width = -width;
            fmt++;
        } else {
            while (*fmt >= '0' && *fmt <= '9') width = width * 10 + (*fmt++ - '0');
        }
        if (*fmt == '.') {
            fmt++;
            prec = 0;
            if (*fmt == '*') {
                prec = va_arg(ap, int);
                fmt++;
            } else {
                while (*fmt >= '0' && *fmt <= '9') prec = prec * 10 + (*fmt++ - '0');
            }
        }
        int longs = 0; /* 0 int, 1 long, 2 long long, 3 size_t/ptrdiff_t/intmax_t */
        while (*fmt == 'l' || *fmt == 'h' || *fmt == 'z' || *fmt == 't' || *fmt == 'j') {
            if (*fmt == 'l') longs++;
            else if (*fmt == 'z' || *fmt == 't') longs = 3;
            else if (*fmt == 'j') longs = 2;
            fmt++;
        }
        char c = *fmt;
        if (!c) break;
        if (c == '%') {
            put(s, '%');
            continue;
        }
        if (c == 'c') {
            if (!left) pad(s, ' ', width - 1);
            put(s, (char)va_arg(ap, int));
            if (left) pad(s, ' ', width - 1);
            continue;
        }
        if (c == 's') {
            const char *str = va_arg(ap, const char *);
            if (!str) str = "(null)";
            int n = 0;
            while (str[n] && (prec < 0 || n < prec)) n++;
            if (!left) pad(s, ' ', width - n);
            for (int i = 0; i < n; i++) put(s, str[i]);
            if (left) pad(s, ' ', width - n);
            continue;
        }
        unsigned long long v;
        int neg = 0, base = 10, upper = 0;
        if (c == 'd' || c == 'i') {
            long long x = longs == 2 ? va_arg(ap, long long)
                          : longs == 1 ? va_arg(ap, long)
                          : longs == 3 ? (long long)va_arg(ap, ptrdiff_t)
                                       : va_arg(ap, int);
            neg = x < 0;
            v = neg ? 0ULL - (unsigned long long)x : (unsigned long long)x;
        } else if (c == 'u' || c == 'x' || c == 'X' || c == 'o' || c == 'p') {
            if (c == 'p') {
                v = (uintptr_t)va_arg(ap, void *);
                alt = 1;
            } else {
                v = longs == 2 ? va_arg(ap, unsigned long long)
                    : longs == 1 ? va_arg(ap, unsigned long)
                    : longs == 3 ? va_arg(ap, size_t)
                                 : va_arg(ap, unsigned int);
            }
            base = c == 'o' ? 8 : c == 'u' ? 10 : 16;
            upper = c == 'X';
        } else {
            /* An unknown conversion is printed as written. */
            put(s, '%');
            put(s, c);
            continue;
        }
        char digits[24];
        int n = 0;
        do {
            int d = (int)(v % base);
            digits[n++] = (char)(d < 10 ? '0' + d : (upper ? 'A' : 'a') + d - 10);
            v /= base;
        } while (v);
        int zeros = prec > n ? prec - n : 0;
        const char *prefix = neg ? "-" : plus && base == 10 ? "+" : space && base == 10 ? " "
                             : alt && base == 16 ? (upper ? "0X" : "0x") : alt && base == 8 ? "0" : "";
        int plen = (int)strlen(prefix);
        int body = plen + zeros + n;
        if (!left && !(zero && prec < 0)) pad(s, ' ', width - body);
        for (int i = 0; i < plen; i++) put(s, prefix[i]);
        if (!left && zero && prec < 0) pad(s, '0', width - body);
        pad(s, '0', zeros);
        while (n) put(s, digits[--n]);
        if (left) pad(s, ' ', width - body);
    }
}

int vsnprintf(char *restrict buf, size_t n, const char *restrict fmt, va_list ap) {
    struct sink s = {buf, n, 0, 0, -1};
    format(&s, fmt, ap);
    if (n) buf[s.len < n ? s.len : n - 1] = 0;
    return (int)s.total;
}

int snprintf(char *restrict buf, size_t n, const char *restrict fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int r = vsnprintf(buf, n, fmt, ap);
    va_end(ap);
    return r;
}

int sprintf(char *restrict buf, const char *restrict fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int r = vsnprintf(buf, (size_t)-1 / 2, fmt, ap);
    va_end(ap);
    return r;
}

int vfprintf(FILE *restrict f, const char *restrict fmt, va_list ap) {
    char buf[256];
    struct sink s = {buf, sizeof buf, 0, 0, f->fd};
    format(&s, fmt, ap);
    flush(&s);
    return (int)s.total;
}

int vprintf(const char *restrict fmt, va_list ap) { return vfprintf(stdout, fmt, ap); }

int printf(const char *restrict fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int r = vfprintf(stdout, fmt, ap);
    va_end(ap);
    return r;
}

int fprintf(FILE *restrict f, const char *restrict fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int r = vfprintf(f, fmt, ap);
    va_end(ap);
    return r;
}

int fputs(const char *restrict str, FILE *restrict f) {
    struct hl_iovec iov = {str, strlen(str)};
    size_t n;
    return hl_fd_write(f->fd, &iov, 1, &n) ? -1 : 0;
}

int puts(const char *str) {
    struct hl_iovec iov[2] = {{str, strlen(str)}, {"\n", 1}};
    size_t n;
    return hl_fd_write(1, iov, 2, &n) ? -1 : 0;
}

int putchar(int c) {
    char ch = (char)c;
    struct hl_iovec iov = {&ch, 1};
    size_t n;
    return hl_fd_write(1, &iov, 1, &n) ? -1 : c;
}

int fflush(FILE *f) {
    (void)f;
    return 0;
}

_Noreturn void __assert_fail(const char *expr, const char *file, int line, const char *func) {
    fprintf(stderr, "%s:%d: %s: assertion `%s' failed\n", file, line, func, expr);
    hl_proc_exit(134);
}
