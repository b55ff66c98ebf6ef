/* The used ghosts' positions of the bonded module's device numbering
 * (device atom nlo + j = the caller's ghost ghost[j]) copied from another
 * module's device x of all the caller's atoms (3 doubles a row), instead of
 * uploaded each step. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

__kernel void bonded_ghost_x(__global const double *xsrc, __global const int *ghost,
                             const int nghost, const int nlo, __global double *x)
{
    const int j = (int)get_global_id(0);
    if (j >= nghost)
        return;
    const size_t g = (size_t)ghost[j], d = 3 * ((size_t)nlo + (size_t)j);
    x[d] = xsrc[3 * g];
    x[d + 1] = xsrc[3 * g + 1];
    x[d + 2] = xsrc[3 * g + 2];
}
