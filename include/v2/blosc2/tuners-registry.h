/*
 * blosc2/tuners-registry.h: ids of the tuners registered by Blosc.
 */
#ifndef BLOSC_BLOSC2_TUNERS_REGISTRY_H
#define BLOSC_BLOSC2_TUNERS_REGISTRY_H

#ifdef __cplusplus
extern "C" {
#endif

enum {
  BLOSC_BTUNE = 32,
};

/* Internal to the library (not exported). */
void register_tuners(void);

/* Symbol names of the functions of a dynamically loaded tuner. */
typedef struct {
  char *init;
  char *next_blocksize;
  char *next_cparams;
  char *update;
  char *free;
} tuner_info;

#ifdef __cplusplus
}
#endif

#endif /* BLOSC_BLOSC2_TUNERS_REGISTRY_H */
