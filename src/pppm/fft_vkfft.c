/* In-place complex 3D FFTs for the whole-grid PPPM step, by VkFFT's OpenCL
 * back end (Debian libvkfft-dev, a header-only C library that generates and
 * builds its kernels at plan time). VkFFT needs the raw OpenCL objects, so
 * this file (alone in the module) uses streamcl/opencl.h; its work is queued
 * on the context's in-order queue between our own launches. */
#include "pppm_internal.h"

#include "core/fail.h"

#if !STREAMCL_HAVE_VKFFT
/* built without vkFFT.h: the whole-grid path is unavailable */
struct pppm_fft {
    int unused;
};

scl_status pppm_fft_create(scl_context *ctx, const int n[3], int fp64, scl_stream *buffer,
                           pppm_fft **out)
{
    (void)n;
    (void)fp64;
    (void)buffer;
    *out = NULL;
    return scl_fail(ctx, SCL_ERR_UNSUPPORTED, "scl_pppm_solver_set",
                    "this libstreamcl was built without VkFFT (vkFFT.h, Debian libvkfft-dev): "
                    "no device FFTs");
}

scl_status pppm_fft_run(pppm_fft *f, scl_stream *s, int inverse)
{
    (void)f;
    (void)s;
    (void)inverse;
    return SCL_ERR_UNSUPPORTED;
}

void pppm_fft_free(pppm_fft *f)
{
    (void)f;
}

#else
#define VKFFT_BACKEND 3
#include "streamcl/opencl.h"

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
#include <vkFFT.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#include <stdlib.h>
#include <string.h>

struct pppm_fft {
    scl_context *ctx;
    VkFFTApplication app;
    cl_platform_id platform;
    cl_device_id device;
    cl_context cl;
    cl_command_queue queue;
    cl_mem mem;
    uint64_t bytes;
};

scl_status pppm_fft_create(scl_context *ctx, const int n[3], int fp64, scl_stream *buffer,
                           pppm_fft **out)
{
    *out = NULL;
    pppm_fft *f = calloc(1, sizeof *f);
    if (!f) return scl_fail(ctx, SCL_ERR_MEMORY, "scl_pppm_solver_set", "out of host memory");
    f->ctx = ctx;
    f->device = scl_cl_device(ctx);
    f->cl = scl_cl_context(ctx);
    f->queue = scl_queue(ctx);
    f->mem = scl_stream_mem(buffer);
    f->bytes = scl_stream_bytes(buffer);
    clGetDeviceInfo(f->device, CL_DEVICE_PLATFORM, sizeof f->platform, &f->platform, NULL);
    VkFFTConfiguration cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.FFTdim = 3;
    for (int d = 0; d < 3; d++) cfg.size[d] = (uint64_t)n[d];
    cfg.platform = &f->platform;
    cfg.device = &f->device;
    cfg.context = &f->cl;
    cfg.doublePrecision = fp64 ? 1 : 0;
    cfg.buffer = &f->mem;
    cfg.bufferSize = &f->bytes;
    VkFFTResult r = initializeVkFFT(&f->app, cfg);
    if (r != VKFFT_SUCCESS) {
        free(f);
        return scl_fail(ctx, SCL_ERR_OPENCL, "scl_pppm_solver_set",
                        "VkFFT could not plan the %dx%dx%d %s FFT (VkFFTResult %d)", n[0], n[1],
                        n[2], fp64 ? "double" : "float", (int)r);
    }
    *out = f;
    return SCL_OK;
}

scl_status pppm_fft_run(pppm_fft *f, scl_stream *s, int inverse)
{
    cl_mem mem = scl_stream_mem(s);
    VkFFTLaunchParams lp;
    memset(&lp, 0, sizeof lp);
    lp.commandQueue = &f->queue;
    lp.buffer = &mem;
    VkFFTResult r = VkFFTAppend(&f->app, inverse ? 1 : -1, &lp);
    if (r != VKFFT_SUCCESS)
        return scl_fail(f->ctx, SCL_ERR_OPENCL, "scl_pppm_solve_start",
                        "VkFFT %s transform failed (VkFFTResult %d)", inverse ? "inverse" : "forward",
                        (int)r);
    return SCL_OK;
}

void pppm_fft_free(pppm_fft *f)
{
    if (!f) return;
    deleteVkFFT(&f->app);
    free(f);
}
#endif
