/* The four bonded /ocl styles and the engine they share (see bonded_ocl.h). */
#include "bonded_ocl.h"
#include "device_styles.h"
#include "streamcl_context.h"
#include "strf.h"

#include "atom.h"
#include "comm.h"
#include "error.h"
#include "fix.h"
#include "force.h"
#include "lammps.h"
#include "modify.h"
#include "timer.h"
#include "neighbor.h"
#include "pair.h"
#include "pointers.h"
#include "update.h"

#include "streamcl/charmm.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mpi.h>
#include <string>

namespace LAMMPS_NS {

/* One per LAMMPS instance, shared by its /ocl bonded styles (reference
   counted by them: `clear` deletes the styles and with the last one the
   engine). */
class BondedOCLEngine : protected Pointers {
 public:
  static BondedOCLEngine *acquire(LAMMPS *lmp);
  static void release(BondedOCLEngine *e);
  static BondedOCLEngine *find(LAMMPS *lmp);
  friend bool bonded_ocl_forces_in_pair(LAMMPS *lmp, const int **ghosts, int *n);

  BondHarmonicOCL *bond = nullptr;
  AngleCharmmOCL *angle = nullptr;
  DihedralCharmmOCL *dihedral = nullptr;
  ImproperHarmonicOCL *improper = nullptr;

  void coeffs_changed() { coeffs_dirty = true; }
  // Called by the style of `kind` in its compute(): the evaluation in flight
  // covers it, or (the first style of a force evaluation) one is started for
  // every active kind: x goes up, the kernels are queued, nothing waits.
  void start_for(int kind, int eflag, int vflag);
  // pre_reverse (the internal fix): wait, add every kind's forces to atom->f,
  // and hand each style its energies, virial and per-atom tallies.
  void collect();
  const scl_bonded_result &last() const { return result; }
  const double *eatom_of(int kind) const { return eatom_buf.data() + (size_t) kind * nall; }
  const double *vatom_of(int kind) const { return vatom_buf.data() + (size_t) kind * nall * 6; }
  int gathered() const { return ngather; }
  // Whether this evaluation runs on the device: not where LAMMPS's host code
  // is chosen for the device type (host_code()), nor for steps that ask for
  // the centroid per-atom virial, a split the device does not make (all four
  // styles alike, since they see the same vflag).
  bool device_computes(int vflag) { return !(vflag & VIRIAL_CENTROID) && !host_code(); }
  // STREAMCL_BONDED auto (the default): LAMMPS's host code on a CPU device
  // shared by several ranks of the node, whose OpenCL then runs on the
  // rank's own core and is slower than LAMMPS's loops there; else the device. Resolved once, from the styles'
  // init_style (collective: every rank's first one asks its device).
  bool host_code();
  void wait_device();   // host code: the device's queue drained first
  const scl_context *context() const { return ctx; }

 private:
  explicit BondedOCLEngine(LAMMPS *lmp) : Pointers(lmp) {}
  ~BondedOCLEngine();
  void start(int eflag, int vflag);
  int active_kinds() const;
  void upload_coeffs();
  void update_topology();
  void create();
  void create_context();
  [[noreturn]] void fail(const char *file, int line, const std::string &what, scl_status st);

  int refs = 0;
  scl_context *ctx = nullptr;
  scl_bonded *engine = nullptr;
  int host = -1;   // host_code(): -1 not resolved yet
  bool coeffs_dirty = true, topo_valid = false, in_flight = false;
  int active = 0, unclaimed = 0, flags = 0;
  int nlocal = -1, nall = -1, ngather = 0;
  int counts[4] = {-1, -1, -1, -1};
  const int *lists[4] = {nullptr, nullptr, nullptr, nullptr};
  int newton = -1;
  int share_x = -1;   // read x from the pair's device copy (STREAMCL_SHARE_X=0: no)
  int one_download = -1;   // forces into the pair's (STREAMCL_ONE_DOWNLOAD=0: no)
  // the pair engine our force hook is set on, the extra rows asked of it,
  // and whether the evaluation in flight sums its forces into that one's
  scl_charmm *hooked_on = nullptr;
  int rows_asked = 0;
  const void *adder_pair = nullptr;   // the pair style our adder was set on
  bool deferred = false;
  static int force_hook(LAMMPS *lmp, scl_stream *f, scl_type type, int nlocal, int extra);
  bool defer_forces(const scl_stream *xdev);
  scl_bonded_result result{};
  std::vector<double> eatom_buf, vatom_buf;

  static std::map<LAMMPS *, BondedOCLEngine *> &instances()
  {
    static std::map<LAMMPS *, BondedOCLEngine *> m;
    return m;
  }
};

BondedOCLEngine *BondedOCLEngine::find(LAMMPS *lmp)
{
  auto it = instances().find(lmp);
  return it == instances().end() ? nullptr : it->second;
}

BondedOCLEngine *BondedOCLEngine::acquire(LAMMPS *lmp)
{
  BondedOCLEngine *&e = instances()[lmp];
  if (!e) e = new BondedOCLEngine(lmp);
  e->refs++;
  return e;
}

void BondedOCLEngine::release(BondedOCLEngine *e)
{
  if (!e || --e->refs > 0) return;
  instances().erase(e->lmp);
  delete e;
}

BondedOCLEngine::~BondedOCLEngine()
{
  if (engine) scl_bonded_free(engine);
  StreamclContext::release(lmp, ctx, StreamclContext::BONDED);
}

void BondedOCLEngine::fail(const char *file, int line, const std::string &what, scl_status st)
{
  error->one(file, line, strf("bonded /ocl styles: %s failed (%s): %s", what.c_str(),
                              scl_status_name(st), ctx ? scl_last_error(ctx) : ""));
}

/* This rank's device (the pair style's rule: the node's GPUs, or the first
   STREAMCL_GPUS of them, round robin by node-local rank unless STREAMCL_DEVICE
   names one; the pair style's `gpus` keyword is not seen here) and its
   context (the instance's, shared with the other /ocl styles). Collective:
   every rank's first init_style (host_code()) or compute calls it. */
void BondedOCLEngine::create_context()
{
  const char *dev = getenv("STREAMCL_DEVICE");
  const std::string want = dev ? dev : "";
  const int local_rank = StreamclContext::node_rank(world, nullptr);
  std::string spec;
  // no GPU for "gpu": the spec as given, and the context's error names it
  if (!StreamclContext::resolve(want, local_rank, StreamclContext::env_gpus(), spec, nullptr))
    spec = want;
  scl_status st = SCL_OK;
  std::string err;
  ctx = StreamclContext::acquire(lmp, spec, StreamclContext::BONDED, &st, err);
  if (!ctx)
    error->one(FLERR, strf("bonded /ocl styles: no OpenCL device for '%s' (%s): %s -- check "
                           "STREAMCL_DEVICE (cpu, gpu, P:D or a name)",
                           spec.empty() ? "default" : spec.c_str(), scl_status_name(st),
                           err.c_str()));
}

void BondedOCLEngine::create()
{
  if (!ctx) create_context();
  scl_bonded_options o;
  scl_bonded_options_default(&o);
  const char *p = getenv("STREAMCL_PRECISION");
  if (p && !strcmp(p, "double")) o.precision = SCL_PREC_DOUBLE;
  else if (p && *p && strcmp(p, "mixed") && strcmp(p, "single"))
    error->all(FLERR, strf("STREAMCL_PRECISION='%s' is invalid: use single, mixed or double", p));
  const scl_status st = scl_bonded_create(ctx, &o, &engine);
  if (st) fail(FLERR, "creating the bonded engine", st);
}

/* Host code on a CPU device: the pair's kernel queued this step runs on the
   same cores, on PoCL's threads, in launches that each end in a barrier of
   all of them; LAMMPS's loops beside it take a core from a launch at a time
   and every launch waits for it. So the host terms wait for the queue to
   drain (the context is the pair's; a no-op once drained). */
void BondedOCLEngine::wait_device()
{
  if (!ctx) return;
  const scl_status st = scl_finish(ctx);
  if (st) fail(FLERR, "waiting for the device before the host bonded terms", st);
}

bool BondedOCLEngine::host_code()
{
  if (host >= 0) return host != 0;
  const char *bad = nullptr;
  const int mode = StreamclContext::bonded_mode(&bad);
  if (bad)
    error->all(FLERR, strf("STREAMCL_BONDED='%s' is invalid: use auto, 1 (device) or 0 (host)", bad));
  if (mode == StreamclContext::BONDED_DEVICE) {
    host = 0;
    return false;
  }
  if (!ctx) create_context();
  // one rank: PoCL's threads on all cores run the terms beside the pair's
  // (and fix shake/ocl solves in the pair's rows); several ranks of a node
  // have about a core each, where LAMMPS's loops are the faster
  int node_ranks = 1;
  StreamclContext::node_rank(world, &node_ranks);   // collective
  host = !scl_device(ctx)->is_gpu && node_ranks > 1 ? 1 : 0;
  if (comm->me == 0)
    utils::logmesg(lmp, host ? strf("bonded /ocl styles: %s is a CPU device: LAMMPS's host code "
                                    "computes the bonded terms (%d ranks share it; "
                                    "STREAMCL_BONDED=1 runs them on it)\n",
                                    scl_device(ctx)->name, node_ranks)
                             : strf("bonded /ocl styles: on the device %s\n", scl_device(ctx)->name));
  return host != 0;
}

/* The pair engine calls this in its finish, before its force read-back:
   the deferred evaluation's sums go into the pair's rows (again if the pair
   recomputes its step). Found through the LAMMPS instance, not held: the
   styles may be deleted in any order (Force's destructor deletes the pair
   before the bonded styles), and a pair outliving this engine then finds
   none here. */
int BondedOCLEngine::force_hook(LAMMPS *lmp, scl_stream *f, scl_type type, int nlocal, int extra)
{
  BondedOCLEngine *e = find(lmp);
  if (!e || !e->in_flight || !e->deferred) return 0;
  return scl_bonded_gather_into(e->engine, f, type, nlocal, extra);
}

bool bonded_ocl_forces_in_pair(LAMMPS *lmp, const int **ghosts, int *n)
{
  BondedOCLEngine *e = BondedOCLEngine::find(lmp);
  *ghosts = nullptr;
  *n = 0;
  if (!e || !e->in_flight || !e->deferred) return false;
  *ghosts = scl_bonded_ghost_atoms(e->engine, n);
  return true;
}

/* Whether this evaluation (x from the pair's step in flight) can add its
   forces into the pair's: the pair's step calls our hook with room for the
   ghost rows. Otherwise it downloads its own, and the hook is (re)set with
   room to spare for the next steps. */
bool BondedOCLEngine::defer_forces(const scl_stream *xdev)
{
  if (one_download < 0) one_download = StreamclContext::one_download();
  auto *pair = dynamic_cast<StreamclDevicePair *>(force->pair);
  scl_charmm *pe = pair && xdev && one_download ? pair->force_engine(ctx) : nullptr;
  if (!pe) return false;
  const int need = scl_bonded_ghost_rows(engine);
  const int room = pair->adder_rows();   // -1: this step calls no adder
  hooked_on = pe;
  // our adder (read by the pair's finish when it runs) with rows to spare:
  // set where missing or short; more rows take effect at re-neighboring
  if (room < 0 || adder_pair != pair || rows_asked < need) {
    rows_asked = std::max(rows_asked, need + need / 4 + 64);
    scl_status st = pair->set_force_adder(StreamclContext::BONDED, &force_hook, rows_asked);
    if (st) fail(FLERR, "setting the force hook", st);
    adder_pair = pair;
  }
  return room >= need;
}

/* The kinds whose /ocl style LAMMPS has installed now. */
int BondedOCLEngine::active_kinds() const
{
  int a = 0;
  if (bond && force->bond == bond) a |= 1 << SCL_BONDED_BOND;
  if (angle && force->angle == angle) a |= 1 << SCL_BONDED_ANGLE;
  if (dihedral && force->dihedral == dihedral) a |= 1 << SCL_BONDED_DIHEDRAL;
  if (improper && force->improper == improper) a |= 1 << SCL_BONDED_IMPROPER;
  return a;
}

/* The active styles' coefficients, after any change. */
void BondedOCLEngine::upload_coeffs()
{
  scl_bonded_coeffs c;
  memset(&c, 0, sizeof c);
  c.type_base = 1;
  if (active & (1 << SCL_BONDED_BOND)) bond->coeffs(c);
  if (active & (1 << SCL_BONDED_ANGLE)) angle->coeffs(c);
  if (active & (1 << SCL_BONDED_DIHEDRAL)) dihedral->coeffs(c);
  if (active & (1 << SCL_BONDED_IMPROPER)) improper->coeffs(c);
  topo_valid = false;   // the set of kinds may have changed
  scl_status st = scl_bonded_set_coeffs(engine, &c);
  if (st) fail(FLERR, "setting the coefficients", st);
  coeffs_dirty = false;
}

/* The term lists up when LAMMPS rebuilt them (or their sizes changed). */
void BondedOCLEngine::update_topology()
{
  const int nl = atom->nlocal, na = atom->nlocal + atom->nghost;
  int *const *src[4] = {neighbor->bondlist, neighbor->anglelist, neighbor->dihedrallist,
                        neighbor->improperlist};
  const int count[4] = {neighbor->nbondlist, neighbor->nanglelist, neighbor->ndihedrallist,
                        neighbor->nimproperlist};
  int n[4] = {0, 0, 0, 0};
  const int *l[4] = {nullptr, nullptr, nullptr, nullptr};
  for (int k = 0; k < 4; k++)
    if (active & (1 << k)) n[k] = count[k], l[k] = n[k] ? src[k][0] : nullptr;
  bool same = topo_valid && neighbor->ago != 0 && nl == nlocal && na == nall &&
      newton == force->newton_bond;
  for (int k = 0; k < 4; k++) same = same && n[k] == counts[k] && l[k] == lists[k];
  if (same) return;
  scl_bonded_topology t = {nl, na, force->newton_bond, n[0], n[1], n[2], n[3], l[0], l[1],
                           l[2], l[3], atom->type, atom->q};
  scl_status st = scl_bonded_set_topology(engine, &t);
  if (st) fail(FLERR, "uploading the term lists", st);
  nlocal = nl;
  nall = na;
  newton = force->newton_bond;
  for (int k = 0; k < 4; k++) counts[k] = n[k], lists[k] = l[k];
  topo_valid = true;
  ngather = scl_bonded_gather_count(engine);
}

void BondedOCLEngine::start(int eflag, int vflag)
{
  const StreamclContext::Span span(lmp, StreamclContext::BONDED);   // host time, transfers
  active = active_kinds();
  if (!engine) create();
  if (share_x < 0) share_x = StreamclContext::share_x();
  if (coeffs_dirty) upload_coeffs();
  update_topology();
  flags = (eflag || vflag) ? SCL_BONDED_TALLY : 0;
  if ((eflag & ENERGY_ATOM) || (vflag & VIRIAL_ATOM)) {
    flags |= SCL_BONDED_PER_ATOM;
    eatom_buf.resize((size_t) SCL_BONDED_KINDS * nall);
    vatom_buf.resize((size_t) SCL_BONDED_KINDS * nall * 6);
    result.eatom = eatom_buf.data();
    result.vatom = vatom_buf.data();
  } else {
    result.eatom = result.vatom = nullptr;
  }
  // x stays as it is until pre_reverse: the owned atoms' come from the pair
  // style's device copy of this step's x where it has one on this context
  // (STREAMCL_SHARE_X=0: uploaded here, for A/B), else from LAMMPS's array
  const double *x = atom->x ? atom->x[0] : nullptr;
  const scl_stream *xdev = nullptr;
  auto *pair = share_x ? dynamic_cast<StreamclDevicePair *>(force->pair) : nullptr;
  if (pair) xdev = pair->device_positions(ctx, nall);
  if (scl_charmm *pe = xdev ? pair->force_engine(ctx) : nullptr) {
    // the device forms' kernels now, at set-up's evaluation (the loop's
    // first step would build them otherwise); nothing once built
    scl_status st = scl_bonded_prepare_rows(engine, scl_charmm_force_type(pe));
    if (st) fail(FLERR, "building the kernels of the device forces", st);
  }
  deferred = defer_forces(xdev);
  if (deferred) flags |= SCL_BONDED_DEVICE_FORCES;
  scl_status st = xdev ? scl_bonded_compute_start_device(engine, xdev, x, nullptr, flags)
                       : scl_bonded_compute_start(engine, x, nullptr, flags);
  if (st) fail(FLERR, "starting the bonded terms", st);
  StreamclContext::note_x(lmp, StreamclContext::BONDED, xdev != nullptr);
  in_flight = true;
  unclaimed = active;
}

void BondedOCLEngine::start_for(int kind, int eflag, int vflag)
{
  const int bit = 1 << kind;
  if (!(in_flight && (unclaimed & bit))) {
    if (in_flight) collect();   // an older evaluation no pre_reverse collected
    start(eflag, vflag);
  }
  unclaimed &= ~bit;
}

void BondedOCLEngine::collect()
{
  if (!in_flight) return;
  // the pair's finish sums our forces into its download (its hook sees this
  // evaluation in flight): the owned atoms' come into f with the pair's,
  // the ghosts' in its extra rows
  if (deferred)
    if (auto *pair = dynamic_cast<StreamclDevicePair *>(force->pair)) pair->collect();
  in_flight = false;
  double *f = atom->f ? atom->f[0] : nullptr;
  scl_status st;
  if (deferred) {
    const StreamclContext::Span span(lmp, StreamclContext::BONDED);
    int rows = 0;
    scl_type type = SCL_DOUBLE;
    const void *ghost = scl_charmm_extra_forces(hooked_on, &rows, &type);
    st = scl_bonded_compute_finish_rows(engine, ghost, type, f, &result);
  } else {
    const StreamclContext::Span span(lmp, StreamclContext::BONDED);   // host time, transfers
    st = scl_bonded_compute_finish(engine, f, &result);
  }
  if (st) fail(FLERR, "computing the bonded terms", st);
  if (!(flags & SCL_BONDED_TALLY)) {
    memset(result.energy, 0, sizeof result.energy);
    memset(result.virial, 0, sizeof result.virial);
    result.energy_coul = 0;
  }
  if (bond && (active & (1 << SCL_BONDED_BOND))) bond->deliver();
  if (angle && (active & (1 << SCL_BONDED_ANGLE))) angle->deliver();
  if (dihedral && (active & (1 << SCL_BONDED_DIHEDRAL))) dihedral->deliver();
  if (improper && (active & (1 << SCL_BONDED_IMPROPER))) improper->deliver();
}

/* Adds one kind's tallies to a style's own, for the flags its ev_init set. */
template <class Style>
static void add_tallies(const BondedOCLEngine &e, int kind, int eflag_global, int vflag_global,
                        int eflag_atom, int vflag_atom, double &energy, double *virial,
                        double *eatom, double **vatom)
{
  const scl_bonded_result &r = e.last();
  if (eflag_global) energy += r.energy[kind];
  if (vflag_global)
    for (int c = 0; c < 6; c++) virial[c] += r.virial[kind][c];
  if (eflag_atom && r.eatom) {
    const double *v = e.eatom_of(kind);
    for (int i = 0; i < e.gathered(); i++) eatom[i] += v[i];
  }
  if (vflag_atom && r.vatom) {
    const double *v = e.vatom_of(kind);
    for (int i = 0; i < e.gathered(); i++)
      for (int c = 0; c < 6; c++) vatom[i][c] += v[6 * i + c];
  }
}

/* The internal fix that collects the bonded terms in pre_reverse (after the
   pair, bond and kspace computes, before reverse communication), in runs,
   setup and minimization; the wait counts as Bond time in LAMMPS's
   breakdown. */
class FixStreamclBonded : public Fix {
 public:
  static constexpr const char *STYLE = "STREAMCL/BONDED";
  static constexpr const char *ID = "streamcl_bonded";
  static Fix *creator(LAMMPS *lmp, int narg, char **arg) { return new FixStreamclBonded(lmp, narg, arg); }
  FixStreamclBonded(LAMMPS *lmp, int narg, char **arg) : Fix(lmp, narg, arg) {}
  int setmask() override { return FixConst::PRE_REVERSE | FixConst::MIN_PRE_REVERSE; }
  void setup_pre_reverse(int, int) override { collect(); }
  void pre_reverse(int, int) override
  {
    timer->stamp(Timer::MODIFY);
    collect();
    timer->stamp(Timer::BOND);
  }
  void min_pre_reverse(int e, int v) override { pre_reverse(e, v); }
  void post_run() override { collect(); }

 private:
  void collect()
  {
    if (BondedOCLEngine *e = BondedOCLEngine::find(lmp)) e->collect();
  }
};

static void ensure_collect_fix(LAMMPS *lmp)
{
  if (lmp->modify->find_fix(FixStreamclBonded::ID) >= 0) return;
  (*lmp->modify->fix_map)[FixStreamclBonded::STYLE] = &FixStreamclBonded::creator;
  lmp->modify->add_fix(std::string(FixStreamclBonded::ID) + " all " + FixStreamclBonded::STYLE, 0);
}

/* ---------------------------------------------------------------- styles */

namespace {

template <class Style, class Base>
void refuse_hybrid(Style *s, Base *installed, const char *kind, Error *error)
{
  if (installed != s)
    error->all(FLERR, strf("%s_style %s cannot be a hybrid sub-style: use it alone or use the "
                           "CPU style inside hybrid",
                           kind, Style::STYLE));
}
}    // namespace

const char *const BondHarmonicOCL::STYLE = "harmonic/ocl";
Bond *BondHarmonicOCL::creator(LAMMPS *lmp) { return new BondHarmonicOCL(lmp); }
BondHarmonicOCL::BondHarmonicOCL(LAMMPS *lmp) : BondHarmonic(lmp)
{
  engine = BondedOCLEngine::acquire(lmp);
  engine->bond = this;
}
BondHarmonicOCL::~BondHarmonicOCL()
{
  if (engine->bond == this) engine->bond = nullptr;
  BondedOCLEngine::release(engine);
}
void BondHarmonicOCL::init_style()
{
  BondHarmonic::init_style();
  ensure_collect_fix(lmp);
  engine->host_code();   // resolved at the first init, on every rank
  refuse_hybrid(this, force->bond, "bond", error);
  engine->coeffs_changed();
}
void BondHarmonicOCL::coeffs(scl_bonded_coeffs &c)
{
  c.nbond_types = atom->nbondtypes;
  c.bond_k = k + 1;
  c.bond_r0 = r0 + 1;
}
void BondHarmonicOCL::compute(int eflag, int vflag)
{
  if (!engine->device_computes(vflag)) {
    if (engine->host_code()) engine->wait_device();
    return BondHarmonic::compute(eflag, vflag);
  }
  ev_init(eflag, vflag);
  engine->start_for(SCL_BONDED_BOND, eflag, vflag);
}
void BondHarmonicOCL::deliver()
{
  add_tallies<BondHarmonicOCL>(*engine, SCL_BONDED_BOND, eflag_global, vflag_global, eflag_atom, vflag_atom,
                     energy, virial, eatom, vatom);
}

const char *const AngleCharmmOCL::STYLE = "charmm/ocl";
Angle *AngleCharmmOCL::creator(LAMMPS *lmp) { return new AngleCharmmOCL(lmp); }
AngleCharmmOCL::AngleCharmmOCL(LAMMPS *lmp) : AngleCharmm(lmp)
{
  engine = BondedOCLEngine::acquire(lmp);
  engine->angle = this;
}
AngleCharmmOCL::~AngleCharmmOCL()
{
  if (engine->angle == this) engine->angle = nullptr;
  BondedOCLEngine::release(engine);
}
void AngleCharmmOCL::init_style()
{
  AngleCharmm::init_style();
  ensure_collect_fix(lmp);
  engine->host_code();   // resolved at the first init, on every rank
  refuse_hybrid(this, force->angle, "angle", error);
  engine->coeffs_changed();
}
void AngleCharmmOCL::coeffs(scl_bonded_coeffs &c)
{
  c.nangle_types = atom->nangletypes;
  c.angle_k = k + 1;
  c.angle_theta0 = theta0 + 1;
  c.angle_k_ub = k_ub + 1;
  c.angle_r_ub = r_ub + 1;
}
void AngleCharmmOCL::compute(int eflag, int vflag)
{
  if (!engine->device_computes(vflag)) {
    if (engine->host_code()) engine->wait_device();
    return AngleCharmm::compute(eflag, vflag);
  }
  ev_init(eflag, vflag);
  engine->start_for(SCL_BONDED_ANGLE, eflag, vflag);
}
void AngleCharmmOCL::deliver()
{
  add_tallies<AngleCharmmOCL>(*engine, SCL_BONDED_ANGLE, eflag_global, vflag_global, eflag_atom, vflag_atom,
                     energy, virial, eatom, vatom);
}

const char *const DihedralCharmmOCL::STYLE = "charmm/ocl";
Dihedral *DihedralCharmmOCL::creator(LAMMPS *lmp) { return new DihedralCharmmOCL(lmp); }
DihedralCharmmOCL::DihedralCharmmOCL(LAMMPS *lmp) : DihedralCharmm(lmp)
{
  engine = BondedOCLEngine::acquire(lmp);
  engine->dihedral = this;
}
DihedralCharmmOCL::~DihedralCharmmOCL()
{
  if (engine->dihedral == this) engine->dihedral = nullptr;
  BondedOCLEngine::release(engine);
}
void DihedralCharmmOCL::init_style()
{
  DihedralCharmm::init_style();   // the special_bonds and pair checks, lj14 pointers
  ensure_collect_fix(lmp);
  engine->host_code();   // resolved at the first init, on every rank
  refuse_hybrid(this, force->dihedral, "dihedral", error);
  engine->coeffs_changed();
}
void DihedralCharmmOCL::coeffs(scl_bonded_coeffs &c)
{
  const int n = atom->ndihedraltypes;
  shift_deg.assign(n, 0.0);
  for (int t = 0; t < n; t++) shift_deg[t] = shift[t + 1];
  c.ndihedral_types = n;
  c.dihedral_k = k + 1;
  c.dihedral_multiplicity = multiplicity + 1;
  c.dihedral_shift = shift_deg.data();
  c.dihedral_weight = weight + 1;
  if (weightflag) {
    // the pair's (ntypes+1)^2 tables, 1-based, as 0-based ntypes^2
    const int nt = atom->ntypes;
    double **src[4] = {lj14_1, lj14_2, lj14_3, lj14_4};
    for (int a = 0; a < 4; a++) {
      lj14[a].assign((size_t) nt * nt, 0.0);
      for (int i = 0; i < nt; i++)
        for (int j = 0; j < nt; j++) lj14[a][(size_t) i * nt + j] = src[a][i + 1][j + 1];
    }
    c.natom_types = nt;
    c.lj14_1 = lj14[0].data();
    c.lj14_2 = lj14[1].data();
    c.lj14_3 = lj14[2].data();
    c.lj14_4 = lj14[3].data();
    c.implicit = implicit;
  }
  c.qqrd2e = force->qqrd2e;
}
void DihedralCharmmOCL::compute(int eflag, int vflag)
{
  if (!engine->device_computes(vflag)) {
    if (engine->host_code()) engine->wait_device();
    return DihedralCharmm::compute(eflag, vflag);
  }
  ev_init(eflag, vflag);
  // as the CPU style: the pair tallies the 1-4 virial explicitly
  if (weightflag && vflag_global == VIRIAL_FDOTR)
    force->pair->vflag_either = force->pair->vflag_global = 1;
  engine->start_for(SCL_BONDED_DIHEDRAL, eflag, vflag);
}
void DihedralCharmmOCL::deliver()
{
  add_tallies<DihedralCharmmOCL>(*engine, SCL_BONDED_DIHEDRAL, eflag_global, vflag_global,
                                 eflag_atom, vflag_atom, energy, virial, eatom, vatom);
  if (!weightflag) return;
  // the 1-4 pairs into the pair style's books, as Pair::ev_tally would
  Pair *pair = force->pair;
  const scl_bonded_result &r = engine->last();
  if (pair->eflag_global) {
    pair->eng_vdwl += r.energy[SCL_BONDED_PAIR14];
    pair->eng_coul += r.energy_coul;
  }
  if (pair->vflag_global)
    for (int c = 0; c < 6; c++) pair->virial[c] += r.virial[SCL_BONDED_PAIR14][c];
  const int n = engine->gathered();
  if (pair->eflag_atom && r.eatom) {
    const double *e = engine->eatom_of(SCL_BONDED_PAIR14);
    for (int i = 0; i < n; i++) pair->eatom[i] += e[i];
  }
  if (pair->vflag_atom && r.vatom) {
    const double *v = engine->vatom_of(SCL_BONDED_PAIR14);
    for (int i = 0; i < n; i++)
      for (int c = 0; c < 6; c++) pair->vatom[i][c] += v[6 * i + c];
  }
}

const char *const ImproperHarmonicOCL::STYLE = "harmonic/ocl";
Improper *ImproperHarmonicOCL::creator(LAMMPS *lmp) { return new ImproperHarmonicOCL(lmp); }
ImproperHarmonicOCL::ImproperHarmonicOCL(LAMMPS *lmp) : ImproperHarmonic(lmp)
{
  engine = BondedOCLEngine::acquire(lmp);
  engine->improper = this;
}
ImproperHarmonicOCL::~ImproperHarmonicOCL()
{
  if (engine->improper == this) engine->improper = nullptr;
  BondedOCLEngine::release(engine);
}
void ImproperHarmonicOCL::init_style()
{
  ImproperHarmonic::init_style();
  ensure_collect_fix(lmp);
  engine->host_code();   // resolved at the first init, on every rank
  refuse_hybrid(this, force->improper, "improper", error);
  engine->coeffs_changed();
}
void ImproperHarmonicOCL::coeffs(scl_bonded_coeffs &c)
{
  c.nimproper_types = atom->nimpropertypes;
  c.improper_k = k + 1;
  c.improper_chi = chi + 1;
}
void ImproperHarmonicOCL::compute(int eflag, int vflag)
{
  if (!engine->device_computes(vflag)) {
    if (engine->host_code()) engine->wait_device();
    return ImproperHarmonic::compute(eflag, vflag);
  }
  ev_init(eflag, vflag);
  engine->start_for(SCL_BONDED_IMPROPER, eflag, vflag);
}
void ImproperHarmonicOCL::deliver()
{
  add_tallies<ImproperHarmonicOCL>(*engine, SCL_BONDED_IMPROPER, eflag_global, vflag_global, eflag_atom, vflag_atom,
                     energy, virial, eatom, vatom);
}

// run_style verlet/ocl: whether the bonded style of `kind` (0 bond, 1 angle,
// 2 dihedral, 3 improper) reads this step's x from the pair style's device
// copy (ghost rows included) rather than from LAMMPS's arrays
bool bonded_ocl_reads_device_x(LAMMPS *lmp, int kind)
{
  Force *force = lmp->force;
  BondedOCLEngine *e = nullptr;
  if (kind == 0 && dynamic_cast<BondHarmonicOCL *>(force->bond))
    e = static_cast<BondHarmonicOCL *>(force->bond)->engine;
  else if (kind == 1 && dynamic_cast<AngleCharmmOCL *>(force->angle))
    e = static_cast<AngleCharmmOCL *>(force->angle)->engine;
  else if (kind == 2 && dynamic_cast<DihedralCharmmOCL *>(force->dihedral))
    e = static_cast<DihedralCharmmOCL *>(force->dihedral)->engine;
  else if (kind == 3 && dynamic_cast<ImproperHarmonicOCL *>(force->improper))
    e = static_cast<ImproperHarmonicOCL *>(force->improper)->engine;
  auto *pair = dynamic_cast<StreamclDevicePair *>(force->pair);
  return e && pair && StreamclContext::share_x() && !e->host_code() && e->context() &&
      e->context() == pair->context();
}

}    // namespace LAMMPS_NS
