/* pair_style lj/charmm/coul/long/ocl: see the header. No physics here: the
 * pair math is libstreamcl's (src/pair/), everything else LAMMPS's own
 * PairLJCharmmCoulLong. This file only validates input and moves data. */
#include "pair_lj_charmm_coul_long_ocl.h"

#include "fix_streamcl_collect.h"
#include "streamcl_context.h"
#include "strf.h"

#include "atom.h"
#include "comm.h"
#include "domain.h"
#include "error.h"
#include "force.h"
#include "kspace.h"
#include "modify.h"
#include "neighbor.h"
#include "update.h"
#include "utils.h"

#include <mpi.h>
#include <sched.h>
#include <unistd.h>

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace LAMMPS_NS;

const char *const PairLJCharmmCoulLongOCL::STYLE = "lj/charmm/coul/long/ocl";

static bool parse_int(const char *s, int &out)
{
  char *end = nullptr;
  long v = strtol(s, &end, 10);
  if (!s[0] || *end) return false;
  out = (int) v;
  return true;
}

static bool parse_number(const char *s)
{
  char *end = nullptr;
  double v = strtod(s, &end);
  return s[0] && !*end && std::isfinite(v);
}

static const char *precision_name(scl_precision p)
{
  return p == SCL_PREC_SINGLE ? "single" : p == SCL_PREC_DOUBLE ? "double" : "mixed";
}

Pair *PairLJCharmmCoulLongOCL::creator(LAMMPS *lmp)
{
  return new PairLJCharmmCoulLongOCL(lmp);
}

PairLJCharmmCoulLongOCL::PairLJCharmmCoulLongOCL(LAMMPS *lmp) :
    PairLJCharmmCoulLong(lmp), precision(SCL_PREC_MIXED), tpa(0), chunks(0), tune(1), gpus(0),
    ctx(nullptr), gpus_used(0), engine(nullptr), engine_stale(true), pending(false), last_nlocal(-1),
    last_nghost(-1), host_threads(1), stats_base(), stats_base_taken(false), wait_time(0),
    compute_time(0)
{
  respa_enable = 0;
  // full lists on the device: the f.r virial over ghosts would be wrong, the
  // engine tallies the virial explicitly
  no_virial_fdotr_compute = 1;
  scl_charmm_params_default(&engine_params);
  read_env();
}

PairLJCharmmCoulLongOCL::~PairLJCharmmCoulLongOCL()
{
  // LAMMPS deletes force before modify, so modify is still valid here
  FixStreamclCollect::remove(lmp);
  if (engine) scl_charmm_free(engine);
  StreamclContext::release(lmp, ctx, StreamclContext::PAIR);
}

/* defaults of the keywords from STREAMCL_* environment variables (for -sf ocl
   runs, where the input script has no place for them) */
void PairLJCharmmCoulLongOCL::read_env()
{
  const char *e;
  device_spec = (e = getenv("STREAMCL_DEVICE")) ? e : "";
  kernel = (e = getenv("STREAMCL_KERNEL")) ? e : "";
  if (!kernel.empty() && kernel != "charmm" && kernel != "cpu" && kernel != "cluster")
    error->all(FLERR, strf("STREAMCL_KERNEL='%s' is invalid: use charmm, cpu or cluster", e));
  precision = SCL_PREC_MIXED;
  tpa = chunks = gpus = 0;
  tune = 1;
  if ((e = getenv("STREAMCL_PRECISION")) && *e) {
    if (!strcmp(e, "single")) precision = SCL_PREC_SINGLE;
    else if (!strcmp(e, "mixed")) precision = SCL_PREC_MIXED;
    else if (!strcmp(e, "double")) precision = SCL_PREC_DOUBLE;
    else error->all(FLERR, strf("STREAMCL_PRECISION='%s' is invalid: use single, mixed or double", e));
  }
  if ((e = getenv("STREAMCL_TPA")) && *e)
    if (!parse_int(e, tpa) || (tpa != 0 && !scl_charmm_tpa_valid(tpa)))
      error->all(FLERR, strf("STREAMCL_TPA='%s' is invalid: use a threads-per-atom count of the "
                             "engine (1, 2, 4, ..; 0 = tuned)", e));
  if ((e = getenv("STREAMCL_CHUNKS")) && *e)
    if (!parse_int(e, chunks) || chunks < 0)
      error->all(FLERR, strf("STREAMCL_CHUNKS='%s' is invalid: use an integer >= 1 (0 = tuned)", e));
  if ((e = getenv("STREAMCL_GPUS")) && *e)
    if (!parse_int(e, gpus) || gpus < 0)
      error->all(FLERR, strf("STREAMCL_GPUS='%s' is invalid: use an integer >= 1 (0 = all)", e));
  if ((e = getenv("STREAMCL_TUNE")) && *e) {
    if (!strcmp(e, "yes") || !strcmp(e, "1")) tune = 1;
    else if (!strcmp(e, "no") || !strcmp(e, "0")) tune = 0;
    else error->all(FLERR, strf("STREAMCL_TUNE='%s' is invalid: use yes or no", e));
  }
}

/* pair_style lj/charmm/coul/long/ocl cut_lj_inner cut_lj [cut_coul]
     [device SPEC] [gpus N] [precision single|mixed|double] [tpa N] [chunks N] [tune yes|no]
     [kernel charmm|cpu|cluster] */
void PairLJCharmmCoulLongOCL::settings(int narg, char **arg)
{
  int nnum = 0;
  while (nnum < narg && nnum < 3 && parse_number(arg[nnum])) nnum++;
  if (nnum < 2)
    error->all(FLERR, "Illegal pair_style lj/charmm/coul/long/ocl command: expected "
                      "cut_lj_inner cut_lj [cut_coul] [device SPEC] [gpus N] "
                      "[precision single|mixed|double] "
                      "[tpa 1|2|4|8|16|32] [chunks N] [tune yes|no] [kernel charmm|cpu|cluster]");
  PairLJCharmmCoulLong::settings(nnum, arg);
  if (cut_lj_inner <= 0.0 || cut_lj <= 0.0 || cut_coul <= 0.0)
    error->all(FLERR, "Illegal pair_style lj/charmm/coul/long/ocl command: cutoffs must be > 0");

  read_env();
  for (int i = nnum; i < narg; i += 2) {
    const std::string key = arg[i];
    const bool known = key == "device" || key == "gpus" || key == "precision" ||
                       key == "tpa" || key == "chunks" || key == "tune" || key == "kernel";
    if (!known)
      error->all(FLERR, strf("Unknown pair_style lj/charmm/coul/long/ocl keyword '%s': "
                             "expected device, gpus, precision, tpa, chunks, tune or kernel",
                             arg[i]));
    if (i + 1 >= narg)
      error->all(FLERR, strf("pair_style lj/charmm/coul/long/ocl keyword '%s' needs a value", arg[i]));
    const char *v = arg[i + 1];
    if (key == "device") {
      device_spec = v;
    } else if (key == "gpus") {
      if (!parse_int(v, gpus) || gpus < 1)
        error->all(FLERR, strf("pair_style lj/charmm/coul/long/ocl: gpus '%s' is invalid: "
                               "use an integer >= 1 (the GPUs of a node the ranks share)", v));
    } else if (key == "precision") {
      if (!strcmp(v, "single")) precision = SCL_PREC_SINGLE;
      else if (!strcmp(v, "mixed")) precision = SCL_PREC_MIXED;
      else if (!strcmp(v, "double")) precision = SCL_PREC_DOUBLE;
      else error->all(FLERR, strf("pair_style lj/charmm/coul/long/ocl: precision '%s' is invalid: "
                                  "use single, mixed or double", v));
    } else if (key == "tpa") {
      if (!parse_int(v, tpa) || !scl_charmm_tpa_valid(tpa))
        error->all(FLERR, strf("pair_style lj/charmm/coul/long/ocl: tpa '%s' is invalid: "
                               "use a threads-per-atom count of the engine (1, 2, 4, ..)", v));
    } else if (key == "kernel") {
      if (strcmp(v, "charmm") && strcmp(v, "cpu") && strcmp(v, "cluster"))
        error->all(FLERR, strf("pair_style lj/charmm/coul/long/ocl: kernel '%s' is invalid: "
                               "use charmm (lanes per atom, GPUs), cpu (blocks of atoms) or "
                               "cluster (cluster pairs, GPUs)", v));
      kernel = v;
    } else if (key == "chunks") {
      if (!parse_int(v, chunks) || chunks < 1)
        error->all(FLERR, strf("pair_style lj/charmm/coul/long/ocl: chunks '%s' is invalid: "
                               "use an integer >= 1", v));
    } else {
      if (!strcmp(v, "yes")) tune = 1;
      else if (!strcmp(v, "no")) tune = 0;
      else error->all(FLERR, strf("pair_style lj/charmm/coul/long/ocl: tune '%s' is invalid: "
                                  "use yes or no", v));
    }
  }
}

/* A failure of libstreamcl. Called by one rank (device failures, bad atoms
   are per rank), so error->one: error->all from a subset of ranks would hang. */
void PairLJCharmmCoulLongOCL::fail(const char *file, int line, const std::string &what,
                                   scl_status st)
{
  std::string msg = strf("pair_style lj/charmm/coul/long/ocl: %s failed (%s): %s", what.c_str(),
                         scl_status_name(st), ctx ? scl_last_error(ctx) : "");
  if (st == SCL_ERR_NO_DEVICE)
    msg += " -- check the 'device' keyword / STREAMCL_DEVICE (e.g. cpu, gpu, 0:0, or a name; "
           "'streamcl devices' lists them)";
  else if (st == SCL_ERR_INPUT)
    msg += " -- check the atoms (coordinates, charges) for NaN/inf or overlaps";
  else if (st == SCL_ERR_TOO_LARGE || st == SCL_ERR_MEMORY)
    msg += " -- use more MPI ranks or more chunks (keyword 'chunks')";
  else if (st == SCL_ERR_UNSUPPORTED)
    msg += " -- use precision mixed or single on devices without fp64";
  error->one(file, line, msg);
}

void PairLJCharmmCoulLongOCL::init_style()
{
  if (!atom->q_flag)
    error->all(FLERR, "Pair style lj/charmm/coul/long/ocl requires atom attribute q: "
                      "use an atom_style with charges (e.g. full or charge)");
  if (utils::strmatch(update->integrate_style, "^respa"))
    error->all(FLERR, "Pair style lj/charmm/coul/long/ocl does not support run_style respa: "
                      "use run_style verlet");
  if (force->pair != this)
    error->all(FLERR, "Pair style lj/charmm/coul/long/ocl cannot be a pair_style hybrid "
                      "sub-style: use it as the only pair style");
  if (atom->molecular == Atom::TEMPLATE)
    error->all(FLERR, "Pair style lj/charmm/coul/long/ocl does not support molecule "
                      "templates (atom_style template)");
  if (cut_lj_inner >= cut_lj) error->all(FLERR, "Pair inner cutoff >= Pair outer cutoff");
  if (force->kspace == nullptr)
    error->all(FLERR, "Pair style lj/charmm/coul/long/ocl requires a KSpace style: "
                      "add e.g. 'kspace_style pppm 1.0e-4' before the run");

  // what the inherited single(), extract() and init_one() rely on
  cut_lj_innersq = cut_lj_inner * cut_lj_inner;
  cut_ljsq = cut_lj * cut_lj;
  cut_coulsq = cut_coul * cut_coul;
  cut_bothsq = MAX(cut_ljsq, cut_coulsq);
  denom_lj = (cut_ljsq - cut_lj_innersq) * (cut_ljsq - cut_lj_innersq) *
      (cut_ljsq - cut_lj_innersq);
  denom_lj_inv = 1.0 / denom_lj;
  cut_respa = nullptr;
  g_ewald = force->kspace->g_ewald;
  if (ncoultablebits) init_tables(cut_coul, cut_respa);

  // No neighbor->request(): the engine builds its own list on the device;
  // LAMMPS still communicates ghosts out to cutoff + skin.

  // this rank's device (collective); the context of the instance for it,
  // shared with the other /ocl styles
  const std::string want = resolve_device();
  if (ctx && ctx_device_spec != want) {
    if (engine) scl_charmm_free(engine);
    engine = nullptr;
    StreamclContext::release(lmp, ctx, StreamclContext::PAIR);
    ctx = nullptr;
  }
  if (!ctx) {
    create_context(want);
    ctx_device_spec = want;
  }

  // the internal fix that collects the device's forces in pre_reverse
  FixStreamclCollect::ensure(lmp);

  engine_stale = true;   // mixed coefficients are known only after init_one()
  stats_base_taken = false;
  wait_time = compute_time = 0.0;
}

/* Threads of the engine's host copies and force sums for this rank:
   STREAMCL_HOST_THREADS when set, else the cores this rank may run on (its
   affinity mask), shared with the other ranks of the node when the mask is
   the whole node (ranks not bound to cores), at most OMP_NUM_THREADS (a value
   exported for every rank must not oversubscribe the node). The library
   itself reads no environment and uses 1 thread on CPU devices by default. */
int PairLJCharmmCoulLongOCL::rank_host_threads(int local_ranks)
{
  int n = 0, omp = 0;
  const char *e = getenv("STREAMCL_HOST_THREADS");
  if (e && *e && parse_int(e, n) && n >= 1) return n;
  cpu_set_t mask;
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  if (sched_getaffinity(0, sizeof mask, &mask) != 0) return 1;
  n = CPU_COUNT(&mask);
  if (online > 0 && n >= online && local_ranks > 1) n /= local_ranks;
  e = getenv("OMP_NUM_THREADS");
  if (e && *e && parse_int(e, omp) && omp >= 1 && omp < n) n = omp;
  return n >= 1 ? n : 1;
}

/* The device of this rank: with no device keyword (or "gpu"), the node's
   GPUs shared round robin by node-local rank (keyword gpus / STREAMCL_GPUS:
   how many; default all); without GPUs, the library's default device. Any
   other spec is used as given. Collective. */
std::string PairLJCharmmCoulLongOCL::resolve_device()
{
  gpus_used = 0;
  int local_ranks = 1;
  const int local_rank = StreamclContext::node_rank(world, &local_ranks);
  host_threads = rank_host_threads(local_ranks);
  std::string spec, err;
  const bool ok = StreamclContext::resolve(device_spec, local_rank, gpus, spec, &err, &gpus_used);
  const bool any_gpu = device_spec.empty() || device_spec == "gpu";
  if (!ok || (any_gpu && gpus > 0 && gpus_used == 0))
    error->one(FLERR, strf("pair_style lj/charmm/coul/long/ocl: no GPU for this rank: %s "
                           "-- check the 'gpus' keyword / STREAMCL_GPUS and 'streamcl devices'",
                           err.c_str()));
  return spec;  // no GPU and no spec: "" (the library's default, a CPU device)
}

void PairLJCharmmCoulLongOCL::create_context(const std::string &spec)
{
  rank_device = spec;
  scl_status st = SCL_OK;
  std::string err;
  ctx = StreamclContext::acquire(lmp, rank_device, StreamclContext::PAIR, &st, err);
  int ok = st == SCL_OK, all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, world);
  if (!all_ok) {
    std::string msg = strf("pair_style lj/charmm/coul/long/ocl: no OpenCL device for '%s' "
                           "(%s): %s -- check the 'device' keyword / STREAMCL_DEVICE (cpu, gpu, "
                           "P:D or a name; 'streamcl devices' lists them) and the OpenCL ICDs",
                           rank_device.empty() ? "default" : rank_device.c_str(),
                           scl_status_name(st), err.c_str());
    int nfail = 0, one = !ok;
    MPI_Allreduce(&one, &nfail, 1, MPI_INT, MPI_SUM, world);
    if (nfail == comm->nprocs) error->all(FLERR, msg);
    if (!ok) error->one(FLERR, msg);
    // the other ranks wait for the failing one's MPI_Abort
    MPI_Barrier(world);
  }
}

/* (Re)create the engine when the coefficients or settings changed. */
void PairLJCharmmCoulLongOCL::ensure_engine()
{
  if (!engine_stale && engine) return;
  engine_stale = false;
  const int nt = atom->ntypes;
  std::vector<double> eps(nt * nt), sig(nt * nt);
  for (int i = 1; i <= nt; i++)
    for (int j = i; j <= nt; j++) {
      eps[(i - 1) * nt + (j - 1)] = eps[(j - 1) * nt + (i - 1)] = epsilon[i][j];
      sig[(i - 1) * nt + (j - 1)] = sig[(j - 1) * nt + (i - 1)] = sigma[i][j];
    }
  scl_charmm_params p;
  scl_charmm_params_default(&p);
  p.ntypes = nt;
  p.cut_lj_inner = cut_lj_inner;
  p.cut_lj = cut_lj;
  p.cut_coul = cut_coul;
  p.qqrd2e = force->qqrd2e;
  p.g_ewald = g_ewald;
  for (int k = 0; k < 4; k++) {
    p.special_lj[k] = force->special_lj[k];
    p.special_coul[k] = force->special_coul[k];
  }
  p.skin = neighbor->skin;
  p.precision = precision;
  p.threads_per_atom = tpa;
  p.chunks = chunks;
  p.tune = tune;
  p.kernel = kernel.empty() ? nullptr : kernel.c_str();
  // x and q stay unchanged from compute() to collect() in pre_reverse;
  // STREAMCL_INPUTS_STABLE=0 copies them anyway (diagnosis)
  p.inputs_stable = 1;
  const char *stable = getenv("STREAMCL_INPUTS_STABLE");
  int stable_v = 1;
  if (stable && *stable && parse_int(stable, stable_v) && stable_v >= 0 && stable_v <= 2)
    p.inputs_stable = stable_v;
  // not in a triclinic box: LAMMPS's kspace styles convert the owned x to
  // lamda coordinates and back in place in their compute (after ours, before
  // pre_reverse), which changes x (to rounding) while our upload may still
  // read it; it is copied in compute() instead
  if (domain->triclinic) p.inputs_stable = 0;
  // a CPU device's own threads have the cores: the library's default (1)
  const scl_device_info *dev = scl_device(ctx);
  p.host_threads = dev && dev->is_gpu ? host_threads : 0;

  const scl_charmm_params &o = engine_params;
  bool same = engine && eps == eps_mixed && sig == sigma_mixed && o.ntypes == p.ntypes &&
      o.cut_lj_inner == p.cut_lj_inner && o.cut_lj == p.cut_lj && o.cut_coul == p.cut_coul &&
      o.qqrd2e == p.qqrd2e && o.g_ewald == p.g_ewald && o.skin == p.skin &&
      o.precision == p.precision && o.threads_per_atom == p.threads_per_atom &&
      o.chunks == p.chunks && o.tune == p.tune && o.host_threads == p.host_threads &&
      o.inputs_stable == p.inputs_stable &&
      engine_kernel == kernel &&
      !memcmp(o.special_lj, p.special_lj, sizeof p.special_lj) &&
      !memcmp(o.special_coul, p.special_coul, sizeof p.special_coul);
  if (same) return;

  if (engine) scl_charmm_free(engine);
  engine = nullptr;
  eps_mixed.swap(eps);
  sigma_mixed.swap(sig);
  p.epsilon = eps_mixed.data();
  p.sigma = sigma_mixed.data();
  engine_params = p;
  engine_kernel = kernel; // (the engine keeps its own copy of the name)
  last_nlocal = last_nghost = -1;
  stats_base_taken = false;
  scl_status st = scl_charmm_create(ctx, &engine_params, &engine);
  if (st != SCL_OK) {
    engine = nullptr;
    fail(FLERR, "creating the pair engine", st);
  }
  if ((st = apply_hook())) fail(FLERR, "setting the force hook", st);
}

/* The engine's hook: each adder in turn, the extra rows after the ones the
   earlier adders wrote (the adders are looked up through the instance, so
   a style deleted before the pair leaves none to call). */
int PairLJCharmmCoulLongOCL::dispatch(void *self, scl_stream *f, scl_type type, int nlocal,
                                      int extra)
{
  auto *pair = static_cast<PairLJCharmmCoulLongOCL *>(self);
  int used = 0;
  for (int u = 0; u < 3; u++) {
    if (!pair->adders[u]) continue;
    const int n = pair->adders[u](pair->lmp, f, type, nlocal, extra - used);
    if (n < 0) return n;
    used += n;
  }
  return used;
}

scl_status PairLJCharmmCoulLongOCL::apply_hook()
{
  if (!engine) return SCL_OK;
  const bool any = adders[0] || adders[1] || adders[2];
  return scl_charmm_set_force_hook(engine, any ? &dispatch : nullptr, any ? this : nullptr,
                                   adder_extra[0] + adder_extra[1] + adder_extra[2]);
}

scl_status PairLJCharmmCoulLongOCL::set_force_adder(int user, ForceAdder adder, int extra_rows)
{
  const int u = user == StreamclContext::KSPACE ? 1 : user == StreamclContext::SHAKE ? 2 : 0;
  adders[u] = adder;
  adder_extra[u] = adder ? extra_rows : 0;
  return apply_hook();
}

int PairLJCharmmCoulLongOCL::adder_rows() const
{
  return engine ? scl_charmm_hook_rows(engine, &dispatch, this) : -1;
}

void PairLJCharmmCoulLongOCL::set_atoms()
{
  // LAMMPS's arrays as they are: 1-based types, tagint tags, nmax x maxspecial
  // specials (the engine reads the local atoms' rows and converts on the device)
  scl_charmm_atoms a;
  memset(&a, 0, sizeof a);
  a.nlocal = atom->nlocal;
  a.nghost = atom->nghost;
  a.x = atom->x[0];
  a.type = atom->type;
  a.type_base = 1;
  a.tag_bytes = (int) sizeof(tagint);
  a.tag = atom->tag;
  if (atom->molecular == Atom::MOLECULAR && atom->nspecial && atom->special &&
      atom->maxspecial > 0) {
    a.nspecial = atom->nspecial[0];
    a.special = atom->special[0];
    a.maxspecial = atom->maxspecial;
  }
  // special partners farther than half the box are periodic images (LAMMPS's rule)
  const double half[3] = {domain->xperiodic ? domain->xprd_half : 0.0,
                          domain->yperiodic ? domain->yprd_half : 0.0,
                          domain->zperiodic ? domain->zprd_half : 0.0};
  scl_status st = scl_charmm_set_box(engine, half);
  if (st != SCL_OK) fail(FLERR, "setting the box", st);
  st = scl_charmm_set_atoms_from(engine, &a);
  if (st != SCL_OK) fail(FLERR, "building the neighbor list", st);
  last_nlocal = a.nlocal;
  last_nghost = atom->nghost;
  set_ghost_sources();
}

/* The box of this step's positions as the gather kernel shifts by it. */
static scl_charmm_box box_of(const Domain *domain)
{
  scl_charmm_box b;
  b.prd[0] = domain->xprd;
  b.prd[1] = domain->yprd;
  b.prd[2] = domain->zprd;
  b.xy = domain->xy;
  b.xz = domain->xz;
  b.yz = domain->yz;
  b.triclinic = domain->triclinic;
  return b;
}

/* One rank: every ghost is an image of an owned atom (atom->map of its tag
   is the owned index: map_set lets owned atoms take precedence), so between
   re-neighborings its row is the owned row shifted, as forward_comm shifts
   it; the engine derives the images and checks them against atom->x. With
   several ranks the ghosts of other ranks' atoms come from MPI: all rows go
   up as before. */
void PairLJCharmmCoulLongOCL::set_ghost_sources()
{
  ghosts_on = false;
  if (!StreamclContext::ghost_gather() || comm->nprocs > 1 || !atom->tag_enable ||
      atom->map_style == 0)
    return;
  const int nlocal = atom->nlocal, nghost = atom->nghost;
  ghost_src.resize(nghost > 0 ? nghost : 1);
  for (int g = 0; g < nghost; g++) ghost_src[g] = atom->map(atom->tag[nlocal + g]);
  const scl_charmm_box b = box_of(domain);
  int usable = 0;
  scl_status st = scl_charmm_set_ghost_sources(engine, atom->x[0], ghost_src.data(), &b, &usable);
  if (st == SCL_ERR_UNSUPPORTED) return;   // host packing: no device x to fill
  if (st != SCL_OK) fail(FLERR, "setting the ghost sources", st);
  ghosts_on = usable != 0;
  if (!usable && !ghost_noted && comm->me == 0) {
    utils::logmesg(lmp, "pair_style lj/charmm/coul/long/ocl: some ghost atom is not an exact "
                        "periodic image of an owned one: every ghost row is uploaded each step "
                        "until the next re-neighboring\n");
    ghost_noted = true;
  }
}

void PairLJCharmmCoulLongOCL::set_ghost_box()
{
  const scl_charmm_box b = box_of(domain);
  scl_status st = scl_charmm_set_ghost_box(engine, &b);
  if (st != SCL_OK) fail(FLERR, "setting the box of the ghost rows", st);
}

/* STREAMCL_GHOST_CHECK=1: the device's ghost rows of the step against
   atom->x's (forward_comm's), coordinate by coordinate. */
void PairLJCharmmCoulLongOCL::check_ghosts()
{
  const int nlocal = atom->nlocal, nghost = atom->nghost;
  ghost_rows.resize(3 * (size_t) (nghost > 0 ? nghost : 1));
  scl_status st = scl_charmm_read_positions(engine, nlocal, nghost, ghost_rows.data());
  if (st != SCL_OK) fail(FLERR, "reading the device's ghost rows back", st);
  const double *x = atom->x[nlocal];
  for (size_t k = 0; k < 3 * (size_t) nghost; k++)
    if (!(ghost_rows[k] == x[k]))
      error->one(FLERR, strf("pair_style lj/charmm/coul/long/ocl: the device's ghost atom %zu "
                             "(tag %ld) coordinate %zu is %.17g, LAMMPS's forward_comm gave %.17g "
                             "(step %ld) -- a bug of the ghost gather: run with "
                             "STREAMCL_GHOST_GATHER=0 and report it",
                             k / 3, (long) atom->tag[nlocal + k / 3], k % 3, ghost_rows[k], x[k],
                             (long) update->ntimestep) +
                        strf(" [source %d at %.17g %.17g %.17g; box %.17g %.17g %.17g tilt %.17g "
                             "%.17g %.17g; ghost %.17g %.17g %.17g]",
                             ghost_src[k / 3], atom->x[ghost_src[k / 3]][0],
                             atom->x[ghost_src[k / 3]][1], atom->x[ghost_src[k / 3]][2],
                             domain->xprd, domain->yprd, domain->zprd, domain->xy, domain->xz,
                             domain->yz, x[k - k % 3], x[k - k % 3 + 1], x[k - k % 3 + 2]));
  ghost_checked++;
}

void PairLJCharmmCoulLongOCL::compute(int eflag, int vflag)
{
  ev_init(eflag, vflag);
  if (pending) {
    // a caller that computed without reaching pre_reverse: its step is stale,
    // drain it without touching this step's forces and energies
    std::vector<double> scratch(3 * (size_t) MAX(last_nlocal, 1));
    pending = false;
    scl_status st = scl_charmm_finish(engine, scratch.data(), nullptr, nullptr, nullptr);
    if (st != SCL_OK) fail(FLERR, "draining a stale step", st);
  }
  ensure_engine();
  if (!stats_base_taken) {
    scl_charmm_stats_get(engine, &stats_base);
    ghost_base = scl_charmm_ghost_steps(engine);
    stats_base_taken = true;
  }
  if (atom->nlocal == 0) return;

  const double t0 = MPI_Wtime();
  const StreamclContext::Span span(lmp, StreamclContext::PAIR);   // host time, transfers
  if (neighbor->ago == 0 || atom->nlocal != last_nlocal || atom->nghost != last_nghost)
    set_atoms();
  if (ghosts_on) set_ghost_box();
  const long gathered = scl_charmm_ghost_steps(engine);
  scl_status st = scl_charmm_compute(engine, atom->x[0], atom->q, eflag_global, vflag_global,
                                     eflag_atom, vflag_atom);
  if (st != SCL_OK) fail(FLERR, "starting the force step", st);
  ghost_step = scl_charmm_ghost_steps(engine) > gathered;
  pending = true;
  computed_step = update->ntimestep;
  compute_time += MPI_Wtime() - t0;
}

const scl_stream *PairLJCharmmCoulLongOCL::device_positions(const scl_context *other,
                                                            int natoms) const
{
  if (!pending || !engine || other != ctx) return nullptr;
  int n = 0;
  const scl_stream *x = scl_charmm_positions(engine, &n);
  return x && n == natoms ? x : nullptr;
}

const scl_stream *PairLJCharmmCoulLongOCL::last_device_positions(const scl_context *other,
                                                                 int natoms) const
{
  // this force evaluation's: pair computed on this step (a minimizer's
  // evaluations all compute the pair), x unchanged since (post_force)
  if (!engine || other != ctx || !compute_flag || computed_step != update->ntimestep)
    return nullptr;
  int n = 0;
  const scl_stream *x = scl_charmm_last_positions(engine, &n);
  return x && n == natoms ? x : nullptr;
}

void PairLJCharmmCoulLongOCL::collect()
{
  if (!pending) return;
  pending = false;
  const StreamclContext::Span span(lmp, StreamclContext::PAIR);   // host time, transfers
  const double t0 = MPI_Wtime();
  scl_charmm_result r;
  scl_status st = scl_charmm_finish(engine, atom->f[0], &r, eflag_atom ? eatom : nullptr,
                                    vflag_atom ? vatom[0] : nullptr);
  wait_time += MPI_Wtime() - t0;
  if (st != SCL_OK) fail(FLERR, "collecting the forces", st);
  if (ghost_step && StreamclContext::ghost_check()) check_ghosts();
  if (eflag_global) {
    if (!std::isfinite(r.evdwl) || !std::isfinite(r.ecoul))
      error->one(FLERR, strf("pair_style lj/charmm/coul/long/ocl: non-finite pair energy "
                             "(E_vdwl %g, E_coul %g) -- check for overlapping atoms or NaN "
                             "coordinates/charges", r.evdwl, r.ecoul));
    eng_vdwl += r.evdwl;
    eng_coul += r.ecoul;
  }
  if (vflag_global)
    for (int k = 0; k < 6; k++) virial[k] += r.virial[k];
}

void PairLJCharmmCoulLongOCL::begin_run_stats()
{
  StreamclContext::begin_run(lmp);
  if (engine) scl_charmm_stats_get(engine, &stats_base);
  ghost_base = scl_charmm_ghost_steps(engine);
  ghost_checked = 0;
  stats_base_taken = true;
  wait_time = compute_time = 0.0;
}

void PairLJCharmmCoulLongOCL::report_run()
{
  if (!engine) return;
  scl_charmm_stats s;
  memset(&s, 0, sizeof s);
  scl_charmm_stats_get(engine, &s);
  const scl_charmm_stats &b = stats_base;
  double local[8] = {s.t_neighbor - b.t_neighbor, s.t_upload - b.t_upload,
                     s.t_force - b.t_force,       s.t_download - b.t_download,
                     s.t_host_reduce - b.t_host_reduce, wait_time, compute_time, 0.0};
  double tmax[8];
  MPI_Reduce(local, tmax, 8, MPI_DOUBLE, MPI_MAX, 0, world);
  double cnt[5] = {(double) (s.steps - b.steps), (double) (s.rebuilds - b.rebuilds),
                   (double) s.neighbors, (double) (scl_charmm_ghost_steps(engine) - ghost_base),
                   (double) ghost_checked};
  double csum[5];
  MPI_Reduce(cnt, csum, 5, MPI_DOUBLE, MPI_SUM, 0, world);
  // each rank's device and force time: one line per device
  const scl_device_info *d = scl_device(ctx);
  enum { NAME = 192 };
  const std::string label = strf("%s %s (%s)", rank_device.empty() ? "default" : rank_device.c_str(),
                                 d ? d->name : "?", d ? d->platform : "?");
  char mine[NAME] = {0};
  memcpy(mine, label.c_str(), label.size() < NAME - 1 ? label.size() : NAME - 1);
  std::vector<char> names(comm->me == 0 ? (size_t) NAME * comm->nprocs : 1);
  std::vector<double> forces(comm->me == 0 ? comm->nprocs : 1);
  MPI_Gather(mine, NAME, MPI_CHAR, names.data(), NAME, MPI_CHAR, 0, world);
  MPI_Gather(&local[2], 1, MPI_DOUBLE, forces.data(), 1, MPI_DOUBLE, 0, world);
  // (every rank runs the same steps)
  const std::string shared = report_shared((double) (s.steps - b.steps));   // collective
  if (comm->me != 0) return;
  std::vector<std::string> devs;
  std::vector<std::string> ranks_of;
  std::vector<double> force_of;
  for (int r = 0; r < comm->nprocs; r++) {
    std::string n(&names[(size_t) r * NAME]);
    size_t k = 0;
    while (k < devs.size() && devs[k] != n) k++;
    if (k == devs.size()) {
      devs.push_back(n);
      ranks_of.emplace_back();
      force_of.push_back(0.0);
    }
    ranks_of[k] += (ranks_of[k].empty() ? "" : ",") + std::to_string(r);
    force_of[k] += forces[r];
  }
  const double steps = csum[0] / comm->nprocs;
  const double pairs_per_s = tmax[2] > 0 ? csum[2] * steps / tmax[2] : 0.0;
  std::string m;
  m += "\n-------------------------------------------------------------------\n";
  m += "   Device Time Info (lj/charmm/coul/long/ocl, run loop, max over ranks):\n";
  m += "-------------------------------------------------------------------\n";
  m += strf("Device: %s (%s), %d rank(s), precision %s, tpa %d, chunks %d, work group %d\n",
            d ? d->name : "?", d ? d->platform : "?", comm->nprocs,
            precision_name(engine_params.precision), s.threads_per_atom, s.chunks, s.work_group);
  if (s.kernel[0] && s.cluster_pairs > 0)
    m += strf("Force kernel: %s (rank 0: %ld cluster pairs of 8 x 8 atoms)\n", s.kernel,
              s.cluster_pairs);
  else if (s.kernel[0])
    m += strf("Force kernel: %s%s (rank 0: %d blocks, %d colours, %d launches per step)\n",
              s.kernel, s.lists == 2 ? ", half lists" : s.lists == 1 ? ", full lists" : "",
              s.blocks, s.colours, s.launches);
  for (size_t k = 0; k < devs.size(); k++)
    m += strf("Device %zu: %s: ranks %s, force %.4f s (sum over its ranks)\n", k,
              devs[k].c_str(), ranks_of[k].c_str(), force_of[k]);
  m += strf("Steps: %.0f  neighbor rebuilds: %.0f  list entries: %.0f (all ranks)\n", steps,
            csum[1] / comm->nprocs, csum[2]);
  m += strf("Neighbor build:   %.4f s\n", tmax[0]);
  m += strf("Data transfer:    %.4f s (upload %.4f, download %.4f)\n", tmax[1] + tmax[3],
            tmax[1], tmax[3]);
  m += strf("Force calc:       %.4f s\n", tmax[2]);
  m += strf("Host reduce:      %.4f s\n", tmax[4]);
  m += strf("Host pack+launch: %.4f s\n", tmax[6]);
  // the style's own host work (waiting excluded), rebuild steps included
  m += strf("Host per step:    %.4f ms  (pack+launch + reduce over %.0f steps)\n",
            steps > 0 ? 1e3 * (tmax[6] + tmax[4]) / steps : 0.0, steps);
  m += strf("Idle (host wait): %.4f s  (host blocked on the device in pre_reverse)\n", tmax[5]);
  m += strf("Pairs/s:          %.4g  (list entries x steps / force time)\n", pairs_per_s);
  // one rank: the steps whose ghost rows the device filled from the owned ones
  m += strf("Ghost rows:       gathered on the device in %.0f of %.0f steps%s", csum[3], steps,
            comm->nprocs > 1 ? " (several ranks: uploaded)"
            : StreamclContext::ghost_gather() ? "" : " (STREAMCL_GHOST_GATHER=0: uploaded)");
  if (StreamclContext::ghost_check())
    m += strf("; checked against forward_comm in %.0f steps: all equal", csum[4]);
  m += "\n";
  m += shared;
  m += "-------------------------------------------------------------------\n\n";
  utils::logmesg(lmp, m);
}

/* The lines of Device Time Info about what the /ocl styles of this instance
   share (collective; the text on rank 0): the streamcl contexts of each
   rank (one is the design: one in-order queue per rank), each style's host
   seconds per step and the host <-> device copies per step of all of them. */
std::string PairLJCharmmCoulLongOCL::report_shared(double steps)
{
  namespace SC = StreamclContext;
  const SC::RunBooks b = SC::run_books(lmp);
  double local[4 + SC::USERS], hi[4 + SC::USERS];
  local[0] = SC::count(lmp);
  local[1] = SC::count_process();
  local[2] = (double) (b.moved.uploads + b.moved.downloads);
  local[3] = (double) (b.moved.upload_bytes + b.moved.download_bytes);
  for (int u = 0; u < SC::USERS; u++) local[4 + u] = b.host[u];
  MPI_Reduce(local, hi, 4 + SC::USERS, MPI_DOUBLE, MPI_MAX, 0, world);
  double bx[2 * SC::USERS], bxmin[2 * SC::USERS];
  for (int u = 0; u < SC::USERS; u++) bx[2 * u] = b.x_shared[u], bx[2 * u + 1] = b.x_uploaded[u];
  // min over ranks: "every rank shared x on every step" reads as all
  MPI_Reduce(bx, bxmin, 2 * SC::USERS, MPI_DOUBLE, MPI_MIN, 0, world);
  double up[4] = {(double) b.moved.uploads, (double) b.moved.upload_bytes,
                  (double) b.moved.downloads, (double) b.moved.download_bytes};
  double upmax[4];
  MPI_Reduce(up, upmax, 4, MPI_DOUBLE, MPI_MAX, 0, world);
  double mine[4 * SC::USERS], by[4 * SC::USERS];
  for (int u = 0; u < SC::USERS; u++) {
    const scl_transfer_stats &t = b.moved_by[u];
    mine[4 * u] = (double) t.uploads, mine[4 * u + 1] = (double) t.upload_bytes;
    mine[4 * u + 2] = (double) t.downloads, mine[4 * u + 3] = (double) t.download_bytes;
  }
  MPI_Reduce(mine, by, 4 * SC::USERS, MPI_DOUBLE, MPI_MAX, 0, world);
  const double built[3] = {(double) b.built.programs, (double) b.built.compiled,
                           (double) b.built.kernels};
  double built_max[3];
  MPI_Reduce(built, built_max, 3, MPI_DOUBLE, MPI_MAX, 0, world);
  if (comm->me != 0) return "";
  const double per = steps > 0 ? 1.0 / steps : 0.0;
  std::string m;
  m += strf("streamcl contexts: %.0f per rank (max over ranks; %.0f in the process), "
            "shared by: %s\n", hi[0], hi[1], SC::users(lmp).c_str());
  m += "Host per step, by style (ms, max over ranks, waits included):";
  for (int u = 0; u < SC::USERS; u++)
    m += strf(" %s %.4f", SC::user_name(u), 1e3 * hi[4 + u] * per);
  m += "\n";
  m += strf("Transfers per step (all styles, max over ranks): %.1f up (%.1f KB), "
            "%.1f down (%.1f KB); %.1f copies, %.1f KB\n",
            upmax[0] * per, upmax[1] * per / 1024.0, upmax[2] * per, upmax[3] * per / 1024.0,
            hi[2] * per, hi[3] * per / 1024.0);
  m += "  by style (up/down per step, KB):";
  for (int u = 0; u < SC::USERS; u++)
    m += strf(" %s %.1f/%.1f (%.0f/%.0f)", SC::user_name(u), by[4 * u] * per, by[4 * u + 2] * per,
              by[4 * u + 1] * per / 1024.0, by[4 * u + 3] * per / 1024.0);
  m += "\n";
  // every /ocl style builds its kernels at set-up: none should be left for the loop
  m += strf("Program builds in the run loop: %.0f (%.0f compiled from source), kernel objects "
            "made: %.0f (max over ranks)\n", built_max[0], built_max[1], built_max[2]);
  std::string xs;
  for (int u = SC::KSPACE; u < SC::USERS; u++)
    if (bxmin[2 * u] + bxmin[2 * u + 1] + hi[4 + u] > 0)   // (the style in use)
      xs += strf(" %s %.0f/%.0f", SC::user_name(u), bxmin[2 * u], bxmin[2 * u + 1]);
  if (!xs.empty())
    m += "Shared x: evaluations reading the pair's device copy / uploading x (min over ranks):" +
         xs + "\n";
  return m;
}
