/* -*- c++ -*- Every difference between the LAMMPS versions the styles build
 * against (29Sep2021 .. current), in one place. The STREAMCL_LAMMPS_* macros
 * come from lammps_plugin/CMakeLists.txt, which reads them from the headers
 * and sources being compiled against (not from a version number: a feature
 * release between two tested ones gets what its own tree has).
 *   STREAMCL_LAMMPS_VERSION_NUM    yyyymmdd of the headers (the plugin's identity)
 *   STREAMCL_LAMMPS_GRID3D         1: grid3d.h/Grid3d (2022+), 0: gridcomm.h/GridComm
 *   STREAMCL_LAMMPS_WHICH_THIRD    1: forward/reverse_comm(caller, ptr, which, nper, nbyte, ...)
 *                                  0: forward/reverse_comm(caller, ptr, nper, nbyte, which, ...)
 *   STREAMCL_LAMMPS_KSPACE_FLAGS   1: the grid flags are KSpace's enums (FORWARD_IK == 1, ...)
 *                                  0: file-local enums of pppm.cpp (FORWARD_IK == 0, ...)
 *   STREAMCL_LAMMPS_PLUGIN_KSPACE  1: PLUGIN registers kspace styles
 *   STREAMCL_LAMMPS_SHAKE_CLOSEST  1: FixShake::pre_neighbor lists a cluster by every owned
 *                                  atom i of it that is <= the closest images (to i) of its
 *                                  atoms, in closest_list; shake*() use those indices with no
 *                                  minimum image, the ghosts' xshake (forward comm, every
 *                                  rank count) is shifted by the periodic image. A cluster
 *                                  straddling a periodic boundary is listed twice on 1 rank,
 *                                  each listing forcing its own owned atoms (2022+).
 *                                  0: listed once, by atom->map() indices, minimum image,
 *                                  xshake forward comm only with several ranks (29Sep2021)
 * Unconditional adaptations live where they are needed: PPPM::boxlo (set by
 * 29Sep2021's set_grid_local(), since 2022 only by PPPM::compute()) is set in
 * PPPMOCL::init()/setup(); lmp_ocl catches LAMMPS's exceptions (always thrown
 * since 2023) as LAMMPS's main() does.
 * Getting one of these wrong compiles and computes wrong forces (a flag value
 * off: E_pair drifts; `which` in the wrong slot: ~1230 kcal/mol off), so they
 * are probed, and tests/lammps compares against LAMMPS's own pppm. */
#ifndef STREAMCL_LAMMPS_COMPAT_H
#define STREAMCL_LAMMPS_COMPAT_H

#if !defined(STREAMCL_LAMMPS_VERSION_NUM) || !defined(STREAMCL_LAMMPS_GRID3D) ||              \
    !defined(STREAMCL_LAMMPS_WHICH_THIRD) || !defined(STREAMCL_LAMMPS_KSPACE_FLAGS) ||        \
    !defined(STREAMCL_LAMMPS_SHAKE_CLOSEST)
#error "lammps_compat.h: build through lammps_plugin/CMakeLists.txt (it probes the LAMMPS tree)"
#endif

#include "pppm.h"    // FFT_SCALAR, MPI_FFT_SCALAR (lmpfftsettings.h since 2022)

#if STREAMCL_LAMMPS_GRID3D
#include "grid3d.h"
#else
#include "gridcomm.h"
#endif

#include <mpi.h>

namespace streamcl_compat {

#if STREAMCL_LAMMPS_GRID3D
using GridComm = LAMMPS_NS::Grid3d;
#else
using GridComm = LAMMPS_NS::GridComm;
#endif

// the flags PPPM's pack/unpack_forward/reverse_grid compare against
#if STREAMCL_LAMMPS_KSPACE_FLAGS
constexpr int REVERSE_RHO = LAMMPS_NS::KSpace::REVERSE_RHO;
constexpr int FORWARD_IK = LAMMPS_NS::KSpace::FORWARD_IK;
constexpr int FORWARD_IK_PERATOM = LAMMPS_NS::KSpace::FORWARD_IK_PERATOM;
#else
constexpr int REVERSE_RHO = 0;          // pppm.cpp: enum {REVERSE_RHO, ...}
constexpr int FORWARD_IK = 0;           // pppm.cpp: enum {FORWARD_IK, FORWARD_AD,
constexpr int FORWARD_IK_PERATOM = 2;   //   FORWARD_IK_PERATOM, ...}
#endif

// KSPACE-caller grid communication of nper FFT_SCALARs per grid point, the
// arguments in the order of this LAMMPS's GridComm / Grid3d
#if STREAMCL_LAMMPS_WHICH_THIRD
#define STREAMCL_GRID_ARGS                                                                        \
  GridComm::KSPACE, caller, which, nper, sizeof(FFT_SCALAR), buf1, buf2, MPI_FFT_SCALAR
#else
#define STREAMCL_GRID_ARGS                                                                        \
  GridComm::KSPACE, caller, nper, sizeof(FFT_SCALAR), which, buf1, buf2, MPI_FFT_SCALAR
#endif
inline void grid_forward(GridComm *gc, void *caller, int which, int nper, void *buf1, void *buf2)
{
  gc->forward_comm(STREAMCL_GRID_ARGS);
}

inline void grid_reverse(GridComm *gc, void *caller, int which, int nper, void *buf1, void *buf2)
{
  gc->reverse_comm(STREAMCL_GRID_ARGS);
}
#undef STREAMCL_GRID_ARGS

// Comm::forward_comm_fix(Fix *) became Comm::forward_comm(Fix *) in 2022: the
// first overload exists only where forward_comm_fix does (preferred: int 0)
template <class C, class F>
auto forward_comm_fix(C *comm, F *fix, int) -> decltype(comm->forward_comm_fix(fix), void())
{
  comm->forward_comm_fix(fix);
}
template <class C, class F> void forward_comm_fix(C *comm, F *fix, long)
{
  comm->forward_comm(fix);
}
template <class C, class F> void forward_comm_fix(C *comm, F *fix)
{
  forward_comm_fix(comm, fix, 0);
}

}    // namespace streamcl_compat

#endif
