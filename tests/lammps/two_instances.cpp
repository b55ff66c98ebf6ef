/* Two LAMMPS instances in one process with the /ocl styles (-sf ocl: pair,
 * pppm, the bonded styles, fix shake/ocl) on LAMMPS's peptide example:
 * each instance holds exactly one streamcl context, shared by all its
 * styles (lammps_plugin/streamcl_context.h); the instances do not share
 * theirs; runs interleaved between them give the same energies as each
 * other; `clear` and deleting an instance release their contexts.
 *   two_instances LAMMPS_SOURCE_DIR
 * Exit 0 pass, 1 fail, 77 skip (no peptide example in the tree). */
#include "register_ocl.h"
#include "streamcl_context.h"

#include "input.h"
#include "lammps.h"
#include "library.h"

#include <cmath>
#include <cstdio>
#include <mpi.h>
#include <string>
#include <unistd.h>

using namespace LAMMPS_NS;

static int fails = 0;

static void check(bool ok, const std::string &what)
{
  printf("%s: %s\n", ok ? "ok" : "FAIL", what.c_str());
  if (!ok) fails++;
}

static LAMMPS *make(MPI_Comm comm)
{
  const char *args[] = {"two_instances", "-log", "none", "-screen", "none", "-sf", "ocl",
                        "-nocite"};
  LAMMPS *lmp = new LAMMPS(8, const_cast<char **>(args), comm);
  streamcl_register_styles(lmp);
  return lmp;
}

/* the peptide input (examples/peptide/in.peptide) with a short run */
static void setup(LAMMPS *lmp, const std::string &data)
{
  const char *lines[] = {"units real", "atom_style full",
                         "pair_style lj/charmm/coul/long 8.0 10.0 10.0", "bond_style harmonic",
                         "angle_style charmm", "dihedral_style charmm", "improper_style harmonic",
                         "kspace_style pppm 0.0001"};
  for (const char *l : lines) lmp->input->one(l);
  lmp->input->one(("read_data " + data).c_str());
  const char *more[] = {"neighbor 2.0 bin", "neigh_modify delay 5", "timestep 2.0",
                        "thermo 5",
                        "fix 1 all nvt temp 275.0 275.0 100.0 tchain 1",
                        "fix 2 all shake 0.0001 10 100 b 4 6 8 10 12 14 18 a 31"};
  for (const char *l : more) lmp->input->one(l);
}

static bool close(double a, double b)
{
  return std::fabs(a - b) <= 1e-9 * (std::fabs(a) + std::fabs(b)) + 1e-12;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  if (argc < 2) {
    fprintf(stderr, "usage: two_instances LAMMPS_SOURCE_DIR\n");
    MPI_Finalize();
    return 2;
  }
  const std::string data = std::string(argv[1]) + "/examples/peptide/data.peptide";
  if (access(data.c_str(), R_OK) != 0) {
    printf("SKIP: %s not in this LAMMPS tree\n", data.c_str());
    MPI_Finalize();
    return 77;
  }
  namespace SC = StreamclContext;
  LAMMPS *a = make(MPI_COMM_WORLD), *b = make(MPI_COMM_WORLD);
  setup(a, data);
  setup(b, data);
  a->input->one("run 0");
  check(SC::count(a) == 1 && SC::count_process() == 1,
        "after A's run: A holds " + std::to_string(SC::count(a)) + " context(s), the process " +
            std::to_string(SC::count_process()) + " (want 1, 1)");
  check(SC::users(a) == "pair, kspace, bonded, shake",
        "A's context is shared by: " + SC::users(a));
  b->input->one("run 0");
  check(SC::count(b) == 1 && SC::count_process() == 2,
        "after B's run: B holds " + std::to_string(SC::count(b)) + ", the process " +
            std::to_string(SC::count_process()) + " (want 1, 2)");
  // interleaved runs: the same system, the same numbers
  for (int round = 0; round < 2; round++) {
    a->input->one("run 10");
    b->input->one("run 10");
    const double ea = lammps_get_thermo(a, "pe"), eb = lammps_get_thermo(b, "pe");
    char msg[160];
    snprintf(msg, sizeof msg, "round %d: PotEng A %.12g, B %.12g", round, ea, eb);
    check(std::isfinite(ea) && close(ea, eb), msg);
  }
  check(SC::count(a) == 1 && SC::count(b) == 1, "still one context each after the runs");
  a->input->one("clear");
  check(SC::count(a) == 0 && SC::count_process() == 1,
        "after A's clear: A holds " + std::to_string(SC::count(a)) + ", the process " +
            std::to_string(SC::count_process()) + " (want 0, 1)");
  delete b;
  check(SC::count_process() == 0,
        "after deleting B the process holds " + std::to_string(SC::count_process()));
  delete a;
  printf("%s\n", fails ? "FAILED" : "PASSED");
  MPI_Finalize();
  return fails ? 1 : 0;
}
