/*
 * blosc2/blosc2-common.h: portability macros shared by the Blosc2 headers.
 */
#ifndef BLOSC_BLOSC2_BLOSC2_COMMON_H
#define BLOSC_BLOSC2_BLOSC2_COMMON_H

#include "blosc2-export.h"

#include <stdint.h>
#include <string.h>

#ifdef __GNUC__
#define BLOSC_GCC_VERSION (__GNUC__ * 100 + __GNUC_MINOR__)
#define BLOSC_UNUSED_VAR __attribute__((unused))
#else
#define BLOSC_UNUSED_VAR
#endif

#define BLOSC_UNUSED_PARAM(x) ((void)(x))

/* Old Visual C compilers spell C99's inline differently. */
#if defined(_MSC_VER) && !defined(__cplusplus)
  #define inline __inline
#endif

/* Visual C++ targeting x64 (or x86 with SSE2) has SSE2 but does not say so. */
#if !defined(__SSE2__) && defined(_MSC_VER) && \
    (defined(_M_X64) || (defined(_M_IX86) && _M_IX86_FP >= 2))
  #define __SSE2__
#endif

/* BLOSC_STRICT_ALIGN is defined on targets without cheap unaligned access. */
#if !defined(BLOSC_STRICT_ALIGN)
#define BLOSC_STRICT_ALIGN
#if defined(__i386__) || defined(__386) || defined(__amd64) || defined(__x86_64__)
#undef BLOSC_STRICT_ALIGN
#elif defined(__i486__) || defined(__i586__) || defined(__i686__)
#undef BLOSC_STRICT_ALIGN
#elif defined(_M_IX86) || defined(_M_X64) || defined(_X86_) || defined(__I86__)
#undef BLOSC_STRICT_ALIGN
#elif defined(__ARM_FEATURE_UNALIGNED) && (defined(__ARM64_ARCH_8__) || defined(__aarch64__))
#undef BLOSC_STRICT_ALIGN
#elif defined(_ARCH_PPC) || defined(__PPC__)
#undef BLOSC_STRICT_ALIGN
#endif
#endif

#if defined(__SSE2__)
  #include <emmintrin.h>
#endif
#if defined(__AVX2__) || defined(__AVX512F__) || defined(__AVX512BW__)
  #include <immintrin.h>
#endif

#endif /* BLOSC_BLOSC2_BLOSC2_COMMON_H */
