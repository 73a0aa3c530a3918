/* Kernel types by name, HTA's get_kernel_type (core/analyses/hta_kind.c). */
#ifndef T2P_HTA_KIND_H
#define T2P_HTA_KIND_H

#include <stddef.h>

#include "core/analyses/hta_types.h"

/* "COMPUTATION", "COMMUNICATION", "MEMORY", "OTHER". */
const char *hta_ktype_name(enum hta_ktype k);
/* The type of a kernel's name (bytes with a length), by HTA's patterns. */
enum hta_ktype hta_kernel_type(const char *name, size_t len);

/* "COMPUTATION overlapping COMMUNICATION": the row's name into buf. */
const char *hta_typerow_name(unsigned mask, char *buf, size_t size);

#endif
