// Same-run CUDA peer for streamcl eri: the straightforward GPU kernel that
// the issue describes -- one thread per unique contracted quartet (ij|kl),
// ij >= kl, looping over the 36 x 36 primitive pairs of STO-6G from
// precomputed pair data, F0 through CUDA's erf. Own code.
//
//   nvcc -O3 -arch=native -o peer_eri bench/eri/peer_eri.cu
//   ./peer_eri NX NY NZ [spacing=1.4]
// Prints, for FP64 and FP32: median kernel time of 5 runs (CUDA events,
// after one warm-up), primitive quartets/s, and the sum of all unique
// integrals (to compare with 'streamcl eri --tensor').
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                             \
    do {                                                                                  \
        cudaError_t e_ = (x);                                                             \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));   \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

static const int NPRIM = 6;
static const int NPP = NPRIM * NPRIM;
// STO-6G hydrogen 1s (Basis Set Exchange)
static const double sto6_exp[NPRIM] = {35.52322122, 6.513143725, 1.822142904,
                                       0.6259552659, 0.2430767471, 0.1001124280};
static const double sto6_coef[NPRIM] = {0.009163596281, 0.04936149294, 0.1685383049,
                                        0.3705627997, 0.4164915298, 0.1303340841};

template <typename T> struct Pair { T x, y, z, p, k; };

template <typename T> __device__ T boys0(T t)
{
    if (t < T(1e-12))
        return T(1) - t / T(3);
    T x = sqrt(t);
    return T(0.88622692545275801365) * erf(x) / x;
}

template <typename T>
__global__ void quartets(const Pair<T> *__restrict__ pairs, long long nunique, T *__restrict__ out)
{
    long long q = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (q >= nunique)
        return;
    long long ij = (long long)((sqrt(8.0 * (double)q + 1.0) - 1.0) / 2.0);
    while (ij * (ij + 1) / 2 > q)
        ij--;
    while ((ij + 1) * (ij + 2) / 2 <= q)
        ij++;
    long long kl = q - ij * (ij + 1) / 2;
    const Pair<T> *A = pairs + ij * NPP, *B = pairs + kl * NPP;
    T sum = 0;
    for (int a = 0; a < NPP; a++) {
        Pair<T> P = A[a];
        for (int b = 0; b < NPP; b++) {
            Pair<T> Q = B[b];
            T s = P.p + Q.p;
            T dx = P.x - Q.x, dy = P.y - Q.y, dz = P.z - Q.z;
            T t = P.p * Q.p / s * (dx * dx + dy * dy + dz * dz);
            sum += P.k * Q.k / sqrt(s) * boys0(t);
        }
    }
    out[q] = sum;
}

template <typename T>
static void run(const std::vector<Pair<double>> &hp, long long npair, const char *name)
{
    long long nunique = npair * (npair + 1) / 2;
    std::vector<Pair<T>> h(hp.size());
    for (size_t i = 0; i < hp.size(); i++)
        h[i] = {T(hp[i].x), T(hp[i].y), T(hp[i].z), T(hp[i].p), T(hp[i].k)};
    Pair<T> *dp;
    T *dout;
    CK(cudaMalloc(&dp, h.size() * sizeof(Pair<T>)));
    CK(cudaMalloc(&dout, nunique * sizeof(T)));
    CK(cudaMemcpy(dp, h.data(), h.size() * sizeof(Pair<T>), cudaMemcpyHostToDevice));
    int block = 128;
    long long grid = (nunique + block - 1) / block;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    quartets<T><<<grid, block>>>(dp, nunique, dout); // warm-up
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<float> ms(5);
    for (auto &m : ms) {
        CK(cudaEventRecord(e0));
        quartets<T><<<grid, block>>>(dp, nunique, dout);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&m, e0, e1));
    }
    std::sort(ms.begin(), ms.end());
    std::vector<T> out(nunique);
    CK(cudaMemcpy(out.data(), dout, nunique * sizeof(T), cudaMemcpyDeviceToHost));
    double sum = 0;
    for (T v : out)
        sum += (double)v;
    double prims = (double)nunique * NPP * NPP;
    printf("peer %s: %lld unique quartets, %.4f ms (median of 5), %.4g primitive quartets/s, "
           "sum %.12e\n",
           name, nunique, ms[2], prims / (ms[2] * 1e-3), sum);
    CK(cudaFree(dp));
    CK(cudaFree(dout));
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: peer_eri NX NY NZ [spacing]\n");
        return 2;
    }
    int nx = atoi(argv[1]), ny = atoi(argv[2]), nz = atoi(argv[3]);
    double h = argc > 4 ? atof(argv[4]) : 1.4;
    int n = nx * ny * nz;
    std::vector<double> cx(n), cy(n), cz(n);
    for (int z = 0, m = 0; z < nz; z++)
        for (int y = 0; y < ny; y++)
            for (int x = 0; x < nx; x++, m++) {
                cx[m] = x * h;
                cy[m] = y * h;
                cz[m] = z * h;
            }
    // contraction coefficients with primitive norms, contraction normalised
    double c[NPRIM], norm = 0;
    for (int a = 0; a < NPRIM; a++)
        c[a] = sto6_coef[a] * pow(2 * sto6_exp[a] / M_PI, 0.75);
    for (int a = 0; a < NPRIM; a++)
        for (int b = 0; b < NPRIM; b++)
            norm += c[a] * c[b] * pow(M_PI / (sto6_exp[a] + sto6_exp[b]), 1.5);
    for (int a = 0; a < NPRIM; a++)
        c[a] /= sqrt(norm);
    long long npair = (long long)n * (n + 1) / 2;
    std::vector<Pair<double>> pairs(npair * NPP);
    const double kfac = sqrt(2.0) * pow(M_PI, 1.25);
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) {
            long long ij = (long long)i * (i + 1) / 2 + j;
            double dx = cx[i] - cx[j], dy = cy[i] - cy[j], dz = cz[i] - cz[j];
            double r2 = dx * dx + dy * dy + dz * dz;
            for (int a = 0; a < NPRIM; a++)
                for (int b = 0; b < NPRIM; b++) {
                    double ea = sto6_exp[a], eb = sto6_exp[b], p = ea + eb;
                    pairs[ij * NPP + a * NPRIM + b] = {
                        (ea * cx[i] + eb * cx[j]) / p, (ea * cy[i] + eb * cy[j]) / p,
                        (ea * cz[i] + eb * cz[j]) / p, p,
                        kfac * c[a] * c[b] * exp(-ea * eb / p * r2) / p};
                }
        }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("peer device: %s; %dx%dx%d STO-6G hydrogen lattice, %d functions\n", prop.name, nx, ny,
           nz, n);
    run<double>(pairs, npair, "fp64");
    run<float>(pairs, npair, "fp32");
    return 0;
}
