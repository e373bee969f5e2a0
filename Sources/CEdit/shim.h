// SPDX-License-Identifier: Apache-2.0
#include <stdio.h>
#include <editline/readline.h>

/* Accessors for libedit's global variables (Swift 6 refuses direct use of mutable C globals). */
static inline void slicehouse_set_completion_function(rl_completion_func_t *f) { rl_attempted_completion_function = f; }
static inline void slicehouse_set_completion_over(int over) { rl_attempted_completion_over = over; }
static inline const char *slicehouse_line_buffer(void) { return rl_line_buffer; }
