/* ms_cpu.h: the CPU backends' row scheduling (the worker pool lives in ms_cpu.c). */
#ifndef MS_CPU_H
#define MS_CPU_H

#include "ms_internal.h"

/* One ms_sample call's rows, as the CPU backends see them (shapes already checked). */
typedef struct ms_cpu_rows {
    const ms_step *step;
    const ms_batch *batch;
    int32_t V;
    int64_t stride;     /* elements between rows */
    size_t elem_size;   /* bytes per logit */
    int32_t *tokens;
    int32_t *row_status; /* may be NULL */
} ms_cpu_rows;

/* Sets up the CPU backend of res (row function, workers); 0 or a negative error in res->err. */
int ms__cpu_init(ms_resource *res);
void ms__cpu_destroy(ms_resource *res);
/* Runs res->row_fn over every row; rows are independent, so any schedule draws the same tokens. */
void ms__cpu_sample_rows(ms_resource *res, const ms_cpu_rows *rows);

/* Default IEEE environment around computation (restores the caller's); see ms_resource.c. */
unsigned ms__fpenv_enter(void);
void ms__fpenv_leave(unsigned saved);

#endif
