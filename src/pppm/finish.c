/* The ends of a pppm object's two ways of working: the finish of a step,
 * which waits for the brick interpolation (driver.c) or hands over to the
 * whole-grid solve (solve.c), and the free of both parts. They sit above
 * both files, so that the driver below knows nothing of the solve built on
 * it. */
#include "pppm_internal.h"

scl_status scl_pppm_fieldforce_finish(scl_pppm *p, double *f)
{
    if (!p) return SCL_ERR_ARGUMENT;
    if (!p->pending) return SCL_OK;
    if (p->solve_pending) return scl_pppm_solve_finish(p, f, NULL, NULL);
    p->pending = 0;
    scl_status st = SCL_OK;
    if (p->f_ready) st = scl_event_wait(p->ctx, p->f_ready);
    else if (p->interp_ev) st = scl_event_wait(p->ctx, p->interp_ev);
    pppm_add_seconds(p, p->interp_ev, &p->stats.t_interp);
    pppm_add_seconds(p, p->f_ready, &p->stats.t_download);
    p->interp_ev = p->f_ready = NULL;
    if (st) return st;
    return pppm_add_forces(p, f);
}

void scl_pppm_free(scl_pppm *p)
{
    if (!p) return;
    /* queued reads write into our host buffers, queued writes read from them */
    scl_finish(p->ctx);
    pppm_solver_free(p);
    pppm_driver_free(p);
}
