/* The shared streamcl context of the /ocl styles (see the header). */
#include "streamcl_context.h"

#include "streamcl/charmm.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

namespace LAMMPS_NS {
namespace StreamclContext {

namespace {

struct Entry {
  std::string spec;
  scl_context *ctx = nullptr;
  int refs[USERS] = {0, 0, 0, 0};
  int total() const { return refs[PAIR] + refs[KSPACE] + refs[BONDED] + refs[SHAKE]; }
};

struct Instance {
  std::vector<Entry> contexts;
  double host[USERS] = {0, 0, 0, 0};
  scl_transfer_stats base{};      // transfers of the live contexts at begin_run
  scl_transfer_stats retired{};   // totals of contexts freed since
  long x_shared[USERS] = {0, 0, 0, 0}, x_uploaded[USERS] = {0, 0, 0, 0};
  scl_transfer_stats moved_by[USERS] = {};
  scl_build_stats builds_base{}, builds_retired{};   // as base and retired, of builds
};

// LAMMPS instances of this process; a mutex because library users may run
// instances on threads (each instance itself is single-threaded)
std::mutex &lock()
{
  static std::mutex m;
  return m;
}

std::map<LAMMPS *, Instance> &instances()
{
  static std::map<LAMMPS *, Instance> m;
  return m;
}

void add(scl_transfer_stats &a, const scl_transfer_stats &b)
{
  a.uploads += b.uploads;
  a.downloads += b.downloads;
  a.upload_bytes += b.upload_bytes;
  a.download_bytes += b.download_bytes;
}

scl_transfer_stats live_transfers(const Instance &in)
{
  scl_transfer_stats sum = in.retired;
  for (const Entry &e : in.contexts) {
    scl_transfer_stats t;
    scl_transfer_stats_get(e.ctx, &t);
    add(sum, t);
  }
  return sum;
}

void add(scl_build_stats &a, const scl_build_stats &b)
{
  a.programs += b.programs;
  a.compiled += b.compiled;
  a.kernels += b.kernels;
}

scl_build_stats live_builds(const Instance &in)
{
  scl_build_stats sum = in.builds_retired;
  for (const Entry &e : in.contexts) {
    scl_build_stats b;
    scl_build_stats_get(e.ctx, &b);
    add(sum, b);
  }
  return sum;
}

scl_context *create(const std::string &spec, scl_status *st, std::string &err)
{
  // STREAMCL_* variables as context options (the library reads no
  // environment); profiling on: the styles' device seconds come from events
  scl_env_options env;
  memset(&env, 0, sizeof env);
  env.context.device = spec.empty() ? nullptr : spec.c_str();
  env.context.profiling = 1;
  scl_env_options_read(&env);
  char msg[1024] = "";
  scl_context *ctx = nullptr;
  *st = scl_context_create(&env.context, &ctx, msg, sizeof msg);
  if (*st != SCL_OK) err = msg;
  return *st == SCL_OK ? ctx : nullptr;
}

}    // namespace

const char *user_name(int user)
{
  static const char *const names[USERS] = {"pair", "kspace", "bonded", "shake"};
  return user >= 0 && user < USERS ? names[user] : "?";
}

int node_rank(MPI_Comm world, int *local_ranks)
{
  int me = 0, rank = 0, size = 1;
  MPI_Comm_rank(world, &me);
  MPI_Comm node;
  MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &rank);
  MPI_Comm_size(node, &size);
  MPI_Comm_free(&node);
  if (local_ranks) *local_ranks = size;
  return rank;
}

int env_gpus()
{
  const char *g = getenv("STREAMCL_GPUS");
  char *end = nullptr;
  const long v = g && *g ? strtol(g, &end, 10) : 0;
  return g && *g && !*end && v > 0 && v < 1 << 20 ? (int) v : 0;
}

bool share_x()
{
  const char *e = getenv("STREAMCL_SHARE_X");
  return !(e && !strcmp(e, "0"));
}

bool one_download()
{
  const char *e = getenv("STREAMCL_ONE_DOWNLOAD");
  return !(e && !strcmp(e, "0"));
}

bool ghost_gather()
{
  const char *e = getenv("STREAMCL_GHOST_GATHER");
  return !(e && !strcmp(e, "0"));
}

bool loop_host()
{
  const char *e = getenv("STREAMCL_LOOP");
  return e && !strcmp(e, "host");
}

bool loop_noresident()
{
  const char *e = getenv("STREAMCL_LOOP");
  return e && !strcmp(e, "noresident");
}

bool shake_rows()
{
  const char *e = getenv("STREAMCL_SHAKE_ROWS");
  return !(e && !strcmp(e, "0"));
}

int bonded_mode(const char **bad)
{
  const char *e = getenv("STREAMCL_BONDED");
  if (bad) *bad = nullptr;
  if (!e || !*e || !strcmp(e, "auto")) return BONDED_AUTO;
  if (!strcmp(e, "0") || !strcmp(e, "host")) return BONDED_OFF;
  if (!strcmp(e, "1") || !strcmp(e, "device")) return BONDED_DEVICE;
  if (bad) *bad = e;
  return BONDED_AUTO;
}

int shake_mode(const char **bad)
{
  const char *e = getenv("STREAMCL_SHAKE");
  if (bad) *bad = nullptr;
  if (!e || !*e || !strcmp(e, "auto")) return SHAKE_AUTO;
  if (!strcmp(e, "0") || !strcmp(e, "host")) return SHAKE_HOST;
  if (!strcmp(e, "1") || !strcmp(e, "device")) return SHAKE_DEVICE;
  if (bad) *bad = e;
  return SHAKE_AUTO;
}

bool ghost_check()
{
  const char *e = getenv("STREAMCL_GHOST_CHECK");
  return e && !strcmp(e, "1");
}

bool resolve(const std::string &spec, int local_rank, int gpus, std::string &out,
             std::string *err, int *gpus_used)
{
  if (gpus_used) *gpus_used = 0;
  out = spec;
  if (!spec.empty() && spec != "gpu") return true;
  char dev[64] = "", msg[512] = "";
  int used = 0;
  if (scl_charmm_rank_device(local_rank, gpus, dev, sizeof dev, &used, msg, sizeof msg) == SCL_OK) {
    out = dev;
    if (gpus_used) *gpus_used = used;
    return true;
  }
  if (err) *err = msg;
  return spec.empty();   // no GPU: "" is the library's default device, "gpu" fails
}

scl_context *acquire(LAMMPS *lmp, const std::string &spec, int user, scl_status *st,
                     std::string &err)
{
  std::lock_guard<std::mutex> g(lock());
  Instance &in = instances()[lmp];
  for (Entry &e : in.contexts)
    if (e.spec == spec) {
      e.refs[user]++;
      *st = SCL_OK;
      return e.ctx;
    }
  scl_context *ctx = create(spec, st, err);
  if (!ctx) {
    if (in.contexts.empty()) instances().erase(lmp);
    return nullptr;
  }
  Entry e;
  e.spec = spec;
  e.ctx = ctx;
  e.refs[user] = 1;
  in.contexts.push_back(e);
  return ctx;
}

void release(LAMMPS *lmp, scl_context *ctx, int user)
{
  if (!ctx) return;
  std::lock_guard<std::mutex> g(lock());
  auto it = instances().find(lmp);
  if (it == instances().end()) return;
  Instance &in = it->second;
  for (size_t k = 0; k < in.contexts.size(); k++) {
    Entry &e = in.contexts[k];
    if (e.ctx != ctx || e.refs[user] == 0) continue;
    e.refs[user]--;
    if (e.total() > 0) return;
    scl_transfer_stats t;
    scl_transfer_stats_get(ctx, &t);
    add(in.retired, t);
    scl_build_stats bs;
    scl_build_stats_get(ctx, &bs);
    add(in.builds_retired, bs);
    scl_context_free(ctx);
    in.contexts.erase(in.contexts.begin() + (long) k);
    if (in.contexts.empty()) instances().erase(it);
    return;
  }
}

int count(LAMMPS *lmp)
{
  std::lock_guard<std::mutex> g(lock());
  auto it = instances().find(lmp);
  return it == instances().end() ? 0 : (int) it->second.contexts.size();
}

int count_process()
{
  std::lock_guard<std::mutex> g(lock());
  int n = 0;
  for (const auto &kv : instances()) n += (int) kv.second.contexts.size();
  return n;
}

std::string users(LAMMPS *lmp)
{
  std::lock_guard<std::mutex> g(lock());
  auto it = instances().find(lmp);
  std::string s;
  if (it == instances().end()) return s;
  for (int u = 0; u < USERS; u++) {
    bool any = false;
    for (const Entry &e : it->second.contexts) any = any || e.refs[u] > 0;
    if (any) s += (s.empty() ? "" : ", ") + std::string(user_name(u));
  }
  return s;
}

static scl_transfer_stats instance_transfers(LAMMPS *lmp)
{
  auto it = instances().find(lmp);
  return it == instances().end() ? scl_transfer_stats{} : live_transfers(it->second);
}

Span::Span(LAMMPS *lmp_, int user_) : lmp(lmp_), user(user_), t0(MPI_Wtime())
{
  std::lock_guard<std::mutex> g(lock());
  at_start = instance_transfers(lmp);
}

Span::~Span()
{
  const double dt = MPI_Wtime() - t0;
  std::lock_guard<std::mutex> g(lock());
  auto it = instances().find(lmp);
  if (it == instances().end() || user < 0 || user >= USERS) return;
  Instance &in = it->second;
  in.host[user] += dt;
  const scl_transfer_stats now = live_transfers(in);
  scl_transfer_stats &m = in.moved_by[user];
  m.uploads += now.uploads - at_start.uploads;
  m.downloads += now.downloads - at_start.downloads;
  m.upload_bytes += now.upload_bytes - at_start.upload_bytes;
  m.download_bytes += now.download_bytes - at_start.download_bytes;
}

void begin_run(LAMMPS *lmp)
{
  std::lock_guard<std::mutex> g(lock());
  auto it = instances().find(lmp);
  if (it == instances().end()) return;
  Instance &in = it->second;
  for (double &h : in.host) h = 0.0;
  for (scl_transfer_stats &m : in.moved_by) m = scl_transfer_stats{};
  for (int u = 0; u < USERS; u++) in.x_shared[u] = in.x_uploaded[u] = 0;
  in.base = live_transfers(in);
  in.builds_base = live_builds(in);
}

void note_x(LAMMPS *lmp, int user, bool shared)
{
  std::lock_guard<std::mutex> g(lock());
  auto it = instances().find(lmp);
  if (it == instances().end() || user < 0 || user >= USERS) return;
  (shared ? it->second.x_shared : it->second.x_uploaded)[user]++;
}

RunBooks run_books(LAMMPS *lmp)
{
  std::lock_guard<std::mutex> g(lock());
  RunBooks b{};
  auto it = instances().find(lmp);
  if (it == instances().end()) return b;
  const Instance &in = it->second;
  for (int u = 0; u < USERS; u++) b.host[u] = in.host[u], b.moved_by[u] = in.moved_by[u];
  for (int u = 0; u < USERS; u++) b.x_shared[u] = in.x_shared[u], b.x_uploaded[u] = in.x_uploaded[u];
  b.moved = live_transfers(in);
  b.moved.uploads -= in.base.uploads;
  b.moved.downloads -= in.base.downloads;
  b.moved.upload_bytes -= in.base.upload_bytes;
  b.moved.download_bytes -= in.base.download_bytes;
  b.built = live_builds(in);
  b.built.programs -= in.builds_base.programs;
  b.built.compiled -= in.builds_base.compiled;
  b.built.kernels -= in.builds_base.kernels;
  return b;
}

}    // namespace StreamclContext
}    // namespace LAMMPS_NS
