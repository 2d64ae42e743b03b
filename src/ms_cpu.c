/* ms_cpu.c: CPU row scheduling. */
#include "ms_cpu.h"

int ms__cpu_init(ms_resource *res) {
    res->row_fn = ms__ref_row;
    return MS_OK;
}

void ms__cpu_destroy(ms_resource *res) { (void)res; }

static void ms__cpu_row(ms_resource *res, const ms_cpu_rows *rows, int32_t i, ms_scratch *s) {
    ms_row_job job;
    ms_row_out out;
    ms__fill_job(res, res->row_slot[i], rows->step, &job);
    job.row_k = (uint32_t)res->row_k[i];
    job.V = rows->V;
    job.dtype = rows->batch->dtype;
    job.row = (const char *)rows->batch->logits + (size_t)i * (size_t)rows->stride * rows->elem_size;
    res->row_fn(&job, s, true, &out);
    rows->tokens[i] = out.token;
    if (rows->row_status) rows->row_status[i] = out.status;
}

void ms__cpu_sample_rows(ms_resource *res, const ms_cpu_rows *rows) {
    for (int32_t i = 0; i < rows->batch->n_rows; i++) ms__cpu_row(res, rows, i, &res->scratch[0]);
}
