/* `plugin load libstreamcl_lammps.so`: the gate. A plugin compiled against
 * the headers of one LAMMPS loads into another with at most a warning and
 * computes wrong numbers (class layouts differ), or fails to load with an
 * undefined symbol that does not say why. So this small object, which uses
 * no LAMMPS C++ symbol and links no MPI, first asks the running LAMMPS what it
 * is (through its C library interface) and compares with what the styles
 * were built against:
 *   - the LAMMPS version (yyyymmdd),
 *   - the integer sizes (bigint, tagint, imageint: -DLAMMPS_SMALLBIG etc.),
 *   - the FFT precision (pppm/ocl exchanges double grids with LAMMPS's pppm),
 *   - the MPI library (MPICH or Open MPI: two MPIs in one process break);
 * on a mismatch it stops with a LAMMPS error that names the LAMMPS to
 * rebuild against. Only then does it open libstreamcl_lammps_styles.so (next
 * to this file), which registers the styles (plugin_styles.cpp). */
#include "lmptype.h"

#include <dlfcn.h>
#include <limits.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#if __has_include("exceptions.h")
#include "exceptions.h"
#define STREAMCL_HAVE_EXCEPTIONS_H 1
#endif

namespace {

const char *const month_names[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

std::string version_text(int num)
{
  const int m = num / 100 % 100;
  char buf[32];
  if (m < 1 || m > 12) return std::to_string(num);
  snprintf(buf, sizeof buf, "%d%s%d", num % 100, month_names[m - 1], num / 10000);
  return buf;
}

template <class F> F host_symbol(const char *name)
{
  return reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
}

// what is wrong with this host for the styles; empty: nothing
std::string check_host(void *lmp)
{
  const std::string built = version_text(STREAMCL_LAMMPS_VERSION_NUM);
  auto version = host_symbol<int (*)(void *)>("lammps_version");
  auto setting = host_symbol<int (*)(void *, const char *)>("lammps_extract_setting");
  const int host = version ? version(lmp) : 0;
  const std::string rebuild = "rebuild the streamcl plugin against this LAMMPS" +
      (host ? " " + version_text(host) : std::string()) +
      " (its source tree or installed headers: README, section LAMMPS)";
  if (!version || !setting)
    return "this LAMMPS has no C library interface (lammps_version) to check against; the "
           "streamcl plugin was built for LAMMPS " + built + ": " + rebuild;
  if (host != STREAMCL_LAMMPS_VERSION_NUM)
    return "the streamcl plugin was built against LAMMPS " + built + " but this is LAMMPS " +
        version_text(host) + ": " + rebuild;
  const struct {
    const char *name;
    int size;
  } ints[] = {{"bigint", (int) sizeof(LAMMPS_NS::bigint)},
              {"tagint", (int) sizeof(LAMMPS_NS::tagint)},
              {"imageint", (int) sizeof(LAMMPS_NS::imageint)}};
  for (const auto &t : ints) {
    const int s = setting(lmp, t.name);
    if (s != t.size)
      return "this LAMMPS " + built + " has " + std::to_string(s) + "-byte " + t.name +
          " but the streamcl plugin was built with " + std::to_string(t.size) +
          "-byte (LAMMPS_SMALLBIG): " + rebuild + " with its integer sizes (-DLAMMPS_BIGBIG or "
          "-DLAMMPS_SMALLSMALL as it was built)";
  }
  auto fft_single = host_symbol<bool (*)()>("_ZN9LAMMPS_NS4Info22has_fft_single_supportEv");
  if (fft_single && fft_single())
    return "this LAMMPS was built with single-precision FFTs (FFT_SINGLE); kspace_style pppm/ocl "
           "exchanges double grids with LAMMPS's pppm: use a LAMMPS built with double FFTs";
  // the MPI of the process is the host's (its libmpi was loaded first)
  auto mpi_version = host_symbol<int (*)(char *, int *)>("MPI_Get_library_version");
  const std::string want = STREAMCL_MPI_FLAVOUR;
  if (want == "MPICH" || want == "Open MPI") {
    char text[8192] = "";
    int len = 0;
    if (!mpi_version || mpi_version(text, &len) != 0) {
      return "this LAMMPS runs without an MPI library (or one without MPI_Get_library_version); "
             "the streamcl plugin was built with " + want + ": " + rebuild + " and its MPI";
    }
    const bool is_open_mpi = strstr(text, "Open MPI") != nullptr;
    const bool is_mpich = strstr(text, "MPICH") != nullptr;
    if ((want == "MPICH" && !is_mpich) || (want == "Open MPI" && !is_open_mpi))
      return "this LAMMPS uses " + std::string(is_open_mpi ? "Open MPI" : is_mpich ? "MPICH" : "another MPI") +
          " but the streamcl plugin was built with " + want +
          " (two MPI libraries in one process break): " + rebuild +
          " and the MPI it uses (MPI_HOME or MPI_C_COMPILER)";
  }
  return "";
}

// stops LAMMPS with an ERROR (all ranks run `plugin load`)
[[noreturn]] void refuse(void *lmp, const std::string &why)
{
  const std::string msg = "plugin load libstreamcl_lammps.so: " + why;
  auto lmp_error = host_symbol<void (*)(void *, int, const char *)>("lammps_error");
#ifdef STREAMCL_HAVE_EXCEPTIONS_H
  if (lmp_error) {
    // LAMMPS with lammps_error() (2023 on) reports errors as exceptions: this
    // prints "ERROR: ..." to screen and log (the library call keeps the
    // exception), and the exception below ends the input as an error does
    lmp_error(lmp, 2 /* LMP_ERROR_ALL */, msg.c_str());
    throw LAMMPS_NS::LAMMPSException(msg);
  }
#endif
  (void) lmp_error;
  // older LAMMPS ends on errors itself (no exceptions): rank 0 says why, all end
  auto setting = host_symbol<int (*)(void *, const char *)>("lammps_extract_setting");
  if (!setting || setting(lmp, "world_rank") <= 0) fprintf(stderr, "ERROR: %s\n", msg.c_str());
  auto finalize = host_symbol<void (*)()>("lammps_mpi_finalize");
  if (finalize) finalize();
  exit(1);
}

}    // namespace

extern "C" void lammpsplugin_init(void *lmp, void *handle, void *regfunc)
{
  const std::string why = check_host(lmp);
  if (!why.empty()) refuse(lmp, why);

  // the styles live next to this file (the path as LAMMPS opened it, links resolved)
  Dl_info self;
  char dir[PATH_MAX];
  if (!dladdr(reinterpret_cast<void *>(&lammpsplugin_init), &self) || !self.dli_fname ||
      !realpath(self.dli_fname, dir))
    refuse(lmp, "cannot find where libstreamcl_lammps.so was loaded from");
  std::string path(dir);
  path = path.substr(0, path.rfind('/') + 1) + STREAMCL_STYLES_SO;
  void *styles = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!styles)
    refuse(lmp, std::string("cannot load ") + path + ": " + dlerror() +
                    " (the styles must be built against this LAMMPS " +
                    version_text(STREAMCL_LAMMPS_VERSION_NUM) + " with the gate)");
  auto reg = reinterpret_cast<void (*)(void *, void *, void *)>(dlsym(styles, "streamcl_lammps_register"));
  if (!reg) refuse(lmp, path + " has no streamcl_lammps_register");
  reg(lmp, handle, regfunc);
}
