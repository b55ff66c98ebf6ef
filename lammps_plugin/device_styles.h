/* -*- c++ -*-
 * What the plugin's device styles see of each other, and no more: the
 * collect fix, the bonded styles, kspace pppm/ocl and fix shake/ocl reach
 * pair_style lj/charmm/coul/long/ocl (and the collect fix reaches pppm/ocl)
 * only through these two interfaces, by dynamic_cast of force->pair or
 * force->kspace. So none of them includes another style's header, and the
 * styles that implement them include nothing of their users: every include
 * inside lammps_plugin/ runs one way (register_ocl.cpp, which lists them
 * all, on top).
 */
#ifndef STREAMCL_DEVICE_STYLES_H
#define STREAMCL_DEVICE_STYLES_H

#include "streamcl/charmm.h"

namespace LAMMPS_NS {

class LAMMPS;

// A style whose device step the collect fix (fix_streamcl_collect.h) finishes
// in pre_reverse and reports after each run: the ocl pair and kspace styles.
class StreamclCollected {
 public:
  // start the per-run statistics (end of setup: the timed loop follows)
  virtual void begin_run_stats() = 0;
  // queue this step's device work early, in pre_force (only kspace does)
  virtual void prestart(int /*vflag*/) {}
  // finish the step in flight: forces, energies, virial (no-op when none)
  virtual void collect() = 0;
  // "Device Time Info" of the run that just ended (rank 0 prints; collective)
  virtual void report_run() = 0;

 protected:
  ~StreamclCollected() = default;   // never deleted through this interface
};

// What the other device styles use of the ocl pair style: its device copy of
// the step's positions and its one force download (pair_lj_charmm_coul_long_ocl.h
// says what each does).
class StreamclDevicePair : public StreamclCollected {
 public:
  // Another style's forces summed into the pair's device forces before their
  // one download (user BONDED, KSPACE or SHAKE of StreamclContext).
  using ForceAdder = int (*)(LAMMPS *lmp, scl_stream *f, scl_type type, int nlocal, int extra);
  virtual scl_status set_force_adder(int user, ForceAdder adder, int extra_rows) = 0;
  // the extra rows the adders of the step in flight may write (-1: none)
  virtual int adder_rows() const = 0;
  // this step's device positions for a style on context `other` (nullptr: upload x)
  virtual const scl_stream *device_positions(const scl_context *other, int natoms) const = 0;
  // the same after the step's collection, until the next compute
  virtual const scl_stream *last_device_positions(const scl_context *other, int natoms) const = 0;
  virtual const scl_context *context() const = 0;
  // the ghost rows of the steps until the next re-neighboring come from the
  // owned rows on the device, not from LAMMPS's x (run_style verlet/ocl)
  virtual bool ghosts_gathered() const = 0;
  // the engine another style on context `other` adds forces into (nullptr: none)
  virtual scl_charmm *force_engine(const scl_context *other) const = 0;
  // the owned x rows of gathered steps copied from this device stream
  // (run_style verlet/ocl resident: scl_integrate_positions), nullptr: upload
  virtual scl_status set_position_source(const scl_stream *x) = 0;

 protected:
  ~StreamclDevicePair() = default;
};

}    // namespace LAMMPS_NS

#endif
