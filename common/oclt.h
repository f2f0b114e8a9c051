/* Everything a chapter needs from common/, one include. */
#ifndef OCLT_H
#define OCLT_H

#include "check.h"
#include "cli.h"
#include "device.h"
#include "errors.h"
#include "os.h"
#include "program.h"
#include "report.h"
#include "timing.h"

#endif
