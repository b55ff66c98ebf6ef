/* streamcl: command-line front end over the library's public API. */
#include "cli_modules.h"
#include "commands.h"
#include "mpi_grid.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    int (*run_mpi)(int argc, char **argv); /* under a launcher (mpirun): the run over ranks */
    const char *summary;
} subcommand;

/* A module's sub-command, src/cli/cmd_<module>.c: COMMAND_<module>. The
 * table takes those of the modules built, which the build lists in
 * cli_modules.h as STREAMCL_CLI_MODULES(X): X(lbm) X(eri) ... */
#define COMMAND_lbm {"lbm", cmd_lbm, NULL, "lattice Boltzmann D2Q9 (PARAMFILE OBSTACLEFILE)"}
#define COMMAND_nbody {"nbody", cmd_nbody, cmd_nbody_mpi, "all-pairs gravitational n-body"}
#define COMMAND_eri {"eri", cmd_eri, NULL, "two-electron integrals over s Gaussians, J/K and RHF"}
#define COMMAND_fdtd                                                                             \
    {"fdtd", cmd_fdtd, cmd_fdtd_mpi, "3D FDTD for Maxwell's equations (gprMax input subset)"}
#define COMMAND_seismic                                                                          \
    {"seismic", cmd_seismic, cmd_seismic_mpi,                                                   \
     "3D elastic velocity-stress FDTD (RUNFILE or --bench N)"}
#define COMMAND_pair                                                                             \
    {"pair-bench", cmd_pair_bench, NULL, "lj/charmm/coul/long force engine benchmark"}
#define MODULE_COMMAND(m) COMMAND_##m,

static const subcommand commands[] = {
    {"devices", cmd_devices, NULL, "list OpenCL platforms and devices with their facts"},
    {"reduce", cmd_reduce, NULL, "sum a random float stream on the device; bandwidth and check"},
    STREAMCL_CLI_MODULES(MODULE_COMMAND)
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
    fprintf(out,
            "usage: streamcl [--version] [--help] COMMAND [options]\n\n"
            "commands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
    fprintf(out,
            "\n'streamcl COMMAND --help' describes a command's options.\n"
            "Device selection: --device gpu|cpu|P:D|NAME, or STREAMCL_DEVICE; default: the\n"
            "first GPU, else the first CPU device. STREAMCL_PROFILE=1 prints device times,\n"
            "STREAMCL_TUNE=0 skips auto-tuning, STREAMCL_NO_CACHE=1 ignores the on-disk cache.\n");
}

/* A sub-command's run; under a launcher (one rank too) its run over MPI
 * ranks where it has one (src/cli/cmd_<module>_mpi.c, which builds on the
 * one-rank command's pieces: the choice is made here so that the one-rank
 * command does not reach back into it). */
static int run_command(const subcommand *c, int argc, char **argv)
{
    const int launched = c->run_mpi ? cli_mpi_launched(c->name) : 0;
    if (launched < 0)
        return 1;
    return (launched ? c->run_mpi : c->run)(argc, argv);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("streamcl %s\n", STREAMCL_VERSION);
        return 0;
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(argv[1], commands[i].name))
            return run_command(&commands[i], argc - 1, argv + 1);
    fprintf(stderr, "streamcl: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
