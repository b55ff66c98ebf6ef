/* lmp_ocl: LAMMPS (the shared liblammps it is linked to) with
 * pair_style lj/charmm/coul/long/ocl registered before the input is read and
 * again after every `clear`. Same command line as lmp: -in, -sf ocl, -var,
 * -log, -screen, mpirun, ... Mirrors LAMMPS's src/main.cpp: where LAMMPS
 * reports errors as exceptions (always since 2023; 29Sep2021 with
 * LAMMPS_EXCEPTIONS), LAMMPS has printed the ERROR line when the exception
 * arrives here, which ends the run with exit status 1 (MPI_Abort for errors
 * on one rank), as lmp does; never std::terminate (abort, exit 134). */
#include "register_ocl.h"

#include "accelerator_kokkos.h"
#include "exceptions.h"
#include "input.h"
#include "lammps.h"
#include "lmppython.h"

#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <mpi.h>

using namespace LAMMPS_NS;

/* `clear` deletes and re-creates LAMMPS's Force, whose style table is where
 * the style lives, then calls LAMMPS::post_create() (so does the LAMMPS
 * constructor). liblammps calls it through its PLT, so this definition, which
 * the launcher exports (CMakeLists.txt), runs instead: it registers the
 * styles into the new Force and calls liblammps's own post_create(), so that
 * both `pair_style .../ocl` and the -sf ocl mapping survive `clear` whatever
 * command comes next. tests/lammps (mode clear) checks that it took effect. */
void LAMMPS::post_create()
{
  using post_create_fn = void (*)(LAMMPS *);
  static post_create_fn original = reinterpret_cast<post_create_fn>(
      dlsym(RTLD_NEXT, "_ZN9LAMMPS_NS6LAMMPS11post_createEv"));
  if (!original) {
    fprintf(stderr, "lmp_ocl: LAMMPS::post_create not found in liblammps: %s\n", dlerror());
    exit(1);
  }
  streamcl_register_styles(this);
  original(this);
}

static void finalize()
{
  KokkosLMP::finalize();
  Python::finalize();
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm comm = MPI_COMM_WORLD;

  // the constructor parses the command line and opens -in/-log/-screen; the
  // styles are registered by post_create() above (and here once more, in
  // case a liblammps bound its own post_create internally)
  try {
    LAMMPS *lmp = new LAMMPS(argc, argv, comm);
    streamcl_register_styles(lmp);
    lmp->input->file();
    delete lmp;
  } catch (LAMMPSAbortException &) {
    // (its universe, the world of an lmp run: the accessor differs by version)
    finalize();
    MPI_Abort(MPI_COMM_WORLD, 1);
  } catch (LAMMPSException &) {
    finalize();
    MPI_Barrier(comm);
    MPI_Finalize();
    exit(1);
  } catch (std::exception &e) {
    fprintf(stderr, "lmp_ocl: exception: %s\n", e.what());
    finalize();
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
  }
  finalize();
  MPI_Barrier(comm);
  MPI_Finalize();
  return 0;
}
