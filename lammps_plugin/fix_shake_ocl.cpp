#include "fix_shake_ocl.h"

#include "bonded_ocl.h"
#include "device_styles.h"
#include "lammps_compat.h"
#include "pppm_ocl.h"

#include "streamcl_context.h"
#include "strf.h"

#include "atom.h"
#include "comm.h"
#include "domain.h"
#include "error.h"
#include "force.h"
#include "modify.h"
#include "neighbor.h"
#include "pair.h"
#include "update.h"
#include "utils.h"

#include <cstring>

using namespace LAMMPS_NS;

const char *const FixShakeOCL::STYLE = "shake/ocl";

Fix *FixShakeOCL::creator(LAMMPS *lmp, int narg, char **arg)
{
  return new FixShakeOCL(lmp, narg, arg);
}

FixShakeOCL::FixShakeOCL(LAMMPS *lmp, int narg, char **arg) :
    FixShake(lmp, narg, arg), ctx(nullptr), engine(nullptr), clusters_dirty(true),
    natoms_used(0), noted_host_virial(false), host_only(false), wall(0.0), steps_device(0),
    steps_host(0), local_rank(0)
{
}

FixShakeOCL::~FixShakeOCL()
{
  if (engine) scl_shake_free(engine);
  StreamclContext::release(lmp, ctx, StreamclContext::SHAKE);
}

void FixShakeOCL::note(const char *msg)
{
  if (comm->me == 0) utils::logmesg(lmp, strf("fix shake/ocl: %s\n", msg));
}

void FixShakeOCL::init()
{
  FixShake::init();
  rows_step = -1;   // (a run's setup solves in post_force, at the timestep the last run ended)
  // FixShake::init checks these by the style name "shake"; the same rules
  // hold for this style
  int count = 0, npt_at = -1;
  for (int i = 0; i < modify->nfix; i++) {
    const char *s = modify->fix[i]->style;
    if (utils::strmatch(s, "^shake")) count++;
    if (npt_at < 0 && (utils::strmatch(s, "^npt") || utils::strmatch(s, "^nph"))) npt_at = i;
    if (npt_at >= 0 && i > npt_at && modify->fix[i] == this)
      error->all(FLERR, "Shake fix must come before NPT/NPH fix (fix shake/ocl)");
  }
  if (count > 1) error->all(FLERR, "More than one fix shake (fix shake/ocl counts as one)");
  if (update->whichflag == 2) {
    // FixShake::init refuses minimization where LAMMPS has no restraint path
    // (29Sep2021); since 2022 its min_* methods apply restraints, inherited
    note("minimize: FixShake's harmonic restraints, on the host");
    return;
  }
  if (utils::strmatch(update->integrate_style, "^respa")) {
    // rRESPA calls post_force_respa, FixShake's own: no device work at all
    note("run_style respa: the constraints are solved on the host (LAMMPS's fix shake); "
         "use run_style verlet for the device solve");
    return;
  }
  local_rank = StreamclContext::node_rank(world, &node_ranks);   // collective
  if (!host_only) create_engine();
}

/* the device (this rank's, by the pair style's rule: STREAMCL_DEVICE, else
   the node's GPUs round robin by node-local rank), its context (the
   instance's, shared with the other /ocl styles) and the solver; a device
   that cannot run it leaves the host path (noted) */
void FixShakeOCL::create_engine()
{
  if (engine) return;
  if (!ctx) {
    const char *dev = getenv("STREAMCL_DEVICE");
    const std::string want = dev ? dev : "";
    std::string spec, err;
    if (!StreamclContext::resolve(want, local_rank, StreamclContext::env_gpus(), spec, nullptr))
      spec = want;   // no GPU for "gpu": the context's error names it
    scl_status st = SCL_OK;
    ctx = StreamclContext::acquire(lmp, spec, StreamclContext::SHAKE, &st, err);
    if (!ctx)
      error->one(FLERR, strf("fix shake/ocl: no OpenCL device for '%s' (%s): %s -- check "
                             "STREAMCL_DEVICE (cpu, gpu, P:D or a name; 'streamcl devices' "
                             "lists them), or use fix shake",
                             spec.empty() ? "default" : spec.c_str(), scl_status_name(st),
                             err.c_str()));
  }
  if (host_code_chosen()) {
    // FixShake's code needs no context: the other styles' stays shared
    StreamclContext::release(lmp, ctx, StreamclContext::SHAKE);
    ctx = nullptr;
    host_only = true;
    return;
  }
  scl_shake_options o = scl_shake_options_default();
  o.tolerance = tolerance;
  o.max_iter = max_iter;
  const char *prec = getenv("STREAMCL_PRECISION");
  if (prec && !strcmp(prec, "double")) o.precision = SCL_PREC_DOUBLE;
  scl_status st = scl_shake_create(ctx, &o, &engine);
  if (st == SCL_ERR_UNSUPPORTED) {
    note(strf("%s; the constraints are solved on the host (LAMMPS's fix shake)",
              scl_last_error(ctx)).c_str());
    host_only = true;
    return;
  }
  if (st != SCL_OK)
    error->one(FLERR, strf("fix shake/ocl: %s: %s", scl_status_name(st), scl_last_error(ctx)));
  const scl_device_info *dev = scl_device(ctx);
  note(strf("SHAKE clusters solved on the OpenCL device %s (%s)", dev->name, dev->platform)
           .c_str());
}

/* FixShake's setup (its solve there is its own, on the host), then the
   pair's force adder and its kernels: the loop's first step solves in the
   rows already and compiles nothing */
void FixShakeOCL::setup(int vflag)
{
  FixShake::setup(vflag);
  if (engine && !host_only && update->whichflag == 1 &&
      !utils::strmatch(update->integrate_style, "^respa"))
    ensure_rows_adder();
}

/* STREAMCL_SHAKE: host, or auto on a CPU device shared by several ranks of
   the node (each rank then has about one core, and no solve inside the
   pair's rows: LAMMPS's loop is the faster; one rank keeps PoCL's threads
   and the rows; bench/RESULTS.md), puts the constraints on FixShake's host
   code (noted in the log) */
bool FixShakeOCL::host_code_chosen()
{
  const char *bad = nullptr;
  const int mode = StreamclContext::shake_mode(&bad);
  if (bad) error->all(FLERR, strf("STREAMCL_SHAKE='%s' is invalid: use auto, 1 (device) or 0 (host)", bad));
  const bool cpu = !scl_device(ctx)->is_gpu;
  const bool host = mode == StreamclContext::SHAKE_HOST ||
      (mode == StreamclContext::SHAKE_AUTO && cpu && node_ranks > 1);
  if (host)
    note(mode == StreamclContext::SHAKE_HOST
             ? "STREAMCL_SHAKE=host: the constraints are solved on the host (LAMMPS's fix shake)"
             : "a CPU device: the constraints are solved by LAMMPS's fix shake code on the host, "
               "the faster with several ranks on it (STREAMCL_SHAKE=1 solves them on the device)");
  return host;
}

void FixShakeOCL::pre_neighbor()
{
  FixShake::pre_neighbor();    // LAMMPS's list of the clusters this rank solves
  clusters_dirty = true;
}

/* One cluster of the engine: FixShake's cluster of atom m, its atoms at
   local indices idx[] (fix shake's order: central atom first). */
void FixShakeOCL::add_cluster(int m, const int *idx)
{
  const double *rm = atom->rmass, *ms = atom->mass;
  const int *tp = atom->type;
  scl_shake_cluster c;
  memset(&c, 0, sizeof c);
  c.kind = shake_flag[m];
  const int na = c.kind == 1 ? 3 : c.kind;
  for (int p = 0; p < 4; p++) {
    c.atom[p] = p < na ? idx[p] : -1;
    if (p < na) {
      const int j = c.atom[p];
      c.mass[p] = rm ? rm[j] : ms[tp[j]];
      if (j + 1 > natoms_used) natoms_used = j + 1;
    }
  }
  if (c.kind == 1) {
    c.dist[0] = bond_distance[shake_type[m][0]];
    c.dist[1] = bond_distance[shake_type[m][1]];
    c.dist[2] = angle_distance[shake_type[m][2]];
  } else {
    for (int q = 0; q < c.kind - 1; q++) c.dist[q] = bond_distance[shake_type[m][q]];
  }
  clusters.push_back(c);
}

/* Whether the engine's clusters are not those upload_clusters(owned) gives. */
bool FixShakeOCL::clusters_stale(bool owned) const
{
#if STREAMCL_LAMMPS_SHAKE_CLOSEST
  return clusters_dirty || clusters_owned != owned;
#else
  (void) owned;
  return clusters_dirty;   // one numbering: FixShake's list is by owned atoms
#endif
}

/* The clusters as the engine takes them. FixShake's list (owned = false):
   local indices as FixShake::shake* look them up (closest_list on 2022+
   LAMMPS, where a cluster across a periodic boundary is listed once per
   owned atom that lists it, with that atom's closest images, some of them
   ghosts; atom->map on 29Sep2021). owned = true (the solve in the pair's
   rows, one rank): every cluster once, by its owned atoms (atom->map, as
   29Sep2021 lists them; the kernel takes the minimum image); false, and
   the engine's clusters kept, where some atom has no owned copy here. On
   29Sep2021 both are FixShake's list. */
bool FixShakeOCL::upload_clusters(bool owned)
{
#if !STREAMCL_LAMMPS_SHAKE_CLOSEST
  owned = false;
#endif
  const int used_before = natoms_used;
  clusters.clear();
  clusters.reserve(nlist);
  natoms_used = 0;
  int idx[4] = {-1, -1, -1, -1};
  for (int i = 0; !owned && i < nlist; i++) {
    const int m = list[i], na = shake_flag[m] == 1 ? 3 : shake_flag[m];
    for (int p = 0; p < na; p++)
#if STREAMCL_LAMMPS_SHAKE_CLOSEST
      idx[p] = closest_list[i][p];
#else
      idx[p] = atom->map(shake_atom[m][p]);
#endif
    add_cluster(m, idx);
  }
  const int nlocal = atom->nlocal;
  for (int i = 0; owned && i < nlocal; i++) {
    if (!shake_flag[i]) continue;
    const int na = shake_flag[i] == 1 ? 3 : shake_flag[i];
    bool first = true;
    for (int p = 0; p < na; p++) {
      idx[p] = atom->map(shake_atom[i][p]);
      if (idx[p] < 0 || idx[p] >= nlocal) {
        natoms_used = used_before;   // (the engine's clusters stay as they were)
        return false;
      }
      first = first && i <= idx[p];
    }
    if (first) add_cluster(i, idx);
  }
  scl_status st = scl_shake_set_clusters(engine, (int) clusters.size(), clusters.data());
  if (st != SCL_OK)
    error->one(FLERR, strf("fix shake/ocl: %s: %s", scl_status_name(st), scl_last_error(ctx)));
  clusters_dirty = false;
  clusters_owned = owned;
  return true;
}

void FixShakeOCL::post_force(int vflag)
{
  // per-atom virial: FixShake's loop (its v_tally fills vatom)
  if (host_only || (vflag & VIRIAL_ATOM) || (vflag & VIRIAL_CENTROID)) {
    if (!host_only && !noted_host_virial) {
      note("per-atom virial requested: those steps are solved on the host");
      noted_host_virial = true;
    }
    FixShake::post_force(vflag);
    steps_host++;
    return;
  }
  const double t0 = MPI_Wtime();
  const StreamclContext::Span span(lmp, StreamclContext::SHAKE);   // host time, transfers
  if (update->ntimestep == next_output) stats();
  ensure_rows_adder();
  if (rows_step == update->ntimestep) {
    // solved in the pair's force rows (rows_adder): the forces are in f
    // already, the virial is booked here as FixShake books it
#if STREAMCL_LAMMPS_SHAKE_CLOSEST
    ev_init(eflag_pre_reverse, vflag);
    ebond = 0.0;
#else
    v_init(vflag);
#endif
    if (evflag && vflag_global) {
      if (!rows_tallied)
        error->one(FLERR, "fix shake/ocl: the step solved in the pair's force rows did not tally "
                          "the virial this step asks for -- run with STREAMCL_SHAKE_ROWS=0 and "
                          "report it");
      for (int k = 0; k < 6; k++) virial[k] += rows_virial[k];
    }
    vflag_post_force = vflag;
    wall += MPI_Wtime() - t0;
    steps_rows++;
    return;
  }

  // xshake = the unconstrained move with the current v, f (FixShake's), and
  // its ghost values from the owners
  unconstrained_update();
#if STREAMCL_LAMMPS_SHAKE_CLOSEST
  // the closest images are ghosts even on one rank: their xshake (shifted)
  // comes by forward comm always, as FixShake::post_force does
  streamcl_compat::forward_comm_fix(comm, this);
  ev_init(eflag_pre_reverse, vflag);
  ebond = 0.0;
#else
  if (comm->nprocs > 1) streamcl_compat::forward_comm_fix(comm, this);
  v_init(vflag);
#endif

  if (clusters_stale(false)) upload_clusters(false);

#if STREAMCL_LAMMPS_SHAKE_CLOSEST
  // closest images already: FixShake applies no minimum image (an aperiodic
  // box makes the kernel's a no-op, the same bits)
  scl_shake_input in = solve_input(atom->nlocal, false);
#else
  scl_shake_input in = solve_input(atom->nlocal, true);
#endif
  in.x = natoms_used ? &atom->x[0][0] : nullptr;
  in.xshake = natoms_used ? &xshake[0][0] : nullptr;
  const bool tally = evflag && vflag_global;
  // x from the pair style's device copy of this step where it has one on
  // this context (STREAMCL_SHARE_X=0: uploaded, for A/B); xshake goes up
  const scl_stream *xdev = nullptr;
  if (share_x < 0) share_x = StreamclContext::share_x();
  if (share_x && natoms_used && !utils::strmatch(update->integrate_style, "^respa"))
    if (auto *pair = dynamic_cast<StreamclDevicePair *>(force->pair))
      xdev = pair->last_device_positions(ctx, atom->nlocal + atom->nghost);
  if (nlist > 0) {
    double *f = &atom->f[0][0], *vir = tally ? virial : nullptr;
    scl_status st = xdev ? scl_shake_solve_device_x(engine, &in, xdev, f, vir)
                         : scl_shake_solve(engine, &in, f, vir);
    StreamclContext::note_x(lmp, StreamclContext::SHAKE, xdev != nullptr);
    check_solve(st);
  }
  vflag_post_force = vflag;
  wall += MPI_Wtime() - t0;
  steps_device++;
}

/* The solve's input but for x and xshake: the clusters' atoms, dtfsq and
   the box (periodic false: no minimum image in the kernel). */
scl_shake_input FixShakeOCL::solve_input(int nlocal, bool periodic) const
{
  scl_shake_input in;
  memset(&in, 0, sizeof in);
  in.natoms = natoms_used;
  in.nlocal = nlocal;
  in.dtfsq = dtfsq;
  in.box.periodic[0] = periodic ? domain->xperiodic : 0;
  in.box.periodic[1] = periodic ? domain->yperiodic : 0;
  in.box.periodic[2] = periodic ? domain->zperiodic : 0;
  in.box.triclinic = domain->triclinic;
  in.box.prd[0] = domain->xprd;
  in.box.prd[1] = domain->yprd;
  in.box.prd[2] = domain->zprd;
  in.box.xy = domain->xy;
  in.box.xz = domain->xz;
  in.box.yz = domain->yz;
  return in;
}

/* A solve's status as LAMMPS's FixShake reports it: a zero determinant is
   its error, a negative one its warning. */
void FixShakeOCL::check_solve(scl_status st)
{
  if (st == SCL_ERR_INPUT && strstr(scl_last_error(ctx), "determinant"))
    error->one(FLERR, strf("Shake determinant = 0.0 (fix shake/ocl: %s)", scl_last_error(ctx)));
  if (st != SCL_OK)
    error->one(FLERR, strf("fix shake/ocl: %s: %s", scl_status_name(st), scl_last_error(ctx)));
  scl_shake_stats ss;
  scl_shake_stats_get(engine, &ss);
  if (ss.last_negative > 0) error->warning(FLERR, "Shake determinant < 0.0");
}

void FixShakeOCL::ensure_rows_adder()
{
  if (rows_mode < 0) rows_mode = StreamclContext::shake_rows() ? 1 : 0;
  if (!rows_mode || comm->nprocs != 1 || !StreamclContext::one_download()) return;
  auto *pair = dynamic_cast<StreamclDevicePair *>(force->pair);
  scl_charmm *pe = pair ? pair->force_engine(ctx) : nullptr;
  if (!pe) return;
  // the rows kernels now (set-up's post_force; the loop's first step would
  // build them otherwise); nothing once built
  scl_status st = scl_shake_prepare_rows(engine, scl_charmm_force_type(pe));
  if (st != SCL_OK)
    error->one(FLERR, strf("fix shake/ocl: building the kernels of the solve in the pair's "
                           "force rows: %s -- run with STREAMCL_SHAKE_ROWS=0", scl_last_error(ctx)));
  if (pair == rows_pair) return;
  st = pair->set_force_adder(StreamclContext::SHAKE, &rows_adder, 0);
  if (st != SCL_OK)
    error->one(FLERR, strf("fix shake/ocl: setting the pair's force adder: %s -- run with "
                           "STREAMCL_SHAKE_ROWS=0", scl_last_error(ctx)));
  rows_pair = pair;
}

/* Called by the pair's finish, after the bonded and kspace adders: found
   through the instance (the fix may be gone). */
int FixShakeOCL::rows_adder(LAMMPS *lmp, scl_stream *f, scl_type type, int nlocal, int)
{
  Modify *mod = lmp->modify;
  for (int i = 0; mod && i < mod->nfix; i++)
    if (auto *fix = dynamic_cast<FixShakeOCL *>(mod->fix[i]))
      return fix->solve_in_rows(f, type, nlocal);
  return 0;
}

/* Every force of this step is in the pair's rows: the bonded styles all
   /ocl with their forces there (their ghost rows: *ghosts), pppm/ocl's
   there, and no fix before this one adds forces in post_force. */
bool FixShakeOCL::forces_in_rows(const int **ghosts, int *nghosts)
{
  *ghosts = nullptr;
  *nghosts = 0;
  const bool kinds[4] = {force->bond != nullptr, force->angle != nullptr,
                         force->dihedral != nullptr, force->improper != nullptr};
  const char *names[4] = {force->bond_style, force->angle_style, force->dihedral_style,
                          force->improper_style};
  bool any = false;
  for (int k = 0; k < 4; k++) {
    if (!kinds[k]) continue;
    if (!names[k] || !utils::strmatch(names[k], "/ocl$")) return false;
    any = true;
  }
  if (any && !bonded_ocl_forces_in_pair(lmp, ghosts, nghosts)) return false;
  if (force->kspace) {
    auto *k = dynamic_cast<PPPMOCL *>(force->kspace);
    if (!k || !k->forces_in_pair()) return false;
  }
  for (int i = 0; i < modify->nfix && modify->fix[i] != this; i++)
    if (modify->fmask[i] & FixConst::POST_FORCE) return false;
  return true;
}

/* Each owned atom's extra rows: the bonded ghost rows of its images (row
   nlocal + j holds ghost ghosts[j]'s force, which LAMMPS's reverse
   communication adds to its owner). Set on re-neighbor steps and when the
   list changes; false where a ghost has no owned atom here. */
bool FixShakeOCL::set_extra_rows(const int *ghosts, int nghosts, int nlocal)
{
  const bool same = extra_nlocal == nlocal && extra_step >= neighbor->lastcall &&
      (int) extra_ghosts.size() == nghosts &&
      (nghosts == 0 || !memcmp(extra_ghosts.data(), ghosts, sizeof(int) * nghosts));
  if (same) return true;
  extra_step = -1;
  extra_start.assign((size_t) nlocal + 1, 0);
  extra_rows.resize(nghosts > 0 ? nghosts : 1);
  std::vector<int> owner(nghosts > 0 ? nghosts : 1);
  for (int j = 0; j < nghosts; j++) {
    owner[j] = atom->map(atom->tag[ghosts[j]]);
    if (owner[j] < 0 || owner[j] >= nlocal) return false;
    extra_start[owner[j] + 1]++;
  }
  for (int i = 0; i < nlocal; i++) extra_start[i + 1] += extra_start[i];
  std::vector<int> at(extra_start.begin(), extra_start.end() - 1);
  for (int j = 0; j < nghosts; j++) extra_rows[at[owner[j]]++] = nlocal + j;
  scl_status st = scl_shake_set_extra_rows(engine, nlocal, extra_start.data(), extra_rows.data());
  if (st != SCL_OK)
    error->one(FLERR, strf("fix shake/ocl: %s: %s", scl_status_name(st), scl_last_error(ctx)));
  extra_ghosts.assign(ghosts, ghosts + nghosts);
  extra_nlocal = nlocal;
  extra_step = update->ntimestep;
  return true;
}

/* The pair's force hook: on a plain MD step of one rank whose forces are
   all in the rows, the whole of FixShake's post_force on the device, the
   constraint forces into the rows before their download. Else nothing
   (post_force does it). Returns the extra rows written (none). */
int FixShakeOCL::solve_in_rows(scl_stream *f, scl_type type, int nlocal)
{
  if (!rows_mode || host_only || !engine || update->setupflag || update->whichflag != 1 ||
      comm->nprocs != 1 || nlocal != atom->nlocal)
    return 0;
  auto *pair = dynamic_cast<StreamclDevicePair *>(force->pair);
  // per-atom virial: the host's
  if (!pair || force->pair->vflag_atom || force->pair->cvflag_atom) return 0;
  const int *ghosts = nullptr;
  int nghosts = 0;
  if (!forces_in_rows(&ghosts, &nghosts)) return 0;
  const scl_stream *xdev = pair->last_device_positions(ctx, atom->nlocal + atom->nghost);
  if (!xdev) return 0;
  // the clusters by their owned atoms (2022+: FixShake's list has ghosts)
  if (clusters_stale(true) && !upload_clusters(true)) return 0;
  if (natoms_used > nlocal || !set_extra_rows(ghosts, nghosts, nlocal)) return 0;
  scl_shake_input in = solve_input(nlocal, true);
  scl_shake_rows r;
  r.x = xdev;
  r.rows = f;
  r.rows_type = type;
  r.v = natoms_used ? atom->v[0] : nullptr;
  r.dtv = dtv;
  r.v_dev = device_v;
  rows_tallied = force->pair->vflag_global != 0;
  for (double &w : rows_virial) w = 0.0;
  check_solve(scl_shake_solve_rows(engine, &in, &r, rows_tallied ? rows_virial : nullptr));
  StreamclContext::note_x(lmp, StreamclContext::SHAKE, true);
  rows_step = update->ntimestep;
  return 0;
}

/* the run's summary (rank 0's numbers), then counters from zero */
void FixShakeOCL::post_run()
{
  FixShake::post_run();    // 2022+: the SHAKE stats at the end of a minimization
  rows_step = -1;
  if (engine && steps_device + steps_rows > 0) {
    scl_shake_stats ss;
    scl_shake_stats_get(engine, &ss);
    note(strf("%ld steps on the device (%ld of them inside the pair's force rows), %.1f us "
              "per step in post_force (host wall, incl. the unconstrained update and its comm), "
              "device seconds: solve %.4f, upload %.4f, download %.4f; %ld steps on the host; "
              "%d clusters on rank 0",
              steps_device + steps_rows, steps_rows, 1e6 * wall / (steps_device + steps_rows),
              ss.t_solve, ss.t_upload, ss.t_download, steps_host,
              scl_shake_cluster_count(engine)).c_str());
  }
  if (engine) scl_shake_stats_reset(engine);
  wall = 0.0;
  steps_device = steps_host = steps_rows = 0;
}
