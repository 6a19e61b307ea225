/*
 * blosc2/filters-registry.h: ids of the filters registered by Blosc.
 */
#ifndef BLOSC_BLOSC2_FILTERS_REGISTRY_H
#define BLOSC_BLOSC2_FILTERS_REGISTRY_H

#ifdef __cplusplus
extern "C" {
#endif

enum {
  BLOSC_FILTER_NDCELL = 32,
  BLOSC_FILTER_NDMEAN = 33,
  BLOSC_FILTER_BYTEDELTA_BUGGY = 34,
  BLOSC_FILTER_BYTEDELTA = 35,
  BLOSC_FILTER_INT_TRUNC = 36,
};

/* Internal to the library (not exported). */
void register_filters(void);

/* Symbol names of the forward and backward functions of a loaded filter. */
typedef struct {
  char *forward;
  char *backward;
} filter_info;

#ifdef __cplusplus
}
#endif

#endif /* BLOSC_BLOSC2_FILTERS_REGISTRY_H */
