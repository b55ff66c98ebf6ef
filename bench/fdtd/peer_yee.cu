// Peer for the GPU run: a straightforward CUDA Yee kernel pair (own code),
// single precision, free space, PEC box, no CPML: one H kernel then one E
// kernel per step, x fastest, rows padded to 32 floats, 2D blocks of 32x8.
// Two launch schemes of the same arithmetic: one thread per cell (3D grid),
// and 2.5D (each thread walks KZ planes of its (i, j) column keeping the
// plane it just read in registers: E at k+1 for H, H at k-1 for E); the best
// is the peer's figure. Model: 72 bytes per cell update (each kernel reads 6
// components and writes 3). Also measures the device-to-device copy
// bandwidth (cudaMemcpy, read + write bytes) for the fractions.
// Usage: peer_yee NX NY NZ [STEPS]; prints one line per scheme, then
// "peer_yee NX NY NZ: T ms/step, G Gcells/s, B GB/s" for the best.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_OK(call)                                                                     \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e_));            \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

struct Grid {
    int nx, ny, nz;
    long sy, sz;
};

// What one thread updates: the cells (i, j, k0 .. k1 - 1), the first at
// offset o. kz = 0: one thread per cell (k0 = blockIdx.z); else kz planes
// per thread. False past the grid.
struct Column {
    int i, j, k0, k1;
    long o;
};
__device__ __forceinline__ bool column_of_thread(const Grid &g, int kz, Column &c)
{
    c.i = blockIdx.x * blockDim.x + threadIdx.x;
    c.j = blockIdx.y * blockDim.y + threadIdx.y;
    c.k0 = kz ? blockIdx.z * kz : blockIdx.z;
    c.k1 = kz ? min(c.k0 + kz, g.nz) : c.k0 + 1;
    c.o = c.i + c.j * g.sy + c.k0 * g.sz;
    return c.i < g.nx && c.j < g.ny && c.k0 < g.nz;
}

__global__ void update_h(float *__restrict__ hx, float *__restrict__ hy, float *__restrict__ hz,
                         const float *__restrict__ ex, const float *__restrict__ ey,
                         const float *__restrict__ ez, Grid g, float db, float rd, int kz)
{
    Column c;
    if (!column_of_thread(g, kz, c))
        return;
    const int i = c.i, j = c.j, k0 = c.k0, k1 = c.k1;
    long o = c.o;
    float ex0 = ex[o], ey0 = ey[o];
    for (int k = k0; k < k1; k++, o += g.sz) {
        float ez0 = ez[o], exu = ex[o + g.sz], eyu = ey[o + g.sz];
        if (i > 0)
            hx[o] -= db * rd * ((ez[o + g.sy] - ez0) - (eyu - ey0));
        if (j > 0)
            hy[o] -= db * rd * ((exu - ex0) - (ez[o + 1] - ez0));
        if (k > 0)
            hz[o] -= db * rd * ((ey[o + 1] - ey0) - (ex[o + g.sy] - ex0));
        ex0 = exu;
        ey0 = eyu;
    }
}

__global__ void update_e(float *__restrict__ ex, float *__restrict__ ey, float *__restrict__ ez,
                         const float *__restrict__ hx, const float *__restrict__ hy,
                         const float *__restrict__ hz, Grid g, float cb, float rd, int kz)
{
    Column c;
    if (!column_of_thread(g, kz, c))
        return;
    const int i = c.i, j = c.j, k0 = c.k0, k1 = c.k1;
    long o = c.o;
    float hxm = k0 > 0 ? hx[o - g.sz] : 0, hym = k0 > 0 ? hy[o - g.sz] : 0;
    for (int k = k0; k < k1; k++, o += g.sz) {
        float hx0 = hx[o], hy0 = hy[o], hz0 = hz[o];
        if (j > 0 && k > 0)
            ex[o] += cb * rd * ((hz0 - hz[o - g.sy]) - (hy0 - hym));
        if (i > 0 && k > 0)
            ey[o] += cb * rd * ((hx0 - hxm) - (hz0 - hz[o - 1]));
        if (i > 0 && j > 0)
            ez[o] += cb * rd * ((hy0 - hy[o - 1]) - (hx0 - hx[o - g.sy]));
        hxm = hx0;
        hym = hy0;
    }
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: peer_yee NX NY NZ [STEPS]\n");
        return 2;
    }
    Grid g;
    g.nx = atoi(argv[1]);
    g.ny = atoi(argv[2]);
    g.nz = atoi(argv[3]);
    int steps = argc > 4 ? atoi(argv[4]) : 50;
    g.sy = (g.nx + 1 + 31) / 32 * 32; // rows start 128-byte aligned
    g.sz = g.sy * (g.ny + 1);
    size_t pts = (size_t)g.sz * (g.nz + 1);
    float *f[6];
    for (int c = 0; c < 6; c++) {
        CUDA_OK(cudaMalloc(&f[c], pts * sizeof(float)));
        CUDA_OK(cudaMemset(f[c], 0, pts * sizeof(float)));
    }
    // a nonzero start so that nothing runs on zeros: Ez = 1 in the middle plane
    std::vector<float> plane(g.sz, 1.0f);
    CUDA_OK(cudaMemcpy(f[2] + (size_t)g.sz * (g.nz / 2), plane.data(), g.sz * sizeof(float),
                       cudaMemcpyHostToDevice));
    const double c0 = 299792458.0, mu0 = 4e-7 * 3.141592653589793, eps0 = 1 / (mu0 * c0 * c0);
    double d = 1e-3, dt = d / (c0 * sqrt(3.0));
    float cb = (float)(dt / eps0), db = (float)(dt / mu0), rd = (float)(1 / d);
    cudaEvent_t a, b;
    CUDA_OK(cudaEventCreate(&a));
    CUDA_OK(cudaEventCreate(&b));
    const int kzs[] = {0, 8, 32, 128};
    double best = 1e30, cells = (double)g.nx * g.ny * g.nz;
    for (int v = 0; v < 4; v++) {
        int kz = kzs[v];
        dim3 block(32, 8, 1), grid((g.nx + 31) / 32, (g.ny + 7) / 8, kz ? (g.nz + kz - 1) / kz : g.nz);
        std::vector<float> t;
        for (int rep = 0; rep < 6; rep++) {
            CUDA_OK(cudaEventRecord(a));
            for (int s = 0; s < steps; s++) {
                update_h<<<grid, block>>>(f[3], f[4], f[5], f[0], f[1], f[2], g, db, rd, kz);
                update_e<<<grid, block>>>(f[0], f[1], f[2], f[3], f[4], f[5], g, cb, rd, kz);
            }
            CUDA_OK(cudaEventRecord(b));
            CUDA_OK(cudaEventSynchronize(b));
            float ms;
            CUDA_OK(cudaEventElapsedTime(&ms, a, b));
            if (rep > 0)
                t.push_back(ms / steps);
        }
        CUDA_OK(cudaGetLastError());
        std::sort(t.begin(), t.end());
        double ms = t[t.size() / 2];
        printf("peer_yee %s kz %d: %.3f ms/step, %.2f Gcells/s, %.0f GB/s (72 B/cell)\n",
               kz ? "2.5D" : "one thread per cell", kz, ms, cells / ms * 1e-6, 72 * cells / ms * 1e-6);
        best = std::min(best, ms);
    }
    double ms = best;
    float probe;
    CUDA_OK(cudaMemcpy(&probe, f[2] + (size_t)g.sz * (g.nz / 2) + g.sy * (g.ny / 2) + g.nx / 2,
                       sizeof probe, cudaMemcpyDeviceToHost));
    printf("peer_yee %d %d %d: %.3f ms/step, %.2f Gcells/s, %.0f GB/s (72 B/cell), probe %.3e\n",
           g.nx, g.ny, g.nz, ms, cells / ms * 1e-6, 72 * cells / ms * 1e-6, probe);
    // copy bandwidth: 2 GiB device-to-device, read + write bytes
    size_t n = (size_t)1 << 29;
    float *x, *y;
    if (cudaMalloc(&x, n * 4) == cudaSuccess && cudaMalloc(&y, n * 4) == cudaSuccess) {
        std::vector<float> ct;
        for (int rep = 0; rep < 6; rep++) {
            CUDA_OK(cudaEventRecord(a));
            CUDA_OK(cudaMemcpy(y, x, n * 4, cudaMemcpyDeviceToDevice));
            CUDA_OK(cudaEventRecord(b));
            CUDA_OK(cudaEventSynchronize(b));
            float m;
            CUDA_OK(cudaEventElapsedTime(&m, a, b));
            if (rep > 0)
                ct.push_back(m);
        }
        std::sort(ct.begin(), ct.end());
        printf("copy_bandwidth: %.0f GB/s (cudaMemcpy D2D 2 GiB, read+write)\n",
               2.0 * n * 4 / ct[ct.size() / 2] * 1e-6);
        cudaFree(x);
        cudaFree(y);
    }
    for (int c = 0; c < 6; c++)
        cudaFree(f[c]);
    return std::isfinite(probe) ? 0 : 1;
}
