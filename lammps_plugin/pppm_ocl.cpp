/* kspace_style pppm/ocl: see the header. The particle-mesh math is
 * libstreamcl's (src/pppm/, cl/pppm.cl); this file moves data between
 * LAMMPS's PPPM and it, and refuses what it does not support. */
#include "pppm_ocl.h"

#include "fix_streamcl_collect.h"
#include "device_styles.h"
#include "streamcl_context.h"
#include "strf.h"

#include "atom.h"
#include "comm.h"
#include "domain.h"
#include "error.h"
#include "force.h"
#include "lammps_compat.h"
#include "math_const.h"
#include "memory.h"
#include "modify.h"
#include "neighbor.h"
#include "pair.h"
#include "update.h"
#include "utils.h"

#include <mpi.h>

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

using namespace LAMMPS_NS;
using namespace MathConst;

static_assert(std::is_same<FFT_SCALAR, double>::value,
              "pppm/ocl exchanges bricks as double: build against a LAMMPS with double FFTs");

// pppm.cpp's OFFSET (file-local there): keeps the grid index casts away from 0
static const int PPPM_OFFSET = 16384;

const char *const PPPMOCL::STYLE = "pppm/ocl";

KSpace *PPPMOCL::creator(LAMMPS *lmp)
{
  return new PPPMOCL(lmp);
}

PPPMOCL::PPPMOCL(LAMMPS *lmp) :
    PPPM(lmp), fp64(0), fft_device(1), ranks_keyword(RANKS_AUTO), ranks_mode(RANKS_DEVICE), kspace_dirty(true), pending_solve(false),
    pending_energy(false), pending_virial(false), pending_volume(0), pending_qscale(0), prestarted(-1), ctx(nullptr), engine(nullptr), engine_params(), pending(false),
    pending_nlocal(0), pending_gathered(0), local_rank(0), stats_base(), wait_time(0), host_time(0)
{
  group_group_enable = 0;   // compute group/group then says kspace is unsupported
  read_env();
}

PPPMOCL::~PPPMOCL()
{
  if (engine) scl_pppm_free(engine);
  StreamclContext::release(lmp, ctx, StreamclContext::KSPACE);
}

/* defaults shared with pair_style lj/charmm/coul/long/ocl (for -sf ocl runs) */
void PPPMOCL::read_env()
{
  scl_env_options env;
  memset(&env, 0, sizeof env);
  scl_env_options_read(&env);
  device_spec = env.context.device ? env.context.device : "";
  fp64 = 0;
  const char *e = getenv("STREAMCL_PRECISION");
  if (e && *e) {
    if (!strcmp(e, "double")) fp64 = 1;
    else if (strcmp(e, "mixed") && strcmp(e, "single"))
      error->all(FLERR, strf("STREAMCL_PRECISION='%s' is invalid: use single, mixed or double", e));
  }
}

/* kspace_style pppm/ocl accuracy [device SPEC] [precision single|mixed|double] [fft device|host]
   [ranks auto|gather|device|host] */
void PPPMOCL::settings(int narg, char **arg)
{
  if (narg < 1)
    error->all(FLERR, "Illegal kspace_style pppm/ocl command: expected accuracy "
                      "[device SPEC] [precision single|mixed|double] [fft device|host] "
                      "[ranks auto|gather|device|host]");
  PPPM::settings(1, arg);
  read_env();
  parse_keywords(narg - 1, arg + 1);
}

void PPPMOCL::parse_keywords(int narg, char **arg)
{
  for (int i = 0; i < narg; i += 2) {
    const std::string key = arg[i];
    if (key != "device" && key != "precision" && key != "fft" && key != "ranks")
      error->all(FLERR, strf("Unknown kspace_style pppm/ocl keyword '%s': expected device, "
                             "precision, fft or ranks", arg[i]));
    if (i + 1 >= narg)
      error->all(FLERR, strf("kspace_style pppm/ocl keyword '%s' needs a value", arg[i]));
    const char *v = arg[i + 1];
    if (key == "device") {
      device_spec = v;
    } else if (key == "ranks") {
      if (!strcmp(v, "device")) ranks_keyword = RANKS_DEVICE;
      else if (!strcmp(v, "host")) ranks_keyword = RANKS_HOST;
      else if (!strcmp(v, "gather")) ranks_keyword = RANKS_GATHER;
      else if (!strcmp(v, "auto")) ranks_keyword = RANKS_AUTO;
      else error->all(FLERR, strf("kspace_style pppm/ocl: ranks '%s' is invalid: use auto, gather, "
                                  "device or host", v));
    } else if (key == "fft") {
      if (!strcmp(v, "device")) fft_device = 1;
      else if (!strcmp(v, "host")) fft_device = 0;
      else error->all(FLERR, strf("kspace_style pppm/ocl: fft '%s' is invalid: use device or host", v));
    } else if (!strcmp(v, "double")) {
      fp64 = 1;
    } else if (!strcmp(v, "mixed") || !strcmp(v, "single")) {
      fp64 = 0;   // single: the grid math is float either way, the charge sums exact
    } else {
      error->all(FLERR, strf("kspace_style pppm/ocl: precision '%s' is invalid: use single, "
                             "mixed or double", v));
    }
  }
}

void PPPMOCL::fail(const char *file, int line, const std::string &what, scl_status st)
{
  std::string msg = strf("kspace_style pppm/ocl: %s failed (%s): %s", what.c_str(),
                         scl_status_name(st), ctx ? scl_last_error(ctx) : "");
  if (st == SCL_ERR_INPUT)
    msg += " -- an atom moved too far between re-neighborings (neigh_modify every 1 delay 0 "
           "check yes), or coordinates/charges are not finite";
  else if (st == SCL_ERR_UNSUPPORTED)
    msg += " -- use precision mixed on devices without fp64";
  error->one(file, line, msg);
}

void PPPMOCL::init()
{
  // refuse what the device path does not do, before PPPM::init() sets up
  if (domain->triclinic)
    error->all(FLERR, "kspace_style pppm/ocl does not support triclinic boxes: use kspace_style pppm");
  if (slabflag)
    error->all(FLERR, "kspace_style pppm/ocl does not support kspace_modify slab: use kspace_style pppm");
  if (differentiation_flag == 1)
    error->all(FLERR, "kspace_style pppm/ocl supports ik differentiation only, not kspace_modify "
                      "diff ad: use kspace_modify diff ik or kspace_style pppm");
  if (tip4pflag || dipoleflag || spinflag || dispersionflag)
    error->all(FLERR, "kspace_style pppm/ocl computes point-charge Coulomb only (no TIP4P, dipole, "
                      "spin or dispersion)");
  if (utils::strmatch(update->integrate_style, "^respa"))
    error->all(FLERR, "kspace_style pppm/ocl does not support run_style respa: use run_style verlet");

  PPPM::init();
  local_rank = StreamclContext::node_rank(world, nullptr);   // collective
  // 29Sep2021's set_grid_local() set boxlo; since 2022 only PPPM::compute()
  // does, and the engine's geometry (ranks gather too) reads it before that
  boxlo = domain->boxlo;
  ranks_mode = resolve_ranks_mode();
  if (!has_engine() && ctx) {
    // (rank 0 looked at its device to resolve ranks auto; or an earlier run's)
    if (engine) scl_pppm_free(engine);
    engine = nullptr;
    StreamclContext::release(lmp, ctx, StreamclContext::KSPACE);
    ctx = nullptr;
  }
  if (host_only()) {
    if (comm->me == 0)
      utils::logmesg(lmp, strf("kspace_style pppm/ocl: %d ranks: LAMMPS's host PPPM computes "
                               "kspace (ranks host%s; 'ranks gather' runs it on rank 0's device, "
                               "'ranks device' keeps the particle-mesh work on each rank's)\n",
                               comm->nprocs,
                               ranks_keyword == RANKS_AUTO
                                   ? ", chosen by ranks auto: a CPU device, several nodes or fft "
                                     "host, where LAMMPS's own code is the fastest"
                                   : ""));
    return;
  }
  if (gathered() && comm->me == 0)
    utils::logmesg(lmp, strf("kspace_style pppm/ocl: %d ranks: their atoms are gathered to rank "
                             "0, whose device computes the whole kspace step (ranks gather)\n",
                             comm->nprocs));
  if (gathered() && 3.0 * (double) atom->natoms > 2147483647.0)
    error->all(FLERR, strf("kspace_style pppm/ocl: ranks gather handles at most 715827882 atoms "
                           "(%ld here): use ranks host or ranks device", (long) atom->natoms));
  if (has_engine()) {
    create_context();
    if (fp64 && !scl_device(ctx)->fp64)
      error->one(FLERR, strf("kspace_style pppm/ocl: precision double needs fp64, which %s lacks: "
                             "use precision mixed", scl_device(ctx)->name));
  }

  // the fix that adds the forces in pre_reverse (shared with the ocl pair style)
  FixStreamclCollect::ensure(lmp);
  wait_time = host_time = 0.0;
}

/* ranks auto: gather on one node whose rank 0 has a GPU, else LAMMPS's host
   PPPM (on CPU devices LAMMPS's own code is faster). Collective. */
PPPMOCL::RanksMode PPPMOCL::resolve_ranks_mode()
{
  if (comm->nprocs == 1) return RANKS_DEVICE;
  if (ranks_keyword == RANKS_GATHER && !fft_device)
    error->all(FLERR, "kspace_style pppm/ocl: ranks gather needs the device FFTs: drop 'fft host' "
                      "or use ranks device");
  if (ranks_keyword != RANKS_AUTO) return ranks_keyword;
  if (!fft_device) return RANKS_HOST;
  MPI_Comm node;
  MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, comm->me, MPI_INFO_NULL, &node);
  int node_size = 0;
  MPI_Comm_size(node, &node_size);
  MPI_Comm_free(&node);
  if (node_size != comm->nprocs) return RANKS_HOST;   // the same on every rank
  int gpu = 0;
  if (comm->me == 0) {
    create_context();
    gpu = scl_device(ctx)->is_gpu;
  }
  MPI_Bcast(&gpu, 1, MPI_INT, 0, world);
  return gpu ? RANKS_GATHER : RANKS_HOST;
}

/* This rank's OpenCL context: the instance's, shared with the other /ocl
   styles (StreamclContext), for this rank's device (the pair style's rule:
   no device or "gpu" is the node's GPUs round robin by node-local rank, the
   first STREAMCL_GPUS of them). Kept while the device stays. Called by the
   ranks that drive an engine (after init() found local_rank); failures stop
   the run through error->one. */
void PPPMOCL::create_context()
{
  std::string spec, err;
  if (!StreamclContext::resolve(device_spec, local_rank, StreamclContext::env_gpus(), spec, &err))
    error->one(FLERR, strf("kspace_style pppm/ocl: no GPU for this rank: %s -- check the "
                           "'device' keyword / STREAMCL_DEVICE and STREAMCL_GPUS", err.c_str()));
  if (ctx && ctx_device_spec != spec) {
    if (engine) scl_pppm_free(engine);
    engine = nullptr;
    StreamclContext::release(lmp, ctx, StreamclContext::KSPACE);
    ctx = nullptr;
  }
  if (ctx) return;
  scl_status st = SCL_OK;
  ctx = StreamclContext::acquire(lmp, spec, StreamclContext::KSPACE, &st, err);
  if (!ctx)
    error->one(FLERR, strf("kspace_style pppm/ocl: no OpenCL device for '%s' (%s): %s -- check "
                           "the 'device' keyword / STREAMCL_DEVICE (cpu, gpu, P:D or a name; "
                           "'streamcl devices' lists them)",
                           spec.empty() ? "default" : spec.c_str(), scl_status_name(st),
                           err.c_str()));
  ctx_device_spec = spec;
}

void PPPMOCL::setup()
{
  PPPM::setup();
  boxlo = domain->boxlo;   // (see init())
  kspace_dirty = true;   // greensfn, fkx.. changed (box change, new grid)
  if (gathered()) gather_kspace();
}

void PPPMOCL::compute_group_group(int, int, int)
{
  error->all(FLERR, "kspace_style pppm/ocl does not support compute group/group with kspace yes: "
                    "use kspace_style pppm");
}

/* engine for the current brick; box-dependent values refreshed every step */
void PPPMOCL::ensure_engine()
{
  scl_pppm_params p;
  memset(&p, 0, sizeof p);
  p.order = order;
  p.lo[0] = nxlo_out; p.lo[1] = nylo_out; p.lo[2] = nzlo_out;
  p.hi[0] = nxhi_out; p.hi[1] = nyhi_out; p.hi[2] = nzhi_out;
  if (gathered()) gather_extent(p.lo, p.hi);
  for (int d = 0; d < 3; d++) p.boxlo[d] = boxlo[d];
  p.delinv[0] = delxinv; p.delinv[1] = delyinv; p.delinv[2] = delzinv;
  p.delvolinv = delvolinv;
  p.qscale = qqrd2e * scale;
  p.fp64 = fp64;
  // LAMMPS keeps x and q (and the gathered copies are ours) until collect();
  // STREAMCL_PPPM_INPUTS_STABLE=0|1 chooses (diagnosis)
  p.inputs_stable = 1;
  const char *stable = getenv("STREAMCL_PPPM_INPUTS_STABLE");
  if (stable && (!strcmp(stable, "0") || !strcmp(stable, "1"))) p.inputs_stable = stable[0] - '0';
  const scl_pppm_params &o = engine_params;
  const bool same = engine && o.order == p.order && o.fp64 == p.fp64 &&
      !memcmp(o.lo, p.lo, sizeof p.lo) && !memcmp(o.hi, p.hi, sizeof p.hi);
  scl_status st;
  if (same) {
    if (memcmp(&o, &p, sizeof p) && (st = scl_pppm_set_geometry(engine, &p)))
      fail(FLERR, "updating the grid geometry", st);
    engine_params = p;
    return;
  }
  if (engine) scl_pppm_free(engine);
  engine = nullptr;
  if ((st = scl_pppm_create(ctx, &p, &engine))) fail(FLERR, "creating the PPPM engine", st);
  engine_params = p;
}

/* ranks gather: the brick one rank would own, PPPM::set_grid_local's
   formulas over the whole box (every rank's atoms are within its sub-box +
   skin/2, so within the box + skin/2). */
void PPPMOCL::gather_extent(int lo[3], int hi[3]) const
{
  const double *prd = domain->prd, *blo = domain->boxlo, *bhi = domain->boxhi;
  const int n[3] = {nx_pppm, ny_pppm, nz_pppm};
  const double dist = 0.5 * neighbor->skin + qdist;
  for (int d = 0; d < 3; d++) {
    const int nlo = static_cast<int>((blo[d] - dist - blo[d]) * n[d] / prd[d] + shift) - PPPM_OFFSET;
    const int nhi = static_cast<int>((bhi[d] + dist - blo[d]) * n[d] / prd[d] + shift) - PPPM_OFFSET;
    lo[d] = nlo + nlower;
    hi[d] = nhi + nupper + (stagger_flag ? 1 : 0);
  }
}

/* ranks gather, at every setup (box change): rank 0 assembles the whole
   Green's function from the ranks' FFT bricks (PPPM::setup computed each
   rank's part) and the wave numbers of the whole grid; then sets up its
   device solver. Collective. */
void PPPMOCL::gather_kspace()
{
  const int nproc = comm->nprocs;
  const int mine[6] = {nxlo_fft, nxhi_fft, nylo_fft, nyhi_fft, nzlo_fft, nzhi_fft};
  std::vector<int> bricks(comm->me == 0 ? 6 * nproc : 6);
  MPI_Gather(mine, 6, MPI_INT, bricks.data(), 6, MPI_INT, 0, world);
  const int count = (nxhi_fft - nxlo_fft + 1) * (nyhi_fft - nylo_fft + 1) *
      (nzhi_fft - nzlo_fft + 1);
  std::vector<int> counts(comm->me == 0 ? nproc : 1), displs(comm->me == 0 ? nproc : 1);
  std::vector<double> parts;
  if (comm->me == 0) {
    int total = 0;
    for (int r = 0; r < nproc; r++) {
      const int *b = &bricks[6 * r];
      counts[r] = (b[1] - b[0] + 1) * (b[3] - b[2] + 1) * (b[5] - b[4] + 1);
      displs[r] = total;
      total += counts[r];
    }
    parts.resize(total > 0 ? total : 1);
  }
  MPI_Gatherv(greensfn, count, MPI_DOUBLE, parts.data(), counts.data(), displs.data(),
              MPI_DOUBLE, 0, world);
  int ok = 1;
  if (comm->me == 0) {
    const size_t nx = nx_pppm, ny = ny_pppm, nz = nz_pppm;
    gf_full.assign(nx * ny * nz, 0.0);
    for (int r = 0; r < nproc; r++) {
      const int *b = &bricks[6 * r];
      const double *g = &parts[displs[r]];
      for (int m = b[4]; m <= b[5]; m++)      // PPPM's order: z, y, x fastest
        for (int l = b[2]; l <= b[3]; l++)
          for (int k = b[0]; k <= b[1]; k++) gf_full[(m * ny + l) * nx + k] = *g++;
    }
    // the wave numbers of PPPM::setup, over the whole grid
    const double unit[3] = {MY_2PI / domain->xprd, MY_2PI / domain->yprd, MY_2PI / domain->zprd};
    const int n[3] = {nx_pppm, ny_pppm, nz_pppm};
    fk_full.resize(nx + ny + nz);
    double *fk = fk_full.data();
    for (int d = 0; d < 3; d++)
      for (int i = 0; i < n[d]; i++) *fk++ = unit[d] * (i - n[d] * (2 * i / n[d]));
    ensure_engine();
    scl_pppm_kspace k;
    k.nx = nx_pppm;
    k.ny = ny_pppm;
    k.nz = nz_pppm;
    k.greensfn = gf_full.data();
    k.fkx = fk_full.data();
    k.fky = k.fkx + nx;
    k.fkz = k.fky + ny;
    k.g_ewald = g_ewald;
    scl_status st = scl_pppm_solver_set(engine, &k);
    if (st == SCL_ERR_UNSUPPORTED) {
      error->warning(FLERR, strf("kspace_style pppm/ocl: %s -- ranks gather needs the device "
                                 "FFTs: LAMMPS's host PPPM computes kspace", scl_last_error(ctx)));
      ok = 0;
    } else if (st != SCL_OK) {
      fail(FLERR, "setting up the device FFT step (ranks gather)", st);
    }
    kspace_dirty = false;
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, world);
  if (!ok) ranks_mode = RANKS_HOST;   // the same on every rank
}

/* ranks gather: every rank's x and q to rank 0, which queues the whole step.
   Collective. */
void PPPMOCL::gather_atoms_and_start(bool tally)
{
  const int nproc = comm->nprocs, nlocal = atom->nlocal;
  const bool root = comm->me == 0;
  if (root) gather_counts.resize(2 * nproc), gather_displs.resize(2 * nproc);
  MPI_Gather(&nlocal, 1, MPI_INT, gather_counts.data(), 1, MPI_INT, 0, world);
  int total = 0;
  if (root) {
    for (int r = 0; r < nproc; r++) {   // atoms in [0, nproc), coordinates in [nproc, 2 nproc)
      gather_displs[r] = total;
      gather_counts[nproc + r] = 3 * gather_counts[r];
      gather_displs[nproc + r] = 3 * total;
      total += gather_counts[r];
    }
    gather_x.resize(3 * (size_t) MAX(total, 1));
    gather_q.resize(MAX(total, 1));
  }
  const double *x = nlocal ? atom->x[0] : nullptr;
  MPI_Gatherv(x, 3 * nlocal, MPI_DOUBLE, gather_x.data(), gather_counts.data() + nproc,
              gather_displs.data() + nproc, MPI_DOUBLE, 0, world);
  MPI_Gatherv(atom->q, nlocal, MPI_DOUBLE, gather_q.data(), gather_counts.data(),
              gather_displs.data(), MPI_DOUBLE, 0, world);
  if (root) {
    scl_status st = scl_pppm_solve_start(engine, total, gather_x.data(), gather_q.data(), tally);
    if (st != SCL_OK) fail(FLERR, "starting the device step (ranks gather)", st);
    pending_gathered = total;
  }
}

/* ranks gather: rank 0's forces back to their ranks (added to f), and the
   sums of energy and virial to every rank. Collective. */
void PPPMOCL::scatter_forces(double e, const double v[6], double *eout, double vout[6])
{
  const int nproc = comm->nprocs, nlocal = atom->nlocal;
  scatter_f.resize(3 * (size_t) MAX(nlocal, 1));
  MPI_Scatterv(gather_f.data(), comm->me == 0 ? gather_counts.data() + nproc : nullptr,
               comm->me == 0 ? gather_displs.data() + nproc : nullptr, MPI_DOUBLE,
               scatter_f.data(), 3 * nlocal, MPI_DOUBLE, 0, world);
  double *f = nlocal ? atom->f[0] : nullptr;
  for (int k = 0; k < 3 * nlocal; k++) f[k] += scatter_f[k];
  double ev[7] = {e, v[0], v[1], v[2], v[3], v[4], v[5]};
  if (pending_energy || pending_virial) MPI_Bcast(ev, 7, MPI_DOUBLE, 0, world);
  *eout = ev[0];
  for (int k = 0; k < 6; k++) vout[k] = ev[1 + k];
}

/* a step computed without reaching pre_reverse: stale, drained apart
   (ranks gather: rank 0 holds the whole step) */
void PPPMOCL::drain_stale_step()
{
  pending = pending_solve = deferred = false;
  if (!has_engine()) return;
  std::vector<double> scratch(3 * (size_t) MAX(gathered() ? pending_gathered : pending_nlocal, 1));
  scl_status st = scl_pppm_fieldforce_finish(engine, scratch.data());
  if (st != SCL_OK) fail(FLERR, "draining a stale step", st);
}

/* energy and virial of a host-path step: exactly PPPM::compute's sums */
void PPPMOCL::tally_sums(int nlocal)
{
  const double qscale = qqrd2e * scale;
  if (eflag_global) {
    double energy_all;
    MPI_Allreduce(&energy, &energy_all, 1, MPI_DOUBLE, MPI_SUM, world);
    energy = energy_all;
    energy *= 0.5 * volume;
    energy -= g_ewald * qsqsum / MY_PIS + MY_PI2 * qsum * qsum / (g_ewald * g_ewald * volume);
    energy *= qscale;
  }
  if (vflag_global) {
    double virial_all[6];
    MPI_Allreduce(virial, virial_all, 6, MPI_DOUBLE, MPI_SUM, world);
    for (int i = 0; i < 6; i++) virial[i] = 0.5 * qscale * volume * virial_all[i];
  }
  if (evflag_atom) {
    const double *q = atom->q;
    if (eflag_atom)
      for (int i = 0; i < nlocal; i++) {
        eatom[i] *= 0.5;
        eatom[i] -= g_ewald * q[i] * q[i] / MY_PIS + MY_PI2 * q[i] * qsum / (g_ewald * g_ewald * volume);
        eatom[i] *= qscale;
      }
    if (vflag_atom)
      for (int i = 0; i < nlocal; i++)
        for (int j = 0; j < 6; j++) vatom[i][j] *= 0.5 * qscale;
  }
}

/* PPPM::compute with particle_map + make_rho and fieldforce on the device */
void PPPMOCL::compute(int eflag, int vflag)
{
  const bool early = prestarted == update->ntimestep && pending && pending_solve;
  const bool early_tally = early && (pending_energy || pending_virial);
  prestarted = -1;
  if (host_only()) {
    PPPM::compute(eflag, vflag);
    return;
  }
  ev_init(eflag, vflag);
  if (early && !evflag_atom && (early_tally || !(eflag_global || vflag_global))) {
    pending_energy = eflag_global;    // what collect() finishes: this step's flags
    pending_virial = vflag_global;
    return;
  }
  if (pending) drain_stale_step();
  if (gathered() && evflag_atom) {
    // per-atom energy/virial: this step is LAMMPS's host PPPM
    PPPM::compute(eflag, vflag);
    return;
  }
  if (evflag_atom && !peratom_allocate_flag) allocate_peratom();
  if (!charges_present()) return;
  const double t0 = MPI_Wtime();
  const StreamclContext::Span span(lmp, StreamclContext::KSPACE);   // host time, transfers
  boxlo = domain->boxlo;
  if (atom->nmax > nmax) {
    memory->destroy(part2grid);
    nmax = atom->nmax;
    memory->create(part2grid, nmax, 3, "pppm:part2grid");
  }
  if (has_engine()) ensure_engine();
  if (whole_device() && !evflag_atom && compute_device_step()) {
    account(host_time, t0);
    return;
  }
  if (whole_device() && update->setupflag && !gathered()) prepare_device_step();

  const int nlocal = atom->nlocal;
  scl_status st = scl_pppm_make_rho(engine, nlocal, nlocal ? atom->x[0] : nullptr, atom->q,
                                    &density_brick[nzlo_out][nylo_out][nxlo_out]);
  if (st != SCL_OK) fail(FLERR, "charge assignment", st);
  // the per-atom energy/virial interpolation stays on the host: it needs part2grid
  if (evflag_atom) particle_map();

  // (which flags, and where the flag goes, depend on the LAMMPS version)
  streamcl_compat::grid_reverse(gc, this, streamcl_compat::REVERSE_RHO, 1, gc_buf1, gc_buf2);
  brick2fft();
  ensure_host_gf();
  poisson();
  streamcl_compat::grid_forward(gc, this, streamcl_compat::FORWARD_IK, 3, gc_buf1, gc_buf2);
  if (evflag_atom)
    streamcl_compat::grid_forward(gc, this, streamcl_compat::FORWARD_IK_PERATOM, 7, gc_buf1, gc_buf2);

  st = scl_pppm_fieldforce_start(engine, &vdx_brick[nzlo_out][nylo_out][nxlo_out],
                                 &vdy_brick[nzlo_out][nylo_out][nxlo_out],
                                 &vdz_brick[nzlo_out][nylo_out][nxlo_out]);
  if (st != SCL_OK) fail(FLERR, "starting the force interpolation", st);
  pending = true;
  pending_nlocal = nlocal;

  if (evflag_atom) fieldforce_peratom();

  tally_sums(nlocal);
  account(host_time, t0);
}

// the charge sums, recounted when atoms were added or lost; false: no charges
bool PPPMOCL::charges_present()
{
  if (atom->natoms != natoms_original) {
    qsum_qsq();
    natoms_original = atom->natoms;
  }
  return qsqsum != 0.0;
}

void PPPMOCL::prestart(int vflag)
{
  prestarted = -1;
  const bigint step = update->ntimestep;
  // x and q shared with the pair style: queued after its step (in compute)
  if (!whole_device() || !compute_flag || pending || modify->n_pre_force != 1 || shares_x() ||
      update->eflag_atom == step || (vflag & (VIRIAL_ATOM | VIRIAL_CENTROID)))
    return;
  ev_init(update->eflag_global == step ? ENERGY_GLOBAL : 0, vflag);
  if (!charges_present()) return;
  const double t0 = MPI_Wtime();
  const StreamclContext::Span span(lmp, StreamclContext::KSPACE);   // host time, transfers
  boxlo = domain->boxlo;
  if (has_engine()) ensure_engine();
  if (compute_device_step()) prestarted = step;
  account(host_time, t0);
}

/* one rank (or ranks gather, collective): the whole step queued on the
   device; energy and virial are finished in collect() (thermo output reads
   them after pre_reverse) */
bool PPPMOCL::compute_device_step()
{
  const bool tally = eflag_global || vflag_global;
  if (gathered()) {
    if (comm->me == 0) scl_pppm_defer_forces(engine, 0);   // rank 0 scatters them
    gather_atoms_and_start(tally);
  } else if (!start_own_step(tally)) {
    return false;
  }
  pending = pending_solve = true;
  pending_nlocal = atom->nlocal;
  pending_energy = eflag_global;
  pending_virial = vflag_global;
  pending_volume = volume;
  pending_qscale = qqrd2e * scale;
  return true;
}

bool PPPMOCL::device_gf()
{
  if (upload_kspace < 0) {   // STREAMCL_KSPACE_UPLOAD=1: the host's, uploaded (A/B)
    const char *e = getenv("STREAMCL_KSPACE_UPLOAD");
    upload_kspace = e && !strcmp(e, "1");
  }
  return upload_kspace == 0 && fft_device && comm->nprocs == 1 && !domain->triclinic &&
      !differentiation_flag;
}

void PPPMOCL::compute_gf_ik()
{
  gf_host_stale = device_gf();
  if (!gf_host_stale) PPPM::compute_gf_ik();
}

void PPPMOCL::ensure_host_gf()
{
  if (!gf_host_stale) return;
  PPPM::compute_gf_ik();
  gf_host_stale = false;
}

/* LAMMPS's compute_gf_ik and setup's wave numbers, on the device (one rank:
   the whole grid; orthogonal box, ik differentiation, else SCL_ERR_UNSUPPORTED
   and the host's are uploaded). The images nbx.. as compute_gf_ik has them. */
scl_status PPPMOCL::set_kspace_on_device()
{
  if (domain->triclinic || differentiation_flag || !gf_b) return SCL_ERR_UNSUPPORTED;
  const double eps_hoc = 1.0e-7;   // LAMMPS's EPS_HOC (pppm.cpp)
  const double zprd_slab = domain->prd[2] * slab_volfactor;
  scl_pppm_kspace_box b;
  b.nx = nx_pppm;
  b.ny = ny_pppm;
  b.nz = nz_pppm;
  b.xprd = domain->prd[0];
  b.yprd = domain->prd[1];
  b.zprd_slab = zprd_slab;
  b.g_ewald = g_ewald;
  b.nbx = static_cast<int>((g_ewald * b.xprd / (MY_PI * nx_pppm)) * pow(-log(eps_hoc), 0.25));
  b.nby = static_cast<int>((g_ewald * b.yprd / (MY_PI * ny_pppm)) * pow(-log(eps_hoc), 0.25));
  b.nbz = static_cast<int>((g_ewald * zprd_slab / (MY_PI * nz_pppm)) * pow(-log(eps_hoc), 0.25));
  b.gf_b = gf_b;
  return scl_pppm_solver_set_box(engine, &b);
}

/* The pair's finish calls this before its force download: the pending
   step's forces into the pair's rows (again if the pair recomputes). */
int PPPMOCL::force_adder(LAMMPS *lmp, scl_stream *f, scl_type type, int nlocal, int)
{
  auto *k = dynamic_cast<PPPMOCL *>(lmp->force->kspace);
  if (!k || !k->pending || !k->deferred) return 0;
  return scl_pppm_add_forces_into(k->engine, f, type, nlocal) == SCL_OK ? 0 : -1;
}

/* Whether this step's forces go into the pair's download: its step calls
   the adders (set ours where missing: from its next step). */
bool PPPMOCL::defer_forces(StreamclDevicePair *pair)
{
  scl_charmm *pe = StreamclContext::one_download() ? pair->force_engine(ctx) : nullptr;
  if (!pe) return false;
  // the adder's kernel now, at set-up's step (the loop's first step would
  // build it otherwise); nothing once built
  scl_status pst = scl_pppm_prepare_rows(engine, scl_charmm_force_type(pe));
  if (pst) fail(FLERR, "building the kernel of the device forces", pst);
  const int room = pair->adder_rows();
  if (room < 0 || adder_pair != pair) {
    scl_status st = pair->set_force_adder(StreamclContext::KSPACE, &force_adder, 0);
    if (st) fail(FLERR, "setting the force adder", st);
    adder_pair = pair;
  }
  return room >= 0;
}

/* one rank: the device's k-space (Green's function, wave numbers) and FFT
   step for the current box, where changed; false: no device FFTs (the host
   path from now on) */
bool PPPMOCL::set_device_kspace()
{
  scl_status st;
  if (kspace_dirty && device_gf()) {
    // computed on the device: nothing goes up after a box change (fix npt)
    st = set_kspace_on_device();
    if (st == SCL_OK) kspace_dirty = false;
    else if (st != SCL_ERR_UNSUPPORTED) fail(FLERR, "computing the Green's function", st);
    else upload_kspace = 1;   // no fp64 or no VkFFT: uploaded (below says which)
  }
  if (kspace_dirty) {
    ensure_host_gf();
    scl_pppm_kspace k;
    k.nx = nx_pppm;
    k.ny = ny_pppm;
    k.nz = nz_pppm;
    k.greensfn = greensfn;
    k.fkx = &fkx[nxlo_fft];
    k.fky = &fky[nylo_fft];
    k.fkz = &fkz[nzlo_fft];
    k.g_ewald = g_ewald;
    st = scl_pppm_solver_set(engine, &k);
    if (st == SCL_ERR_UNSUPPORTED) {
      // a libstreamcl without VkFFT: LAMMPS's FFTs from now on
      error->warning(FLERR, strf("kspace_style pppm/ocl: %s -- using host FFTs", scl_last_error(ctx)));
      fft_device = 0;
      return false;
    }
    if (st) fail(FLERR, "setting up the device FFT step", st);
    kspace_dirty = false;
  }
  return true;
}

/* set-up's step took the host path (per-atom tallies): what the loop's
   device steps use, built now (the k-space and FFT step, the adder's kernel
   where the pair's rows take the forces), so they compile nothing */
void PPPMOCL::prepare_device_step()
{
  if (!set_device_kspace()) return;
  auto *pair = shares_x() ? dynamic_cast<StreamclDevicePair *>(force->pair) : nullptr;
  scl_charmm *pe = pair && StreamclContext::one_download() ? pair->force_engine(ctx) : nullptr;
  scl_status st = pe ? scl_pppm_prepare_rows(engine, scl_charmm_force_type(pe)) : SCL_OK;
  if (st) fail(FLERR, "building the kernel of the device forces", st);
}

/* one rank: this rank's atoms, with this rank's Green's function */
bool PPPMOCL::start_own_step(bool tally)
{
  if (!set_device_kspace()) return false;
  scl_status st;
  const int nlocal = atom->nlocal, nall = nlocal + atom->nghost;
  // x and q from the pair style's device copy of this step where it has one
  // on this context (the owned atoms first, q after all its 3 nall x), else
  // uploaded
  const scl_stream *xq = nullptr;
  auto *pair = shares_x() ? dynamic_cast<StreamclDevicePair *>(force->pair) : nullptr;
  if (pair) xq = pair->device_positions(ctx, nall);
  // the forces into the pair's download where its step calls our adder
  deferred = xq && defer_forces(pair);
  if ((st = scl_pppm_defer_forces(engine, deferred))) fail(FLERR, "deferring the forces", st);
  st = xq ? scl_pppm_solve_start_device(engine, nlocal, xq, 3 * (size_t) nall, atom->q, tally)
          : scl_pppm_solve_start(engine, nlocal, nlocal ? atom->x[0] : nullptr, atom->q, tally);
  if (st != SCL_OK) fail(FLERR, "starting the device step", st);
  StreamclContext::note_x(lmp, StreamclContext::KSPACE, xq != nullptr);
  return true;
}

/* The pair style is ours on this rank's context and sharing is on: its
   device x and q of the step serve the whole device step (one rank). */
bool PPPMOCL::shares_x()
{
  if (share_x < 0) share_x = StreamclContext::share_x();
  auto *pair = dynamic_cast<StreamclDevicePair *>(force->pair);
  return share_x && pair && ctx && pair->context() == ctx;
}

void PPPMOCL::collect()
{
  if (!pending) return;
  // deferred: the pair's finish adds our forces with its own (its adder sees
  // this step pending), so it goes first, in its own books
  if (deferred && pending_solve)
    if (auto *pair = dynamic_cast<StreamclDevicePair *>(force->pair)) pair->collect();
  pending = false;
  if (atom->nlocal != pending_nlocal)
    error->one(FLERR, strf("kspace_style pppm/ocl: the atom count changed from %d to %d between "
                           "the kspace compute and the force collection", pending_nlocal,
                           atom->nlocal));
  const double t0 = MPI_Wtime();
  const StreamclContext::Span span(lmp, StreamclContext::KSPACE);   // host time, transfers
  double *f = pending_nlocal ? atom->f[0] : nullptr;
  if (!pending_solve) {
    scl_status st = scl_pppm_fieldforce_finish(engine, f);
    account(wait_time, t0);
    if (st != SCL_OK) fail(FLERR, "collecting the kspace forces", st);
    return;
  }
  pending_solve = false;
  double e = 0.0, v[6] = {0, 0, 0, 0, 0, 0};
  scl_status st = SCL_OK;
  if (gathered()) {
    if (comm->me == 0) {
      gather_f.assign(3 * (size_t) MAX(pending_gathered, 1), 0.0);
      st = scl_pppm_solve_finish(engine, gather_f.data(), &e, v);
      if (st != SCL_OK) fail(FLERR, "collecting the kspace step (ranks gather)", st);
    }
    scatter_forces(e, v, &e, v);
  } else {
    st = scl_pppm_solve_finish(engine, f, &e, v);
  }
  deferred = false;
  account(wait_time, t0);
  if (st != SCL_OK) fail(FLERR, "collecting the kspace step", st);
  // PPPM::compute's scaling of the sums (one rank, or rank 0's sums broadcast)
  const double qscale = pending_qscale, vol = pending_volume;
  if (pending_energy) {
    energy = e * 0.5 * vol;
    energy -= g_ewald * qsqsum / MY_PIS + MY_PI2 * qsum * qsum / (g_ewald * g_ewald * vol);
    energy *= qscale;
    if (!std::isfinite(energy))
      error->one(FLERR, "kspace_style pppm/ocl: non-finite long-range energy -- check for "
                        "NaN coordinates or charges");
  }
  if (pending_virial)
    for (int i = 0; i < 6; i++) virial[i] = 0.5 * qscale * vol * v[i];
}

/* the host seconds since t0 into `into` and the instance's run books */
void PPPMOCL::account(double &into, double t0)
{
  into += MPI_Wtime() - t0;
}

bool PPPMOCL::host_only() const
{
  return comm->nprocs > 1 && ranks_mode == RANKS_HOST;
}

bool PPPMOCL::gathered() const
{
  return comm->nprocs > 1 && ranks_mode == RANKS_GATHER;
}

bool PPPMOCL::whole_device() const
{
  return fft_device && (comm->nprocs == 1 || gathered());
}

bool PPPMOCL::has_engine() const
{
  return !host_only() && (!gathered() || comm->me == 0);
}

void PPPMOCL::begin_run_stats()
{
  if (host_only()) return;
  memset(&stats_base, 0, sizeof stats_base);
  if (engine) scl_pppm_stats_get(engine, &stats_base);
  wait_time = host_time = 0.0;
}

void PPPMOCL::report_run()
{
  if (host_only()) return;
  scl_pppm_stats s;
  memset(&s, 0, sizeof s);
  if (engine) scl_pppm_stats_get(engine, &s);
  const scl_pppm_stats &b = stats_base;
  double local[7] = {s.t_upload - b.t_upload, s.t_assign - b.t_assign,
                     s.t_download - b.t_download, s.t_interp - b.t_interp, host_time, wait_time,
                     s.t_solve - b.t_solve};
  double tmax[7];
  MPI_Reduce(local, tmax, 7, MPI_DOUBLE, MPI_MAX, 0, world);
  if (comm->me != 0 || !ctx) return;
  const scl_device_info *d = scl_device(ctx);
  std::string m;
  m += "\n-------------------------------------------------------------------\n";
  m += "   Device Time Info (pppm/ocl, run loop, max over ranks):\n";
  m += "-------------------------------------------------------------------\n";
  m += strf("Device: %s (%s), %d rank(s), precision %s, order %d, grid %dx%dx%d\n",
            d ? d->name : "?", d ? d->platform : "?", comm->nprocs, fp64 ? "double" : "mixed",
            order, nx_pppm, ny_pppm, nz_pppm);
  if (gathered())
    m += strf("Ranks gather: the atoms of all %d ranks on rank 0's device\n", comm->nprocs);
  m += strf("Steps: %ld whole on the device (VkFFT), %ld with host FFTs\n",
            s.device_steps - b.device_steps, s.steps - b.steps);
  m += strf("Charge assignment: %.4f s\n", tmax[1]);
  m += strf("Grid + Poisson:    %.4f s (device steps; the VkFFT transforms are not timed)\n", tmax[6]);
  m += strf("Field -> forces:   %.4f s\n", tmax[3]);
  m += strf("Data transfer:     %.4f s (upload %.4f, download %.4f)\n", tmax[0] + tmax[2], tmax[0],
            tmax[2]);
  m += strf("Host compute():    %.4f s (queueing; with host FFTs also FFTs, Poisson, grid comm)\n",
            tmax[4]);
  m += strf("Idle (host wait):  %.4f s (host blocked on the device in pre_reverse)\n", tmax[5]);
  m += "-------------------------------------------------------------------\n\n";
  utils::logmesg(lmp, m);
}
