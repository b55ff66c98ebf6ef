/* The plain C reference of the velocity–stress scheme (serial or OpenMP), in
 * float or double: the test oracle and the CPU baseline. */
#include "seismic/internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REAL float
#define FN(name) ref_f_##name
#include "seismic/ref_update.h"
#undef REAL
#undef FN
#define REAL double
#define FN(name) ref_d_##name
#include "seismic/ref_update.h"
#undef REAL
#undef FN

struct scl_seis_ref {
    seis_setup s;
    scl_seis_model model;  /* the caller's model (not owned) */
    int fp64, threads;
    long done;
    void *mem;             /* one block for every array */
    ref_f_fields ff;
    ref_d_fields fd;
    float *traces;
    void *prev;            /* previous stresses (6 fields) for the energy, or NULL */
};

/* Carve fields, materials, memory variables and profiles out of one block. */
#define CARVE(T, F, s, cursor)                                                                  \
    do {                                                                                        \
        T *p_ = (T *)(cursor);                                                                  \
        for (int f_ = 0; f_ < F_COUNT; f_++, p_ += (s)->g.n)                                     \
            (F)->f[f_] = p_;                                                                    \
        (F)->rho = p_; p_ += (s)->g.n;                                                          \
        (F)->lam = p_; p_ += (s)->g.n;                                                          \
        (F)->mu = p_; p_ += (s)->g.n;                                                           \
        for (int d_ = 0; d_ < 3; d_++) {                                                        \
            (F)->psi[d_] = p_; p_ += 6 * seis_cpml_slab(s, d_);                                  \
            const int n_ = (s)->dir[d_].n;                                                      \
            (F)->pa_c[d_] = p_; p_ += n_; (F)->pb_c[d_] = p_; p_ += n_;                          \
            (F)->pik_c[d_] = p_; p_ += n_; (F)->pa_h[d_] = p_; p_ += n_;                         \
            (F)->pb_h[d_] = p_; p_ += n_; (F)->pik_h[d_] = p_; p_ += n_;                         \
            for (int q_ = 0; q_ < n_; q_++) {                                                   \
                (F)->pa_c[d_][q_] = (T)(s)->dir[d_].a_c[q_];                                    \
                (F)->pb_c[d_][q_] = (T)(s)->dir[d_].b_c[q_];                                    \
                (F)->pik_c[d_][q_] = (T)(s)->dir[d_].ik_c[q_];                                  \
                (F)->pa_h[d_][q_] = (T)(s)->dir[d_].a_h[q_];                                    \
                (F)->pb_h[d_][q_] = (T)(s)->dir[d_].b_h[q_];                                    \
                (F)->pik_h[d_][q_] = (T)(s)->dir[d_].ik_h[q_];                                  \
            }                                                                                   \
        }                                                                                       \
        for (long c_ = 0; c_ < (s)->g.n; c_++) {                                                \
            (F)->rho[c_] = (T)(s)->rho[c_];                                                     \
            (F)->lam[c_] = (T)(s)->lam[c_];                                                     \
            (F)->mu[c_] = (T)(s)->mu[c_];                                                       \
        }                                                                                       \
        (F)->c1 = (T)(s)->c1;                                                                   \
        (F)->c2 = (T)(s)->c2;                                                                   \
        (F)->dt = (T)(s)->dt;                                                                   \
    } while (0)

scl_status scl_seis_ref_create(const scl_seis_model *m, const scl_seis_config *c, int threads,
                               scl_seis_ref **out, char *err, size_t errlen)
{
    *out = NULL;
    scl_status st = scl_seis_check(m, c, NULL, 0, err, errlen);
    if (st != SCL_OK)
        return st;
    scl_seis_ref *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "scl_seis_ref_create: out of host memory");
        return SCL_ERR_MEMORY;
    }
    if ((st = seis_setup_create(m, c, &r->s, err, errlen)) != SCL_OK) {
        free(r);
        return st;
    }
    r->fp64 = c->fp64;
    r->threads = threads;
    r->model = *m;
    const seis_setup *s = &r->s;
    size_t elems = (size_t)(F_COUNT + 3) * (size_t)s->g.n;
    for (int d = 0; d < 3; d++)
        elems += 6 * (size_t)seis_cpml_slab(s, d) + 6 * (size_t)s->dir[d].n;
    const size_t esz = c->fp64 ? sizeof(double) : sizeof(float);
    r->mem = calloc(elems, esz);
    r->traces = calloc((size_t)(s->nrec > 0 ? s->nrec : 1) * SCL_SEIS_NCOMP * (size_t)s->steps + 1,
                       sizeof(float));
    if (!r->mem || !r->traces) {
        scl_seis_ref_free(r);
        snprintf(err, errlen, "scl_seis_ref_create: out of host memory for %zu values", elems);
        return SCL_ERR_MEMORY;
    }
    if (c->fp64)
        CARVE(double, &r->fd, s, r->mem);
    else
        CARVE(float, &r->ff, s, r->mem);
    *out = r;
    return SCL_OK;
}

void scl_seis_ref_free(scl_seis_ref *r)
{
    if (!r)
        return;
    seis_setup_free(&r->s);
    free(r->mem);
    free(r->traces);
    free(r->prev);
    free(r);
}

void scl_seis_ref_enable_energy(scl_seis_ref *r)
{
    if (!r->prev)
        r->prev = calloc(6 * (size_t)r->s.g.n, sizeof(double));
}

void scl_seis_ref_step(scl_seis_ref *r, long steps)
{
    for (long q = 0; q < steps && r->done < r->s.steps; q++, r->done++) {
        const long n = r->done;
        if (r->prev) {
            double *p = r->prev;
            for (int f = 0; f < 6; f++)
                for (long c = 0; c < r->s.g.n; c++)
                    p[(size_t)f * (size_t)r->s.g.n + (size_t)c] =
                        r->fp64 ? r->fd.f[F_SXX + f][c] : r->ff.f[F_SXX + f][c];
        }
        if (r->fp64) {
            ref_d_pass(&r->s, &r->fd, 0, r->threads);
            ref_d_inject(&r->s, &r->fd, 0, n);
            ref_d_pass(&r->s, &r->fd, 1, r->threads);
            ref_d_inject(&r->s, &r->fd, 1, n);
            ref_d_record(&r->s, &r->fd, r->traces, n);
        } else {
            ref_f_pass(&r->s, &r->ff, 0, r->threads);
            ref_f_inject(&r->s, &r->ff, 0, n);
            ref_f_pass(&r->s, &r->ff, 1, r->threads);
            ref_f_inject(&r->s, &r->ff, 1, n);
            ref_f_record(&r->s, &r->ff, r->traces, n);
        }
    }
}

long scl_seis_ref_steps_done(const scl_seis_ref *r)
{
    return r->done;
}

void scl_seis_ref_traces(const scl_seis_ref *r, float *traces)
{
    memcpy(traces, r->traces,
           (size_t)r->s.nrec * SCL_SEIS_NCOMP * (size_t)r->s.steps * sizeof(float));
}

void scl_seis_ref_field(const scl_seis_ref *r, int field, double *out)
{
    if (r->fp64)
        seis_unpad_double(&r->s.g, r->fd.f[field], out);
    else
        seis_unpad_float(&r->s.g, r->ff.f[field], out);
}

double scl_seis_ref_energy(const scl_seis_ref *r)
{
    const seis_layout *g = &r->s.g;
    if (!r->prev || r->done < 1)
        return NAN;
    const size_t n = (size_t)g->nx * g->ny * g->nz;
    double *mem = malloc(15 * n * sizeof(double));
    if (!mem)
        return NAN;
    const double *now[F_COUNT], *prev[6];
    for (int f = 0; f < F_COUNT; f++) {
        scl_seis_ref_field(r, f, mem + (size_t)f * n);
        now[f] = mem + (size_t)f * n;
    }
    for (int f = 0; f < 6; f++) {
        seis_unpad_double(g, (const double *)r->prev + (size_t)f * (size_t)g->n, mem + (9 + (size_t)f) * n);
        prev[f] = mem + (9 + (size_t)f) * n;
    }
    const double e = scl_seis_energy(&r->model, now, prev);
    free(mem);
    return e;
}
