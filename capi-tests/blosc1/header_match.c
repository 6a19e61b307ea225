/* Compiles only when include/blosc1/blosc.h declares what the system's
   c-blosc 1.21 blosc.h declares: every macro is redefined with the same
   tokens (a different value is a -Werror warning) and every prototype is
   redeclared (a different one is a "conflicting types" error).
   Built with -DOUR_BLOSC_H='"<path of our blosc.h>"'. */
#include <blosc.h>

#undef BLOSC_H
#undef BLOSC_EXPORT
#include OUR_BLOSC_H

int main(void) { return 0; }
