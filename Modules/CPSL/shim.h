// libpsl, the Public Suffix List library, for CourierCookies: which domains are public suffixes ("com",
// "co.uk", "github.io"), so a server cannot set a cookie for all of them (a "supercookie"). libcurl already
// loads libpsl for its own cookie engine, so a curl consumer loads nothing new. Only CourierCookies imports
// this module, with `internal import`.
#ifndef COURIER_CPSL_SHIM_H
#define COURIER_CPSL_SHIM_H

#include <libpsl.h>

/// Every kind of rule (ICANN and private), the implicit `*` rule included: an unknown top-level domain is a
/// public suffix, as browsers treat it.
static inline int cpsl_type_any(void) { return PSL_TYPE_ANY; }

#endif
