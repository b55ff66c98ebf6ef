/* Global reductions (OP2 style): each work-item strides over the stream,
 * the work-group combines its items by a tree in local memory, and one
 * partial per group goes back to the host, which finishes in double.
 * Work-group sizes are powers of two (the tree halves them). */

#if SCL_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

/* ---- sums of float: double accumulation where the device has it ------- */
#if SCL_FP64
/* Tree-sum one value per work-item in local memory; item 0 gets the total. */
inline double group_sum(__local double *scratch, double value)
{
    const size_t lid = get_local_id(0);
    scratch[lid] = value;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return scratch[0];
}
__kernel void sum_float(__global const float *x, const ulong n, __global double *partials,
                        __local double *scratch)
{
    const size_t gid = get_global_id(0), stride = get_global_size(0), lid = get_local_id(0);
    const size_t n4 = n / 4;
    __global const float4 *x4 = (__global const float4 *)x;
    /* a double4 accumulator keeps four independent chains (and vectorises on CPUs) */
    double4 acc4 = (double4)(0.0);
    for (size_t i = gid; i < n4; i += stride)
        acc4 += convert_double4(x4[i]);
    double acc = (acc4.x + acc4.y) + (acc4.z + acc4.w);
    for (size_t i = 4 * n4 + gid; i < n; i += stride)
        acc += (double)x[i];
    const double total = group_sum(scratch, acc);
    if (lid == 0)
        partials[get_group_id(0)] = total;
}
#else
/* No fp64: compensated (Kahan/two-sum) float pairs (sum, error). */
inline float2 two_sum(float2 a, float b)
{
    const float s = a.x + b;
    const float bb = s - a.x;
    const float err = (a.x - (s - bb)) + (b - bb);
    return (float2)(s, a.y + err);
}

__kernel void sum_float(__global const float *x, const ulong n, __global float2 *partials,
                        __local float2 *scratch)
{
    const size_t gid = get_global_id(0), stride = get_global_size(0), lid = get_local_id(0);
    const size_t n4 = n / 4;
    __global const float4 *x4 = (__global const float4 *)x;
    float2 acc = (float2)(0.0f, 0.0f);
    for (size_t i = gid; i < n4; i += stride) {
        const float4 v = x4[i];
        acc = two_sum(acc, v.x);
        acc = two_sum(acc, v.y);
        acc = two_sum(acc, v.z);
        acc = two_sum(acc, v.w);
    }
    for (size_t i = 4 * n4 + gid; i < n; i += stride)
        acc = two_sum(acc, x[i]);
    scratch[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (lid < s) {
            const float2 o = scratch[lid + s];
            float2 r = two_sum(scratch[lid], o.x);
            r.y += o.y;
            scratch[lid] = r;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partials[get_group_id(0)] = scratch[0];
}
#endif

/* ---- min / max of float and double (NaN elements are skipped) --------- */
/* One body for the four kernels; their signatures stay written out so that
 * arguments bind by name. */
#define MINMAX_BODY(T, PICK, IDENTITY)                                                       \
    const size_t gid = get_global_id(0), stride = get_global_size(0);                        \
    const size_t lid = get_local_id(0);                                                      \
    T acc = IDENTITY;                                                                        \
    for (size_t i = gid; i < n; i += stride)                                                 \
        acc = PICK(acc, x[i]);                                                               \
    scratch[lid] = acc;                                                                      \
    barrier(CLK_LOCAL_MEM_FENCE);                                                            \
    for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {                                 \
        if (lid < s)                                                                         \
            scratch[lid] = PICK(scratch[lid], scratch[lid + s]);                             \
        barrier(CLK_LOCAL_MEM_FENCE);                                                        \
    }                                                                                        \
    if (lid == 0)                                                                            \
        partials[get_group_id(0)] = scratch[0];

__kernel void min_float(__global const float *x, const ulong n, __global float *partials,
                        __local float *scratch)
{
    MINMAX_BODY(float, fmin, INFINITY)
}
__kernel void max_float(__global const float *x, const ulong n, __global float *partials,
                        __local float *scratch)
{
    MINMAX_BODY(float, fmax, -INFINITY)
}

#if SCL_FP64
__kernel void sum_double(__global const double *x, const ulong n, __global double *partials,
                         __local double *scratch)
{
    const size_t gid = get_global_id(0), stride = get_global_size(0), lid = get_local_id(0);
    double acc = 0.0;
    for (size_t i = gid; i < n; i += stride)
        acc += x[i];
    const double total = group_sum(scratch, acc);
    if (lid == 0)
        partials[get_group_id(0)] = total;
}
__kernel void min_double(__global const double *x, const ulong n, __global double *partials,
                         __local double *scratch)
{
    MINMAX_BODY(double, fmin, (double)INFINITY)
}
__kernel void max_double(__global const double *x, const ulong n, __global double *partials,
                         __local double *scratch)
{
    MINMAX_BODY(double, fmax, -(double)INFINITY)
}
#endif
