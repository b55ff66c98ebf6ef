/* Ghost rows of the charmm engine's caller positions from the owned rows
 * (src/pair/charmm_ghosts.c): row nlocal + g = row img[g].x shifted by
 * img[g].y, .z, .w periodic images in x, y, z. The shifts are added one
 * swap at a time, in the order of LAMMPS's Comm::forward_comm over its
 * swaps (all x swaps, then y, then z), each a single addition of a box
 * length or tilt factor (LAMMPS adds pbc * length with pbc = +-1: the
 * same value), so the rows are bitwise the caller's. No contraction: there
 * are no products to fuse, and none is wanted. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF

__kernel void charmm_ghost_gather(__global double *x, __global const int4 *img, const int nlocal,
                                  const int nghost, const double xprd, const double yprd,
                                  const double zprd, const double xy, const double xz,
                                  const double yz, const int triclinic)
{
    const int g = (int)get_global_id(0);
    if (g >= nghost)
        return;
    const int4 m = img[g];
    __global const double *s = x + 3 * (size_t)m.x;
    double a = s[0], b = s[1], c = s[2];
    const double dx = m.y < 0 ? -xprd : xprd;
    for (int k = 0; k < (m.y < 0 ? -m.y : m.y); k++)
        a += dx;
    const double dy = m.z < 0 ? -yprd : yprd, txy = m.z < 0 ? -xy : xy;
    for (int k = 0; k < (m.z < 0 ? -m.z : m.z); k++) {
        if (triclinic)
            a += txy;
        b += dy;
    }
    const double dz = m.w < 0 ? -zprd : zprd, txz = m.w < 0 ? -xz : xz,
                 tyz = m.w < 0 ? -yz : yz;
    for (int k = 0; k < (m.w < 0 ? -m.w : m.w); k++) {
        if (triclinic) {
            a += txz;
            b += tyz;
        }
        c += dz;
    }
    __global double *o = x + 3 * ((size_t)nlocal + (size_t)g);
    o[0] = a;
    o[1] = b;
    o[2] = c;
}
