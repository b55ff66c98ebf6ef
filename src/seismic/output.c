/* Receiver traces as SEG-Y rev 1 (big-endian, IEEE float) and CSV. Files
 * go through scl_outfile (streamcl.h), so a failure leaves no partial file. */
#include "streamcl/seismic.h"
#include "streamcl/grid3d.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static scl_status say(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return SCL_ERR_IO;
}

/* ASCII to EBCDIC (code page 037) for the characters the textual header
 * uses; anything else becomes a space. */
static unsigned char ebcdic(char ch)
{
    static const char *punct = " .<(+|&!$*);-/,%_>?:#@'=\"";
    static const unsigned char pcode[] = {0x40, 0x4B, 0x4C, 0x4D, 0x4E, 0x4F, 0x50, 0x5A, 0x5B,
                                          0x5C, 0x5D, 0x5E, 0x60, 0x61, 0x6B, 0x6C, 0x6D, 0x6E,
                                          0x6F, 0x7A, 0x7B, 0x7C, 0x7D, 0x7E, 0x7F};
    if (ch >= '0' && ch <= '9')
        return (unsigned char)(0xF0 + (ch - '0'));
    if (ch >= 'a' && ch <= 'i')
        return (unsigned char)(0x81 + (ch - 'a'));
    if (ch >= 'j' && ch <= 'r')
        return (unsigned char)(0x91 + (ch - 'j'));
    if (ch >= 's' && ch <= 'z')
        return (unsigned char)(0xA2 + (ch - 's'));
    if (ch >= 'A' && ch <= 'I')
        return (unsigned char)(0xC1 + (ch - 'A'));
    if (ch >= 'J' && ch <= 'R')
        return (unsigned char)(0xD1 + (ch - 'J'));
    if (ch >= 'S' && ch <= 'Z')
        return (unsigned char)(0xE2 + (ch - 'S'));
    const char *p = ch ? strchr(punct, ch) : NULL;
    return p ? pcode[p - punct] : 0x40;
}

static void be16(unsigned char *p, int v)
{
    const uint16_t u = (uint16_t)(int16_t)v;
    p[0] = (unsigned char)(u >> 8);
    p[1] = (unsigned char)u;
}

static void be32(unsigned char *p, int32_t v)
{
    const uint32_t u = (uint32_t)v;
    p[0] = (unsigned char)(u >> 24);
    p[1] = (unsigned char)(u >> 16);
    p[2] = (unsigned char)(u >> 8);
    p[3] = (unsigned char)u;
}

/* Metres to centimetres for coordinates written with scalar -100. */
static int32_t cm(double metres)
{
    const double v = floor(metres * 100 + 0.5);
    return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

static const char *comp_name[SCL_SEIS_NCOMP] = {"vx", "vy", "vz", "p"};

/* Commit, or remove the temporary, after writing (ok = 0: a write failed). */
static scl_status finish(scl_outfile *o, int ok, char *err, size_t errlen)
{
    if (!ok) {
        scl_outfile_abort(o);
        return say(err, errlen, "%s: write failed", o->path);
    }
    return scl_outfile_commit(o, err, errlen);
}

scl_status scl_seis_write_segy(const char *path, const scl_seis_model *m,
                               const scl_seis_config *c, const float *traces, int comp,
                               int decimate, char *err, size_t errlen)
{
    if (comp < 0 || comp >= SCL_SEIS_NCOMP || decimate < 1)
        return say(err, errlen, "%s: bad component %d or decimation %d", path, comp, decimate);
    const double us = c->dt * decimate * 1e6;
    const long dt_us = lround(us);
    if (dt_us < 1 || dt_us > 32767 || fabs(us - (double)dt_us) > 1e-6 * us)
        return say(err, errlen,
                   "%s: the sample interval %.9g s is not a whole number of microseconds in "
                   "[1, 32767] (SEG-Y stores it so); choose dt or the decimation accordingly",
                   path, c->dt * decimate);
    const long ns = c->steps / decimate;
    if (ns > 32767)
        return say(err, errlen, "%s: %ld samples per trace; SEG-Y allows 32767 (decimate more)",
                   path, ns);
    scl_outfile o;
    scl_status st = scl_outfile_open(&o, path, 1, err, errlen);
    if (st != SCL_OK)
        return st;
    FILE *f = o.f;

    /* 3200-byte textual header, 40 card images of 80 columns, EBCDIC */
    char text[40][200];
    memset(text, 0, sizeof text);
    for (int l = 0; l < 40; l++)
        snprintf(text[l], sizeof text[l], "C%2d", l + 1);
    snprintf(text[0], sizeof text[0], "C 1 STREAMCL SEISMIC 3D ELASTIC VELOCITY-STRESS FDTD");
    snprintf(text[1], sizeof text[1], "C 2 COMPONENT %s (%s)", comp_name[comp],
             comp == SCL_SEIS_P ? "PRESSURE PA, AT (N+1) DT" : "PARTICLE VELOCITY M/S, AT (N+1/2) DT");
    snprintf(text[2], sizeof text[2], "C 3 GRID %d X %d X %d CELLS, H = %.6g M, ORDER %d", m->nx, m->ny, m->nz,
             m->h, c->order);
    snprintf(text[3], sizeof text[3], "C 4 DT %.9g S, SAMPLE INTERVAL %ld US, %ld SAMPLES, %d RECEIVERS", c->dt,
             dt_us, ns, c->nreceivers);
    snprintf(text[4], sizeof text[4], "C 5 COORDINATES IN CM (SCALAR -100), X Y ALONG THE GRID, DEPTH DOWN");
    snprintf(text[38], sizeof text[38], "C39 SEG Y REV1");
    snprintf(text[39], sizeof text[39], "C40 END TEXTUAL HEADER");
    unsigned char card[3200];
    for (int l = 0; l < 40; l++) {
        size_t len = strlen(text[l]);
        for (int q = 0; q < 80; q++)
            card[l * 80 + q] = ebcdic(q < (int)len ? text[l][q] : ' ');
    }
    fwrite(card, 1, sizeof card, f);

    unsigned char bin[400] = {0};
    be32(bin + 0, 1);                 /* job */
    be32(bin + 4, 1);                 /* line */
    be32(bin + 8, 1);                 /* reel */
    be16(bin + 12, c->nreceivers > 32767 ? 32767 : c->nreceivers);
    be16(bin + 16, (int)dt_us);
    be16(bin + 18, (int)dt_us);
    be16(bin + 20, (int)ns);
    be16(bin + 22, (int)ns);
    be16(bin + 24, 5);                /* IEEE float */
    be16(bin + 26, 1);                /* ensemble fold */
    be16(bin + 28, 1);                /* sorting: as recorded */
    be16(bin + 54, 1);                /* metres */
    be16(bin + 300, 0x0100);          /* revision 1.0 */
    be16(bin + 302, 1);               /* fixed trace length */
    be16(bin + 304, 0);               /* no extended textual headers */
    fwrite(bin, 1, sizeof bin, f);

    const double sx = c->nsources ? c->sources[0].i * m->h : 0;
    const double sy = c->nsources ? c->sources[0].j * m->h : 0;
    const double sz = c->nsources ? c->sources[0].k * m->h : 0;
    unsigned char *buf = malloc((size_t)ns * 4 + 240);
    if (!buf) {
        scl_outfile_abort(&o);
        return say(err, errlen, "%s: out of memory", path);
    }
    int ok = 1;
    for (int r = 0; r < c->nreceivers && ok; r++) {
        unsigned char *th = buf;
        memset(th, 0, 240);
        be32(th + 0, r + 1);          /* sequence in line */
        be32(th + 4, r + 1);          /* sequence in file */
        be32(th + 8, 1);              /* field record */
        be32(th + 12, r + 1);         /* trace in field record */
        be32(th + 16, 1);             /* source point */
        be32(th + 20, 1);             /* ensemble */
        be32(th + 24, r + 1);         /* trace in ensemble */
        be16(th + 28, 1);             /* seismic data */
        be16(th + 34, 1);             /* production */
        be32(th + 40, cm(-c->receivers[r].k * m->h)); /* group elevation */
        be32(th + 48, cm(sz));        /* source depth */
        be16(th + 68, -100);          /* elevation scalar */
        be16(th + 70, -100);          /* coordinate scalar */
        be32(th + 72, cm(sx));
        be32(th + 76, cm(sy));
        be32(th + 80, cm(c->receivers[r].i * m->h));
        be32(th + 84, cm(c->receivers[r].j * m->h));
        be16(th + 88, 1);             /* length units */
        be16(th + 114, (int)ns);
        be16(th + 116, (int)dt_us);
        const float *t = traces + ((size_t)r * SCL_SEIS_NCOMP + (size_t)comp) * (size_t)c->steps;
        for (long n = 0; n < ns; n++) {
            uint32_t u;
            memcpy(&u, &t[n * decimate], 4);
            be32(buf + 240 + 4 * n, (int32_t)u);
        }
        ok = fwrite(buf, 1, 240 + (size_t)ns * 4, f) == 240 + (size_t)ns * 4;
    }
    free(buf);
    return finish(&o, ok, err, errlen);
}

scl_status scl_seis_write_csv(const char *path, const scl_seis_config *c, const float *traces,
                              int decimate, char *err, size_t errlen)
{
    if (decimate < 1)
        return say(err, errlen, "%s: bad decimation %d", path, decimate);
    scl_outfile o;
    scl_status st = scl_outfile_open(&o, path, 0, err, errlen);
    if (st != SCL_OK)
        return st;
    FILE *f = o.f;
    fprintf(f, "t_velocity,t_pressure");
    for (int r = 0; r < c->nreceivers; r++)
        for (int q = 0; q < SCL_SEIS_NCOMP; q++)
            fprintf(f, ",r%d_%s", r + 1, comp_name[q]);
    fputc('\n', f);
    for (long n = 0; n < c->steps; n += decimate) {
        fprintf(f, "%.9g,%.9g", (n + 0.5) * c->dt, (n + 1.0) * c->dt);
        for (int r = 0; r < c->nreceivers; r++)
            for (int q = 0; q < SCL_SEIS_NCOMP; q++)
                fprintf(f, ",%.9g",
                        traces[((size_t)r * SCL_SEIS_NCOMP + (size_t)q) * (size_t)c->steps + (size_t)n]);
        fputc('\n', f);
    }
    return finish(&o, 1, err, errlen);
}
