/* Host side of the device storage: AA-pattern slot layouts, the fp16 encoding
 * (relative to rest equilibrium), and the deferred acceleration of row ny-2. */
#include "layout.h"

#include <math.h>
#include <string.h>

static const int cx[SCL_LBM_Q] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
static const int cy[SCL_LBM_Q] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
static const int opposite[SCL_LBM_Q] = {0, 3, 4, 1, 2, 7, 8, 5, 6};

size_t lbm_layout_index(lbm_layout layout, int k, int x, int y, int nx, int ny)
{
    size_t ncell = (size_t)nx * (size_t)ny;
    int slot = k;
    if (layout == LBM_LAYOUT_AA_EVEN) {
        slot = opposite[k];
    } else if (layout == LBM_LAYOUT_AA_ODD) {
        x = (x + cx[k] + nx) % nx;
        y = (y + cy[k] + ny) % ny;
    }
    return (size_t)slot * ncell + (size_t)x + (size_t)y * (size_t)nx;
}

void lbm_storage_weights(float density, float wk[SCL_LBM_Q])
{
    /* same float expressions as the kernel's arguments */
    for (int k = 0; k < SCL_LBM_Q; k++)
        wk[k] = k == 0 ? density * (4.0f / 9.0f)
              : k <= 4 ? density * (1.0f / 9.0f)
                       : density * (1.0f / 36.0f);
}

uint16_t lbm_float_to_half(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t abs = u & 0x7fffffffu;
    if (abs >= 0x7f800000u) /* Inf or NaN */
        return (uint16_t)(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
    if (abs >= 0x477ff000u) /* rounds to >= 65520: overflow */
        return (uint16_t)(sign | 0x7c00u);
    if (abs < 0x38800000u) { /* below the smallest normal half: subnormal or zero */
        if (abs < 0x33000000u)
            return sign;
        uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
        int shift = 126 - (int)(abs >> 23); /* to units of 2^-24 */
        uint32_t q = mant >> shift, rem = mant & ((1u << shift) - 1u), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (q & 1u)))
            q++;
        return (uint16_t)(sign | q);
    }
    uint32_t h = ((abs >> 13) - (112u << 10)); /* rebias exponent 127 -> 15 */
    uint32_t rem = abs & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
        h++; /* a carry into the exponent is the correct rounding */
    return (uint16_t)(sign | h);
}

float lbm_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
    float v;
    if (exp == 0)
        v = ldexpf((float)mant, -24);
    else if (exp == 31)
        v = mant ? NAN : INFINITY;
    else
        v = ldexpf((float)(mant | 0x400u), (int)exp - 25);
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    u |= sign;
    memcpy(&v, &u, sizeof v);
    return v;
}

void lbm_encode(const scl_lbm_params *p, lbm_layout layout, int fp16, const float *natural,
                void *raw)
{
    size_t ncell = (size_t)p->nx * (size_t)p->ny;
    float wk[SCL_LBM_Q];
    lbm_storage_weights(p->density, wk);
    for (int k = 0; k < SCL_LBM_Q; k++) {
        float inv = 1.0f / wk[k];
        for (int y = 0; y < p->ny; y++)
            for (int x = 0; x < p->nx; x++) {
                float v = natural[(size_t)k * ncell + (size_t)x + (size_t)y * p->nx];
                size_t r = lbm_layout_index(layout, k, x, y, p->nx, p->ny);
                if (fp16)
                    ((uint16_t *)raw)[r] = lbm_float_to_half(v * inv - 1.0f);
                else
                    ((float *)raw)[r] = v;
            }
    }
}

void lbm_decode(const scl_lbm_params *p, lbm_layout layout, int fp16, const void *raw,
                float *natural)
{
    size_t ncell = (size_t)p->nx * (size_t)p->ny;
    float wk[SCL_LBM_Q];
    lbm_storage_weights(p->density, wk);
    for (int k = 0; k < SCL_LBM_Q; k++)
        for (int y = 0; y < p->ny; y++)
            for (int x = 0; x < p->nx; x++) {
                size_t r = lbm_layout_index(layout, k, x, y, p->nx, p->ny);
                float v = fp16 ? fmaf(lbm_half_to_float(((const uint16_t *)raw)[r]), wk[k], wk[k])
                               : ((const float *)raw)[r];
                natural[(size_t)k * ncell + (size_t)x + (size_t)y * p->nx] = v;
            }
}

void lbm_accelerate_row(const scl_lbm_params *p, const unsigned char *obstacles, float *f,
                        unsigned char *flags)
{
    lbm_accelerate_row_at(p, p->ny - 2, obstacles, f, flags);
}

void lbm_undo_acceleration(const scl_lbm_params *p, const unsigned char *flags, float *f)
{
    lbm_undo_acceleration_at(p, p->ny - 2, flags, f);
}

void lbm_accelerate_row_at(const scl_lbm_params *p, int y, const unsigned char *obstacles,
                           float *f, unsigned char *flags)
{
    size_t n = (size_t)p->nx * (size_t)p->ny;
    float w1 = p->density * p->accel / 9.0f, w2 = p->density * p->accel / 36.0f;
    size_t row = (size_t)y * (size_t)p->nx;
    for (int x = 0; x < p->nx; x++) {
        size_t i = row + (size_t)x;
        int go = !obstacles[i] && f[3 * n + i] - w1 > 0.0f && f[6 * n + i] - w2 > 0.0f &&
                 f[7 * n + i] - w2 > 0.0f;
        if (go) {
            f[1 * n + i] += w1;
            f[5 * n + i] += w2;
            f[8 * n + i] += w2;
            f[3 * n + i] -= w1;
            f[6 * n + i] -= w2;
            f[7 * n + i] -= w2;
        }
        if (flags)
            flags[x] = (unsigned char)go;
    }
}

void lbm_undo_acceleration_at(const scl_lbm_params *p, int y, const unsigned char *flags,
                              float *f)
{
    size_t n = (size_t)p->nx * (size_t)p->ny;
    float w1 = p->density * p->accel / 9.0f, w2 = p->density * p->accel / 36.0f;
    size_t row = (size_t)y * (size_t)p->nx;
    for (int x = 0; x < p->nx; x++) {
        if (!flags[x])
            continue;
        size_t i = row + (size_t)x;
        f[1 * n + i] -= w1;
        f[5 * n + i] -= w2;
        f[8 * n + i] -= w2;
        f[3 * n + i] += w1;
        f[6 * n + i] += w2;
        f[7 * n + i] += w2;
    }
}
