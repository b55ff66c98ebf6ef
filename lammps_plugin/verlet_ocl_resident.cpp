/* run_style verlet/ocl resident (verlet_ocl.h): fix nve's velocity Verlet
 * on the device with x and v resident between re-neighborings. The step is
 * Verlet's with fix nve's hooks replaced by scl_integrate, neighbor->decide
 * replaced by the same rule on the device's largest displacement, and x, v
 * read back before anything of LAMMPS reads them (re-neighboring, output,
 * the end of the run). */
#include "verlet_ocl.h"

#include "device_styles.h"
#if STREAMCL_LAMMPS_SHAKE_OCL
#include "fix_shake_ocl.h"
#endif
#include "streamcl_context.h"
#include "strf.h"

#include "atom.h"
#include "comm.h"
#include "domain.h"
#include "error.h"
#include "fix.h"
#include "force.h"
#include "modify.h"
#include "neighbor.h"
#include "output.h"
#include "pair.h"
#include "timer.h"
#include "update.h"

#include <algorithm>
#include <cstring>

using namespace LAMMPS_NS;

namespace {
StreamclDevicePair *device_pair(LAMMPS *lmp)
{
  return dynamic_cast<StreamclDevicePair *>(lmp->force->pair);
}

// fix shake/ocl solving in the pair's rows (find_blocker checked it may)
bool is_shake_ocl(Fix *f)
{
#if STREAMCL_LAMMPS_SHAKE_OCL
  return dynamic_cast<FixShakeOCL *>(f) != nullptr;
#else
  (void) f;
  return false;
#endif
}

// v for fix shake/ocl's solve in the rows (nullptr: LAMMPS's v)
void shake_velocities(LAMMPS *lmp, const scl_stream *v)
{
#if STREAMCL_LAMMPS_SHAKE_OCL
  for (int i = 0; i < lmp->modify->nfix; i++)
    if (auto *s = dynamic_cast<FixShakeOCL *>(lmp->modify->fix[i])) s->set_device_velocities(v);
#else
  (void) lmp;
  (void) v;
#endif
}

// a step on which something of LAMMPS reads the host's x or v: output, fix
// shake's statistics (it reads x)
bool host_xv_step(LAMMPS *lmp, bigint ntimestep)
{
  if (ntimestep == lmp->output->next) return true;
#if STREAMCL_LAMMPS_SHAKE_OCL
  for (int i = 0; i < lmp->modify->nfix; i++)
    if (auto *s = dynamic_cast<FixShakeOCL *>(lmp->modify->fix[i]))
      if (s->stats_step() == ntimestep) return true;
#endif
  return false;
}
}    // namespace

void VerletOCL::resident_fail(const char *what, scl_status st)
{
  error->one(FLERR, strf("run_style verlet/ocl resident: %s failed (streamcl status %d)", what,
                         (int) st));
}

// Why this run keeps x and v on the host ("": resident). After find_blocker
// found none: one rank, every style reads the device's rows.
std::string VerletOCL::find_resident_blocker()
{
  if (resident_off) return "run_style verlet/ocl noresident";
  if (StreamclContext::loop_noresident()) return "STREAMCL_LOOP=noresident";
  int nve = 0;
  for (int i = 0; i < modify->nfix; i++) {
    Fix *f = modify->fix[i];
    if (!strncmp(f->style, "STREAMCL/", 9)) {
      if (f->force_reneighbor) return strf("fix %s forces re-neighborings", f->id);
      continue;
    }
    if (is_shake_ocl(f)) continue;
    if (strcmp(f->style, "nve") != 0)
      return strf("fix %s (%s): only fix nve (and fix shake/ocl) on the device", f->id, f->style);
    if (f->igroup != 0) return strf("fix %s (nve) is not on group all", f->id);
    nve++;
  }
  if (nve != 1) return strf("%d fix nve (one is integrated on the device)", nve);
  if (domain->box_change) return "the box changes";
  if (output->restart_flag) return "restart files (their steps force re-neighborings)";
  if (neighbor->includegroup) return "neigh_modify include";
  if (atom->nlocal > 0 && !atom->rmass && !atom->mass) return "no masses";
  auto *pair = device_pair(lmp);
  if (!pair || !pair->ghosts_gathered() || !pair->context())
    return "the pair style does not gather its ghost rows on the device";
  return "";
}

// x, v, masses of LAMMPS's owned atoms up; the pair's owned rows from them
void VerletOCL::resident_set_atoms()
{
  const int n = atom->nlocal;
  mass_i.resize(n > 0 ? n : 1);
  for (int i = 0; i < n; i++) mass_i[i] = atom->rmass ? atom->rmass[i] : atom->mass[atom->type[i]];
  scl_status st = scl_integrate_set_atoms(integ, n, n ? atom->x[0] : nullptr,
                                          n ? atom->v[0] : nullptr, mass_i.data());
  if (st) resident_fail("uploading x, v", st);
  st = device_pair(lmp)->set_position_source(scl_integrate_positions(integ));
  if (st) resident_fail("setting the pair's position source", st);
  shake_velocities(lmp, scl_integrate_velocities(integ));
  resident_uploads++;
}

// LAMMPS's f of the owned atoms (after reverse comm and post_force) up,
// in the 4-a-row layout the integrator reads
void VerletOCL::resident_upload_f()
{
  const int n = atom->nlocal;
  if (n == 0) return;
  const size_t need = 4 * (size_t) n;
  if (!fdev || scl_stream_count(fdev) < need) {
    if (fdev) scl_stream_free(fdev);
    fdev = nullptr;
    auto *ctx = const_cast<scl_context *>(device_pair(lmp)->context());
    scl_status st = scl_stream_create(ctx, "verlet/ocl f", SCL_DOUBLE, need + need / 4, 1, 1,
                                      0, &fdev);
    if (st) resident_fail("allocating the force rows", st);
  }
  f4.resize(need);
  double **f = atom->f;
  for (int i = 0; i < n; i++) {
    f4[4 * i] = f[i][0];
    f4[4 * i + 1] = f[i][1];
    f4[4 * i + 2] = f[i][2];
    f4[4 * i + 3] = 0.0;
  }
  scl_status st = scl_stream_write_range(fdev, 0, need, f4.data(), 1, nullptr);
  if (st) resident_fail("uploading f", st);
}

void VerletOCL::resident_read_xv(bool with_x, bool with_v)
{
  if (atom->nlocal == 0) return;
  scl_status st = scl_integrate_read(integ, with_x ? atom->x[0] : nullptr,
                                     with_v ? atom->v[0] : nullptr);
  if (st) resident_fail("reading x, v back", st);
}

// After setup (the forces of the run's first x are in atom->f)
void VerletOCL::resident_begin()
{
  resident_uploads = 0;
  disp_checks = 0;
  resident_blocker = find_resident_blocker();
  if (!resident_blocker.empty()) return;
  if (!integ) {
    scl_integrate_options o;
    scl_integrate_options_default(&o);
    o.dt = update->dt;
    o.ftm2v = force->ftm2v;
    o.force_type = SCL_DOUBLE;
    auto *ctx = const_cast<scl_context *>(device_pair(lmp)->context());
    if (scl_integrate_create(ctx, &o, &integ) != SCL_OK) {
      integ = nullptr;
      resident_blocker = "the device integrator is not available (fp64?)";
      return;
    }
  }
  resident_set_atoms();
  resident_upload_f();
  // the run's books start after this set-up (its kernels and uploads are
  // not the loop's)
  StreamclContext::begin_run(lmp);
}

// x, v down (LAMMPS's from here on), the pair uploads again
void VerletOCL::resident_end()
{
  if (!integ) return;
  resident_read_xv();
  if (auto *pair = device_pair(lmp)) pair->set_position_source(nullptr);
  shake_velocities(lmp, nullptr);
  scl_integrate_free(integ);
  integ = nullptr;
  if (fdev) scl_stream_free(fdev);
  fdev = nullptr;
}

// Neighbor::decide without must_check (no fix forces it, no restart: see
// find_resident_blocker) and check_distance's test of owned atoms on the
// device: the largest displacement against (skin/2)^2, no box change
bool VerletOCL::resident_decide()
{
  neighbor->ago++;
  const int ago = neighbor->ago, every = neighbor->every, delay = neighbor->delay;
  if (ago < delay || ago % every != 0) return false;
  if (neighbor->build_once) return false;
  if (!neighbor->dist_check) return true;
  double d2 = 0.0;
  scl_status st = scl_integrate_max_displacement(integ, &d2);
  if (st) resident_fail("reading the largest displacement", st);
  disp_checks++;
  const double half = 0.5 * neighbor->skin;
  const bool flag = d2 > half * half;
  if (flag && ago == std::max(every, delay)) neighbor->ndanger++;
  return flag;
}

void VerletOCL::resident_step(int sortflag)
{
  const bigint ntimestep = ++update->ntimestep;
  ev_set(ntimestep);
  timer->stamp();
  scl_status st = scl_integrate_initial(integ, fdev);
  if (st) resident_fail("the first half step", st);
  if (modify->n_post_integrate) modify->post_integrate();
  timer->stamp(Timer::MODIFY);

  const bool out = ntimestep == output->next, host_xv = host_xv_step(lmp, ntimestep);
  bool skipped = false;
  long before[2] = {0, 0};
  if (resident_decide()) {
    resident_read_xv();
    reneighbor(ntimestep, sortflag);
    resident_set_atoms();
  } else if (host_xv || !device_pair(lmp)->ghosts_gathered()) {
    // (a pair that stopped gathering uploads every row: LAMMPS's, current;
    // v too: a fix shake/ocl step solved on the host reads LAMMPS's)
    resident_read_xv();
    timer->stamp();
    comm->forward_comm();
    timer->stamp(Timer::COMM);
  } else {
    skipped = true;
    // bonded and kspace together: after the step, kspace's count is taken
    // off again, so an upload by either makes check_no_host_x fail
    const StreamclContext::RunBooks b = StreamclContext::run_books(lmp);
    before[0] = b.x_uploaded[StreamclContext::BONDED] + b.x_uploaded[StreamclContext::KSPACE];
    before[1] = b.x_uploaded[StreamclContext::SHAKE];
  }

  forces();
  modify->post_force(vflag);   // fix shake/ocl books its virial
  timer->stamp();
  resident_upload_f();
  st = scl_integrate_final(integ, fdev);
  if (st) resident_fail("the second half step", st);
  if (modify->n_end_of_step) modify->end_of_step();
  timer->stamp(Timer::MODIFY);
  if (skipped) {
    // the pppm's x is checked here too: the host's owned x is stale
    const StreamclContext::RunBooks b = StreamclContext::run_books(lmp);
    before[0] -= b.x_uploaded[StreamclContext::KSPACE];
    check_no_host_x(ntimestep, before);
    steps_skipped++;
  }

  if (out) {
    resident_read_xv(false, true);   // x came down before the forces
    timer->stamp();
    output->write(ntimestep);
    timer->stamp(Timer::OUTPUT);
  }
}
