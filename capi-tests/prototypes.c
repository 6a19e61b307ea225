/* Redeclare every function of the 3.3.5 API with its exact 3.3.5
 * prototype after including the headers: any incompatible declaration in
 * include/ is a compile error. */
#include "blosc2.h"
#include "b2nd.h"
#include "blosc2/blosc2-stdio.h"
#include "prototypes.h"

#include <stdio.h>

int main(void) {
  printf("ok\n");
  return 0;
}
