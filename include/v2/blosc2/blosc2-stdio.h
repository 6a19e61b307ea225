/*
 * blosc2/blosc2-stdio.h: the stdio and memory-mapped file I/O backends.
 *
 * Their structs (blosc2_stdio_file, blosc2_stdio_mmap),
 * default objects and functions are declared in blosc2.h, generated from
 * the library sources; this header is kept for code that includes it.
 */
#ifndef BLOSC_BLOSC2_BLOSC2_STDIO_H
#define BLOSC_BLOSC2_BLOSC2_STDIO_H

#include "blosc2-export.h"

#if defined(_MSC_VER)
#include <io.h>
#else
#include <unistd.h>
#endif
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../blosc2.h"

#endif /* BLOSC_BLOSC2_BLOSC2_STDIO_H */
