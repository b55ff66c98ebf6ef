/* Plain C double reference of the resident velocity Verlet's half steps
 * (streamcl/integrate.h): LAMMPS's FixNVE loops, the test oracle. */
#include "streamcl/integrate.h"

void scl_integrate_reference(int half, int n, double *x, double *v, const double *f4,
                             const double *dtfm, double dtv)
{
    for (int i = 0; i < n; i++) {
        for (int d = 0; d < 3; d++) {
            v[3 * i + d] += dtfm[i] * f4[4 * i + d];
            if (half == 1) x[3 * i + d] += dtv * v[3 * i + d];
        }
    }
}
