#ifndef MEMGATE_VERSION_H
#define MEMGATE_VERSION_H
/*
 * memgate's version: printed by `memgate version` and written into every
 * decision record ("memgate_version").  A fixed string, so that the same
 * version writes byte-identical records for the same inputs.
 */
#define MG_VERSION "0.1.0"

#endif
