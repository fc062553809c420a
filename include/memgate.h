#ifndef MEMGATE_H
#define MEMGATE_H
/*
 * memgate: every public header, as libgit2's git2.h does.  These are what a
 * user of libmemgate.a needs: run a check (check.h; the plain data it
 * returns, result.h), render its result (text, record, github, summary, junit), write
 * the output files (output.h) and print untrusted text safely (escape.h).
 * Private headers sit beside their sources in plugin/.
 * tests/e2e/t_layout.sh checks that this list is complete.
 */
#include "memgate/approve.h"
#include "memgate/approved.h"
#include "memgate/buf.h"
#include "memgate/check.h"
#include "memgate/codequality.h"
#include "memgate/comment.h"
#include "memgate/decision.h"
#include "memgate/error.h"
#include "memgate/escape.h"
#include "memgate/github.h"
#include "memgate/history.h"
#include "memgate/insight.h"
#include "memgate/limits.h"
#include "memgate/junit.h"
#include "memgate/manifest.h"
#include "memgate/noise.h"
#include "memgate/output.h"
#include "memgate/plan.h"
#include "memgate/policy.h"
#include "memgate/record.h"
#include "memgate/report.h"
#include "memgate/result.h"
#include "memgate/sarif.h"
#include "memgate/signers.h"
#include "memgate/sshsig.h"
#include "memgate/summary.h"
#include "memgate/text.h"
#include "memgate/version.h"
#endif
