/* Every bad input gives its own error, naming the cell or item: a negative
 * bulk modulus (vs >= sqrt(3)/2 vp), a negative density, a time step above
 * the CFL limit (with the limit), a receiver or source outside the grid,
 * order 3, a CPML thicker than half the grid, fewer than 5 points per
 * wavelength; and the solver and the reference refuse the same inputs. */
#include "seis_test.h"

#include <string.h>

typedef struct {
    scl_seis_model m;
    scl_seis_source src;
    scl_seis_receiver rec[2];
    scl_seis_config c;
} setup;

static void good(setup *s)
{
    seis_homogeneous(&s->m, 20, 18, 16, 5, 3000, 1700, 2400);
    s->src = (scl_seis_source){.kind = SCL_SEIS_EXPLOSIVE, .i = 10, .j = 9, .k = 8,
                               .wavelet = {SCL_WAVE_RICKER, 1, 20, 0, 0}};
    s->rec[0] = (scl_seis_receiver){3, 4, 5};
    s->rec[1] = (scl_seis_receiver){19, 17, 15};
    s->c = (scl_seis_config){.order = 4, .pml = 4, .free_surface = 1, .sources = &s->src,
                             .nsources = 1, .receivers = s->rec, .nreceivers = 2, .steps = 10};
    s->c.dt = 0.9 * scl_seis_dt_max(&s->m, 4);
}

static void expect(scl_context *ctx, setup *s, const char *what, const char *msg1, const char *msg2)
{
    char err[1024] = "";
    const scl_status st = scl_seis_check(&s->m, &s->c, NULL, 0, err, sizeof err);
    CHECK(st == SCL_ERR_INPUT && strstr(err, msg1) && (!msg2 || strstr(err, msg2)),
          "%s: status %s, message '%s' (wanted '%s')", what, scl_status_name(st), err, msg1);
    printf("%-28s -> %s\n", what, err);
    scl_seis_ref *r = NULL;
    CHECK(scl_seis_ref_create(&s->m, &s->c, 1, &r, err, sizeof err) == SCL_ERR_INPUT && !r,
          "%s: the reference accepted it", what);
    scl_seis *d = NULL;
    CHECK(scl_seis_create(ctx, &s->m, &s->c, NULL, &d) == SCL_ERR_INPUT && !d &&
              strstr(scl_last_error(ctx), msg1),
          "%s: the solver said '%s'", what, scl_last_error(ctx));
    scl_seis_model_release(&s->m);
}

int main(void)
{
    uint64_t rng = test_seed();
    scl_context *ctx = test_context();
    setup s;
    const size_t cell = (size_t)(test_uniform(&rng) * 20 * 18 * 16);
    char where[64];
    snprintf(where, sizeof where, "cell (%zu,%zu,%zu)", cell % 20, cell / 20 % 18, cell / 360);

    good(&s);
    char err[1024] = "", warn[256] = "";
    CHECK(scl_seis_check(&s.m, &s.c, warn, sizeof warn, err, sizeof err) == SCL_OK,
          "the good setup is refused: %s", err);
    scl_seis_model_release(&s.m);

    good(&s);
    s.m.vs[cell] = (float)(sqrt(3.0) / 2 * s.m.vp[cell] * 1.0001);
    expect(ctx, &s, "negative bulk modulus", "negative bulk modulus", where);
    good(&s);
    s.m.rho[cell] = -1;
    expect(ctx, &s, "negative density", "density -1 must be positive", where);
    good(&s);
    s.m.vp[cell] = NAN;
    expect(ctx, &s, "NaN vp", "non-finite", where);
    good(&s);
    s.c.dt = 1.01 * scl_seis_dt_max(&s.m, 4);
    expect(ctx, &s, "CFL", "violates the CFL condition", "largest stable dt");
    good(&s);
    s.rec[1].k = 16;
    expect(ctx, &s, "receiver outside", "receiver 2 at cell (19,17,16) is outside", NULL);
    good(&s);
    s.src.i = -1;
    expect(ctx, &s, "source outside", "source 1 at cell (-1,9,8) is outside", NULL);
    good(&s);
    s.c.order = 3;
    expect(ctx, &s, "order 3", "order 3", NULL);
    good(&s);
    s.c.pml = 9;
    expect(ctx, &s, "thick CPML", "pml = 9 cells does not fit", NULL);
    good(&s);
    s.src.wavelet.freq = 200;
    expect(ctx, &s, "undersampled", "points per minimum wavelength", NULL);
    good(&s);
    s.src.kind = SCL_SEIS_FORCE;
    expect(ctx, &s, "zero force", "force direction is zero", NULL);

    /* a warning, not an error, between 5 and 8 points per wavelength */
    good(&s);
    s.src.wavelet.freq = 1700 / (2.5 * 6 * 5);
    CHECK(scl_seis_check(&s.m, &s.c, warn, sizeof warn, err, sizeof err) == SCL_OK &&
              strstr(warn, "6.00 points per minimum wavelength"),
          "warning '%s'", warn);
    scl_seis_model_release(&s.m);
    scl_context_free(ctx);
    return test_summary("seismic_bad_input");
}
