#pragma once
// Errors at the engine's boundaries (bad files, bad input, bad requests) are thrown as
// glance::Error with a message that names the file/tensor/field and says what to do.
// Front ends (glance-cli, the GUI worker) catch them; nothing below aborts on bad input.
// Programmer errors (broken invariants) use assert.
//
// glance::Error itself lives in kernels/kernel_error.h, the bottom layer, so that kernels and
// core throw the same type and every front end catches both with one handler
// (docs/style.md "Errors").
#include "kernels/kernel_error.h"
