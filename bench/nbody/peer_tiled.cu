// Peer for the GPU run: the GPU Gems 3 (ch. 31, Nyland, Harris, Prins) tiled
// all-pairs kernel written directly in CUDA, single precision: one body per
// thread, tiles of blockDim bodies in shared memory, rsqrtf, 20 FLOPs per
// interaction. Times the force kernel alone with CUDA events (median of 5
// after a warm-up). Usage: peer_tiled LOG2N... ; prints one line per N.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define BLOCK 256

__global__ void accel_tiled(const float4 *__restrict__ body, float4 *__restrict__ acc, int n,
                            float eps2)
{
    __shared__ float4 tile[BLOCK];
    const int i = blockIdx.x * BLOCK + threadIdx.x;
    const float4 bi = body[i];
    float ax = 0.f, ay = 0.f, az = 0.f;
    for (int j0 = 0; j0 < n; j0 += BLOCK) {
        tile[threadIdx.x] = body[j0 + threadIdx.x];
        __syncthreads();
#pragma unroll 8
        for (int k = 0; k < BLOCK; k++) {
            const float4 b = tile[k];
            const float dx = b.x - bi.x, dy = b.y - bi.y, dz = b.z - bi.z;
            const float r2 = fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, eps2)));
            const float inv = rsqrtf(r2);
            const float s = b.w * inv * inv * inv;
            ax = fmaf(dx, s, ax);
            ay = fmaf(dy, s, ay);
            az = fmaf(dz, s, az);
        }
        __syncthreads();
    }
    acc[i] = make_float4(ax, ay, az, 0.f);
}

#define CUDA_OK(call)                                                                   \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                 \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

int main(int argc, char **argv)
{
    cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    printf("peer device: %s\n", prop.name);
    for (int a = 1; a < argc; a++) {
        const int n = 1 << atoi(argv[a]);
        std::vector<float4> host(n);
        unsigned s = 12345u;
        for (auto &b : host) { // uniform cube, equal masses: the timing does not depend on it
            s = s * 1664525u + 1013904223u; b.x = (s >> 8) * (1.f / 16777216.f);
            s = s * 1664525u + 1013904223u; b.y = (s >> 8) * (1.f / 16777216.f);
            s = s * 1664525u + 1013904223u; b.z = (s >> 8) * (1.f / 16777216.f);
            b.w = 1.f / n;
        }
        float4 *body, *acc;
        CUDA_OK(cudaMalloc(&body, n * sizeof(float4)));
        CUDA_OK(cudaMalloc(&acc, n * sizeof(float4)));
        CUDA_OK(cudaMemcpy(body, host.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
        cudaEvent_t t0, t1;
        CUDA_OK(cudaEventCreate(&t0));
        CUDA_OK(cudaEventCreate(&t1));
        std::vector<float> ms;
        for (int r = -1; r < 5; r++) {
            CUDA_OK(cudaEventRecord(t0));
            accel_tiled<<<n / BLOCK, BLOCK>>>(body, acc, n, 1e-4f);
            CUDA_OK(cudaEventRecord(t1));
            CUDA_OK(cudaEventSynchronize(t1));
            float m = 0;
            CUDA_OK(cudaEventElapsedTime(&m, t0, t1));
            if (r >= 0)
                ms.push_back(m);
        }
        std::sort(ms.begin(), ms.end());
        const double sec = ms[ms.size() / 2] * 1e-3, inter = (double)n * n;
        CUDA_OK(cudaMemcpy(host.data(), acc, sizeof(float4), cudaMemcpyDeviceToHost));
        printf("cuda-tiled single N=%d: median %.4f ms -> %.4e interactions/s, %.1f GFLOP/s "
               "(a0.x %.3g)\n", n, sec * 1e3, inter / sec, inter * 20 / sec * 1e-9, host[0].x);
        cudaFree(body);
        cudaFree(acc);
        cudaEventDestroy(t0);
        cudaEventDestroy(t1);
    }
    return 0;
}
