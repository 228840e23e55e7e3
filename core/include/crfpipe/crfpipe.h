/* crfpipe — umbrella header for applications and plugins. */
#ifndef CRFPIPE_H
#define CRFPIPE_H
#include "crfpipe/status.h"
#include "crfpipe/params.h"
#include "crfpipe/document.h"
#include "crfpipe/plugin.h"
#include "crfpipe/host.h"
#include "crfpipe/corpus.h"
#include "crfpipe/pipeline.h"
#include "crfpipe/tokseq.h"
#include "crfpipe/chunks.h"
#include "crfpipe/alloc.h"
#include "crfpipe/outfile.h"
#include "crfpipe/crf.h"
#include "crfpipe/team.h"
#include "crfpipe/trainset.h"
#include "crfpipe/dist.h"
#include "crfpipe/observe.h"
#endif
