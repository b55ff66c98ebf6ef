/* CPML profiles with a different thickness on each face, against the grading
 * of include/streamcl/grid3d.h computed here from its formulas alone (no call
 * into src/grid3d/cpml.c but the one under test): every node and half node of
 * both faces and of the interior. The fdtd and seismic tests compare a device
 * solver with a C reference that share these profiles, so a face graded with
 * the other face's thickness passed them all; this test cannot share it. */
#include "test_util.h"

#include "streamcl/grid3d.h"

/* The expected kinv, b, c at depth rho (m) into a layer of thickness L. */
static void expected(const scl_cpml_grading *g, double rho, double L, double dt, double out[3])
{
    if (rho <= 0 || L <= 0) {
        out[0] = 1;
        out[1] = out[2] = 0;
        return;
    }
    double r = rho / L;
    if (r > 1)
        r = 1;
    double rm = pow(r, g->order);
    double d = g->d_max * rm, kappa = 1 + (g->kappa_max - 1) * rm;
    double alpha = g->alpha_max * (1 - r);
    double b = exp(-(d / kappa + alpha) * dt);
    out[0] = 1 / kappa;
    out[1] = b;
    out[2] = d * (b - 1) / (kappa * (d + kappa * alpha));
}

static void check_axis(int n, int lo, int hi)
{
    const double d = 0.01, dt = 1.5e-11;
    scl_cpml_grading g = {.order = 3, .d_max = 2.5e10, .kappa_max = 4, .alpha_max = 1e8};
    scl_cpml_axis a;
    char err[256];
    if (scl_cpml_axis_build(&a, n, d, dt, lo, hi, &g, err, sizeof err) != SCL_OK) {
        CHECK(0, "n %d lo %d hi %d: %s", n, lo, hi, err);
        return;
    }
    for (int half = 0; half < 2; half++)
        for (int i = 0; i <= n - half; i++) {
            /* depth measured from each face's inner boundary, in cells */
            double x = i + 0.5 * half, rho = 0, L = 0;
            if (x < lo) {
                rho = (lo - x) * d;
                L = lo * d;
            } else if (x > n - hi) {
                rho = (x - (n - hi)) * d;
                L = hi * d;
            }
            double want[3], got[3] = {half ? a.kinv_half[i] : a.kinv_node[i],
                                      half ? a.b_half[i] : a.b_node[i],
                                      half ? a.c_half[i] : a.c_node[i]};
            expected(&g, rho, L, dt, want);
            static const char *names[3] = {"kinv", "b", "c"};
            for (int k = 0; k < 3; k++) {
                char field[96];
                snprintf(field, sizeof field, "n %d lo %d hi %d %s_%s", n, lo, hi, names[k],
                         half ? "half" : "node");
                CHECK_CLOSE(field, i, got[k], want[k], 1e-12, 1e-15);
            }
        }
    /* the outermost node of each face is at depth 1 of its own layer: same
     * coefficients on both faces whatever their thickness */
    if (lo > 0 && hi > 0) {
        CHECK_CLOSE("outer node b, high face vs low", n, a.b_node[n], a.b_node[0], 1e-12, 0);
        CHECK_CLOSE("outer node c, high face vs low", n, a.c_node[n], a.c_node[0], 1e-12, 0);
    }
    scl_cpml_axis_free(&a);
}

int main(void)
{
    check_axis(40, 10, 4);  /* thick low face, thin high face */
    check_axis(40, 3, 12);  /* thin low face, thick high face */
    check_axis(30, 0, 7);   /* a free surface low (seismic k = 0) */
    check_axis(30, 6, 0);
    check_axis(24, 8, 8);
    return test_summary("grid3d_cpml_profile");
}
