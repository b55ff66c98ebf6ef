// The peer of `streamcl seismic` on NVIDIA GPUs: a plain CUDA velocity-stress
// (Virieux) update, separate velocity and stress kernels, one thread per
// cell, fp32, 2nd or 4th order, interior only (no CPML, zero halo), the
// same material handling as cl/seismic.cl (rho, lambda, mu per cell,
// averaged on the fly). Bytes per cell update: velocity 9 reads + rho + 3
// writes, stress 9 reads + lambda + mu + 6 writes = 120 B.
//   nvcc -O3 -arch=native -o peer_vs bench/seismic/peer_vs.cu
//   ./peer_vs N [steps]      -> one table row per order and layout, plus D2D copy GB/s
// Two layouts: rows of N + 4 floats (halo 2, as first written: a warp's row
// straddles cache lines) and rows padded to 32 floats with cell 0 on a
// 128-byte boundary (what streamcl does; the fdtd peer gained 36 % from it).
// Fields start random (the update has no data-dependent branches; random
// values only make sure nothing is timed on zeros). Times: CUDA events,
// median of 5 runs of `steps` steps after a warm-up.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#define CK(x)                                                                           \
    do {                                                                                \
        cudaError_t e_ = (x);                                                           \
        if (e_ != cudaSuccess) {                                                        \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

struct Grid {
    int n, sy, sz, origin;
};

template <int ORDER>
__device__ __forceinline__ float dp(const float *__restrict__ a, int c, int s, float c1, float c2)
{
    return ORDER == 4 ? c1 * (a[c + s] - a[c]) + c2 * (a[c + 2 * s] - a[c - s]) : c1 * (a[c + s] - a[c]);
}
template <int ORDER>
__device__ __forceinline__ float dm(const float *__restrict__ a, int c, int s, float c1, float c2)
{
    return ORDER == 4 ? c1 * (a[c] - a[c - s]) + c2 * (a[c + s] - a[c - 2 * s]) : c1 * (a[c] - a[c - s]);
}

// The cell c this thread updates: x, y from the block grid, z = blockIdx.z;
// false past the N x N face.
__device__ __forceinline__ bool cell_of_thread(const Grid &g, int &c)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    c = g.origin + i + j * g.sy + (int)blockIdx.z * g.sz;
    return i < g.n && j < g.n;
}

template <int ORDER>
__global__ void velocity(float *__restrict__ vx, float *__restrict__ vy, float *__restrict__ vz,
                         const float *__restrict__ sxx, const float *__restrict__ syy,
                         const float *__restrict__ szz, const float *__restrict__ sxy,
                         const float *__restrict__ sxz, const float *__restrict__ syz,
                         const float *__restrict__ rho, Grid g, float c1, float c2, float dt)
{
    int c;
    if (!cell_of_thread(g, c))
        return;
    const int sy = g.sy, sz = g.sz;
    const float r = rho[c], tdt = 2 * dt;
    vx[c] += tdt / (r + rho[c + 1]) *
             (dp<ORDER>(sxx, c, 1, c1, c2) + dm<ORDER>(sxy, c, sy, c1, c2) + dm<ORDER>(sxz, c, sz, c1, c2));
    vy[c] += tdt / (r + rho[c + sy]) *
             (dm<ORDER>(sxy, c, 1, c1, c2) + dp<ORDER>(syy, c, sy, c1, c2) + dm<ORDER>(syz, c, sz, c1, c2));
    vz[c] += tdt / (r + rho[c + sz]) *
             (dm<ORDER>(sxz, c, 1, c1, c2) + dm<ORDER>(syz, c, sy, c1, c2) + dp<ORDER>(szz, c, sz, c1, c2));
}

__device__ __forceinline__ float harm4(float a, float b, float c, float d)
{
    return (a <= 0 || b <= 0 || c <= 0 || d <= 0) ? 0.f : 4.f / (1.f / a + 1.f / b + 1.f / c + 1.f / d);
}

template <int ORDER>
__global__ void stress(const float *__restrict__ vx, const float *__restrict__ vy,
                       const float *__restrict__ vz, float *__restrict__ sxx, float *__restrict__ syy,
                       float *__restrict__ szz, float *__restrict__ sxy, float *__restrict__ sxz,
                       float *__restrict__ syz, const float *__restrict__ lam,
                       const float *__restrict__ mu, Grid g, float c1, float c2, float dt)
{
    int c;
    if (!cell_of_thread(g, c))
        return;
    const int sy = g.sy, sz = g.sz;
    const float exx = dm<ORDER>(vx, c, 1, c1, c2), eyy = dm<ORDER>(vy, c, sy, c1, c2),
                ezz = dm<ORDER>(vz, c, sz, c1, c2);
    const float l = lam[c], m = mu[c], l2m = l + 2 * m;
    sxx[c] += dt * (l2m * exx + l * (eyy + ezz));
    syy[c] += dt * (l2m * eyy + l * (exx + ezz));
    szz[c] += dt * (l2m * ezz + l * (exx + eyy));
    sxy[c] += dt * harm4(m, mu[c + 1], mu[c + sy], mu[c + 1 + sy]) *
              (dp<ORDER>(vx, c, sy, c1, c2) + dp<ORDER>(vy, c, 1, c1, c2));
    sxz[c] += dt * harm4(m, mu[c + 1], mu[c + sz], mu[c + 1 + sz]) *
              (dp<ORDER>(vx, c, sz, c1, c2) + dp<ORDER>(vz, c, 1, c1, c2));
    syz[c] += dt * harm4(m, mu[c + sy], mu[c + sz], mu[c + sy + sz]) *
              (dp<ORDER>(vy, c, sz, c1, c2) + dp<ORDER>(vz, c, sy, c1, c2));
}

__global__ void fill_random(float *a, size_t n, unsigned seed, float scale)
{
    size_t q = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    for (; q < n; q += (size_t)gridDim.x * blockDim.x) {
        unsigned x = (unsigned)q * 2654435761u ^ seed;
        x ^= x >> 13; x *= 0x5bd1e995u; x ^= x >> 15;
        a[q] = scale * ((x & 0xffffff) / 16777216.0f - 0.5f);
    }
}

__global__ void fill_value(float *a, size_t n, float v)
{
    size_t q = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    for (; q < n; q += (size_t)gridDim.x * blockDim.x)
        a[q] = v;
}

// Seconds of one call of body(): CUDA events around each of 6 calls, the
// median of the last 5 (the first warms up).
template <class Body>
static double median_seconds(Body body)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<double> t;
    for (int rep = 0; rep < 6; rep++) {
        CK(cudaEventRecord(a));
        body();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        CK(cudaGetLastError());
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (rep > 0)
            t.push_back(ms * 1e-3);
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

template <int ORDER>
static double run(float **f, float *rho, float *lam, float *mu, Grid g, int steps, float h, float dt)
{
    const float c1 = (ORDER == 4 ? 9.f / 8 : 1.f) / h, c2 = (ORDER == 4 ? -1.f / 24 : 0.f) / h;
    dim3 block(32, 8, 1), grid((g.n + 31) / 32, (g.n + 7) / 8, g.n);
    return median_seconds([&] {
        for (int s = 0; s < steps; s++) {
            velocity<ORDER><<<grid, block>>>(f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], rho, g, c1, c2, dt);
            stress<ORDER><<<grid, block>>>(f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], lam, mu, g, c1, c2, dt);
        }
    });
}

int main(int argc, char **argv)
{
    const int n = argc > 1 ? atoi(argv[1]) : 512, steps = argc > 2 ? atoi(argv[2]) : 20, H = 2;
    const long p = n + 2 * H, pa = (32 + n + H + 31) / 32 * 32; /* plain and aligned pitch */
    const size_t pts = (size_t)pa * p * p;
    const Grid layouts[2] = {{n, (int)p, (int)(p * p), (int)(H + H * p + H * p * p)},
                             {n, (int)pa, (int)(pa * p), (int)(32 + H * pa + H * pa * p)}};
    static const char *layout_name[2] = {"rows N+4", "rows padded to 128 B"};
    float *f[9], *rho, *lam, *mu;
    for (int q = 0; q < 9; q++) {
        CK(cudaMalloc(&f[q], pts * sizeof(float)));
        fill_random<<<1024, 256>>>(f[q], pts, 17u + q, 1e-3f);
    }
    CK(cudaMalloc(&rho, pts * sizeof(float)));
    CK(cudaMalloc(&lam, pts * sizeof(float)));
    CK(cudaMalloc(&mu, pts * sizeof(float)));
    const float vp = 5000, vs = 2900, r = 2700, h = 10;
    fill_value<<<1024, 256>>>(rho, pts, r);
    fill_value<<<1024, 256>>>(lam, pts, r * (vp * vp - 2 * vs * vs));
    fill_value<<<1024, 256>>>(mu, pts, r * vs * vs);
    CK(cudaDeviceSynchronize());
    const float dt = 0.9f * h / (vp * 1.7320508f * (7.f / 6));

    // copy roof: device-to-device copy of 1 GiB
    float *src, *dst;
    const size_t cb = 1u << 30;
    CK(cudaMalloc(&src, cb));
    CK(cudaMalloc(&dst, cb));
    const double copy_gbs =
        2.0 * cb / median_seconds([&] { CK(cudaMemcpy(dst, src, cb, cudaMemcpyDeviceToDevice)); }) / 1e9;
    cudaFree(src);
    cudaFree(dst);

    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("| peer | device | N^3 | order | steps | s | Gcells/s | GB/s at 120 B | of copy %.0f GB/s |\n", copy_gbs);
    printf("|---|---|---|---|---|---|---|---|---|\n");
    for (int lay = 0; lay < 2; lay++)
        for (int order = 2; order <= 4; order += 2) {
            const Grid g = layouts[lay];
            const double s = order == 2 ? run<2>(f, rho, lam, mu, g, steps, h, dt)
                                        : run<4>(f, rho, lam, mu, g, steps, h, dt);
            const double gc = (double)n * n * n * steps / s / 1e9;
            printf("| CUDA plain v/s kernels, %s | %s | %d | %d | %d | %.4f | %.2f | %.0f | %.2f |\n",
                   layout_name[lay], prop.name, n, order, steps, s, gc, gc * 120, gc * 120 / copy_gbs);
        }
    return 0;
}
