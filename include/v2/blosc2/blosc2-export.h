/*
 * blosc2/blosc2-export.h: symbol visibility macros of the Blosc2 C API.
 *
 * BLOSC_EXPORT marks the functions of the API. It is empty unless
 * BLOSC_SHARED_LIBRARY is defined (clients never need to define it).
 */
#ifndef BLOSC_BLOSC2_BLOSC2_EXPORT_H
#define BLOSC_BLOSC2_BLOSC2_EXPORT_H

#if defined(BLOSC_SHARED_LIBRARY)
  #if defined(_MSC_VER)
    #define BLOSC_EXPORT __declspec(dllexport)
  #elif (defined(__GNUC__) && __GNUC__ >= 4) || defined(__clang__)
    #if defined(_WIN32) || defined(__CYGWIN__) || defined(__MINGW32__)
      #define BLOSC_EXPORT __attribute__((dllexport))
    #else
      #define BLOSC_EXPORT __attribute__((visibility("default")))
    #endif
  #else
    #error "BLOSC_EXPORT: unknown compiler"
  #endif
#else
  #define BLOSC_EXPORT
#endif

#if (defined(__GNUC__) || defined(__clang__)) && !defined(__MINGW32__)
  #define BLOSC_NO_EXPORT __attribute__((visibility("hidden")))
#else
  #define BLOSC_NO_EXPORT
#endif

#if defined(BLOSC_TESTING)
  #undef BLOSC_NO_EXPORT
  #define BLOSC_NO_EXPORT BLOSC_EXPORT
#endif

#endif /* BLOSC_BLOSC2_BLOSC2_EXPORT_H */
