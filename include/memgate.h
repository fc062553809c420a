#ifndef MEMGATE_H
#define MEMGATE_H
/* memgate: everything, as libgit2's git2.h does. */
#include "memgate/buf.h"
#include "memgate/check.h"
#include "memgate/decision.h"
#include "memgate/digest.h"
#include "memgate/error.h"
#include "memgate/git.h"
#include "memgate/insight.h"
#include "memgate/manifest.h"
#include "memgate/policy.h"
#include "memgate/record.h"
#include "memgate/report.h"
#include "memgate/text.h"
#endif
