/* Which waves a source radiates: an explosive source in a homogeneous full
 * space gives P only (S energy <= 1e-3 of P, measured as sum vs^2 |curl v|^2
 * over sum vp^2 (div v)^2 with the scheme's own staggered differences, away
 * from the CPML, before the front reaches it); a point force in the same
 * model radiates S (ratio > 0.1), which shows the measure can fail. */
#include "seis_test.h"

static double s_over_p(scl_context *ctx, scl_seis_source_kind kind, int order, uint64_t *rng)
{
    const double vp = 3000, vs = 1500 + 200 * test_uniform(rng), rho = 2500, h = 2;
    const int n = 44, pml = 8, s0 = n / 2;
    const double f = vs / (2.5 * 6 * h);
    scl_seis_model m;
    seis_homogeneous(&m, n, n, n, h, vp, vs, rho);
    scl_seis_source src = {.kind = kind, .i = s0, .j = s0, .k = s0, .wavelet = seis_ricker(f, 1e9)};
    src.dir[0] = 0.6;
    src.dir[2] = 0.8;
    scl_seis_config c = {.order = order, .pml = pml, .sources = &src, .nsources = 1, .fp64 = 0};
    c.dt = 0.9 * scl_seis_dt_max(&m, order);
    /* the P front (plus half a pulse) stays 3 cells inside the CPML edge */
    const double reach = (s0 - pml - 3) * h;
    c.steps = (long)((sqrt(2.0) / f + reach / vp - 1.0 / f) / c.dt);
    scl_seis *s = NULL;
    float *tr = seis_run(ctx, &m, &c, &s);
    double ratio = NAN;
    const size_t cells = (size_t)n * n * n;
    double *v[3];
    for (int a = 0; a < 3; a++)
        v[a] = malloc(cells * sizeof(double));
    if (tr && s) {
        int ok = 1;
        for (int a = 0; a < 3; a++)
            ok &= scl_seis_read_field(s, a, v[a]) == SCL_OK;
        CHECK(ok, "read fields: %s", scl_last_error(ctx));
        const double c1 = order == 4 ? 9.0 / 8 : 1, c2 = order == 4 ? -1.0 / 24 : 0;
        const long st[3] = {1, n, (long)n * n};
        double sp = 0, ss = 0;
        for (int k = pml + 2; k < n - pml - 2; k++)
            for (int j = pml + 2; j < n - pml - 2; j++)
                for (int i = pml + 2; i < n - pml - 2; i++) {
                    const long q = i + (long)n * (j + (long)n * k);
                    /* forward (to i+1/2) and backward differences of the scheme */
#define DP(f, s) (c1 * (f[q + (s)] - f[q]) + c2 * (f[q + 2 * (s)] - f[q - (s)]))
#define DM(f, s) (c1 * (f[q] - f[q - (s)]) + c2 * (f[q + (s)] - f[q - 2 * (s)]))
                    const double div = DM(v[0], st[0]) + DM(v[1], st[1]) + DM(v[2], st[2]);
                    const double cx = DP(v[2], st[1]) - DP(v[1], st[2]);
                    const double cy = DP(v[0], st[2]) - DP(v[2], st[0]);
                    const double cz = DP(v[1], st[0]) - DP(v[0], st[1]);
#undef DP
#undef DM
                    sp += vp * vp * div * div;
                    ss += vs * vs * (cx * cx + cy * cy + cz * cz);
                }
        ratio = ss / sp;
        CHECK(sp > 0 && isfinite(sp), "no P energy (%g)", sp);
    }
    printf("%s source, order %d, %ld steps: S/P energy %.3e\n",
           kind == SCL_SEIS_EXPLOSIVE ? "explosive" : "force", order, c.steps, ratio);
    for (int a = 0; a < 3; a++)
        free(v[a]);
    free(tr);
    scl_seis_free(s);
    scl_seis_model_release(&m);
    return ratio;
}

int main(void)
{
    uint64_t rng = test_seed();
    scl_context *ctx = test_context();
    const int order = test_uniform(&rng) < 0.5 ? 2 : 4;
    const double ex = s_over_p(ctx, SCL_SEIS_EXPLOSIVE, order, &rng);
    CHECK(ex <= 1e-3, "explosive source: S/P energy %.3e > 1e-3", ex);
    const double fo = s_over_p(ctx, SCL_SEIS_FORCE, order, &rng);
    CHECK(fo > 0.1, "point force: S/P energy %.3e should be large", fo);
    scl_context_free(ctx);
    return test_summary("seismic_waves");
}
