/*
 * blosc2/codecs-registry.h: ids of the codecs registered by Blosc.
 */
#ifndef BLOSC_BLOSC2_CODECS_REGISTRY_H
#define BLOSC_BLOSC2_CODECS_REGISTRY_H

#ifdef __cplusplus
extern "C" {
#endif

enum {
  BLOSC_CODEC_NDLZ = 32,
  BLOSC_CODEC_ZFP_FIXED_ACCURACY = 33,
  BLOSC_CODEC_ZFP_FIXED_PRECISION = 34,
  BLOSC_CODEC_ZFP_FIXED_RATE = 35,
  BLOSC_CODEC_OPENHTJ2K = 36,
  BLOSC_CODEC_GROK = 37,
  BLOSC_CODEC_OPENZL = 38,
};

/* Internal to the library (not exported). */
void register_codecs(void);

/* Symbol names of the encoder and decoder of a dynamically loaded codec. */
typedef struct {
  char *encoder;
  char *decoder;
} codec_info;

#ifdef __cplusplus
}
#endif

#endif /* BLOSC_BLOSC2_CODECS_REGISTRY_H */
