/* The LAMMPS data-file reader of pair-bench (host only, no device): a good file
 * gives the right atoms, coefficients and specials; every bad file gives an
 * error naming the file and the line the problem is on, never a crash or a
 * silent truncation (ids 3000000000 or 1e10, "2.5", "29.5 atoms", self-bonds,
 * a directory, unknown sections, ...). */
#include "pair/charmm_system.h"
#include "test_util.h"

#include <string.h>
#include <unistd.h>

static char dir[256];

static const char *write_file(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        perror(path);
        exit(2);
    }
    return path;
}

#define HEADER(natoms, nbonds)                                                                \
    "title\n\n" natoms " atoms\n" nbonds " bonds\n2 atom types\n\n0 10 xlo xhi\n0 10 ylo "     \
    "yhi\n0 10 zlo zhi\n\nPair Coeffs\n\n1 0.1 3.0\n2 0.05 1.0\n\n"
/* lines 1..15 are the header above; Atoms is line 16, its atoms lines 18-20 */
#define ATOMS3 "Atoms # full\n\n1 1 1 -0.8 1 1 1\n2 1 2 0.4 2 1 1\n3 1 2 0.4 1 2 1\n\n"
/* then Bonds on line 22, its first bond on line 24 */

/* The reader refuses text with an error "PATH:LINE: ...needle...". */
static void refuses(const char *name, const char *text, long line, const char *needle)
{
    const char *path = write_file(name, text);
    charmm_system sys;
    char err[1024] = "", want[600];
    snprintf(want, sizeof want, "%s:%ld: ", path, line);
    int rc = charmm_read_data(path, &sys, err, sizeof err);
    CHECK(rc == -1 && strstr(err, want) == err && strstr(err, needle), "%s: rc %d '%s' (wanted '%s...%s')",
          name, rc, err, want, needle);
    CHECK(sys.x == NULL && sys.natoms == 0, "%s: nothing is handed out on failure", name);
    if (rc == -1)
        printf("ok: %s\n", err);
    else
        charmm_system_free(&sys);
}

static int has_special(const charmm_system *s, int i, int level, int64_t tag)
{
    int lo = level == 1 ? 0 : s->nspecial[3 * i + level - 2], hi = s->nspecial[3 * i + level - 1];
    for (int k = lo; k < hi; k++)
        if (s->special[(size_t)i * (size_t)s->maxspecial + (size_t)k] == tag)
            return 1;
    return 0;
}

static void good_files(void)
{
    charmm_system s;
    char err[1024] = "";
    const char *path = write_file(
        "good.data", HEADER("3", "2") ATOMS3 "Bonds\n\n1 1 1 2\n2 1 1 3\n\nAngles\n\n1 1 2 1 3\n");
    CHECK(charmm_read_data(path, &s, err, sizeof err) == 0, "good file: %s", err);
    CHECK(s.natoms == 3 && s.ntypes == 2 && s.type[0] == 0 && s.type[1] == 1 && s.tag[2] == 3 &&
              s.q[0] == -0.8 && s.x[3] == 2 && s.hi[2] == 10,
          "atoms as written");
    CHECK(fabs(s.epsilon[1] - sqrt(0.1 * 0.05)) < 1e-15 && s.sigma[1] == 2.0,
          "arithmetic mixing of types 1 2: eps %g sigma %g", s.epsilon[1], s.sigma[1]);
    CHECK(has_special(&s, 0, 1, 2) && has_special(&s, 0, 1, 3) && has_special(&s, 1, 1, 1) &&
              has_special(&s, 1, 2, 3) && s.nspecial[3 * 1 + 1] == 2,
          "1-2 and 1-3 specials from the bonds");
    charmm_system_free(&s);

    /* ids as sparse as LAMMPS allows (tagint up to 2^31-1) */
    path = write_file("sparse.data", HEADER("2", "1") "Atoms\n\n2147483647 1 1 -0.5 1 1 1 0 0 "
                                                      "0\n7 1 2 0.5 2 1 1 1 -1 0\n\nBonds\n\n1 "
                                                      "1 7 2147483647\n");
    CHECK(charmm_read_data(path, &s, err, sizeof err) == 0, "sparse ids: %s", err);
    CHECK(s.natoms == 2 && s.tag[0] == 2147483647 && has_special(&s, 1, 1, 2147483647),
          "sparse ids and their bond");
    charmm_system_free(&s);
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s/charmm_data_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        perror(dir);
        return 2;
    }
    good_files();

    const char *bonds_head = HEADER("3", "2") ATOMS3 "Bonds\n\n";
    char text[2048];
#define WITH_BONDS(b) (snprintf(text, sizeof text, "%s%s", bonds_head, b), text)
    /* item 1: these crashed (int overflow -> negative index) */
    refuses("bond_3e9.data", WITH_BONDS("1 1 1 2\n2 1 1 3000000000\n"), 25, "3000000000");
    refuses("bond_1e10.data", WITH_BONDS("1 1 1e10 2\n2 1 1 3\n"), 24, "1e10");
    refuses("bond_missing.data", WITH_BONDS("1 1 1 2\n2 1 1 999\n"), 25, "atom 999, which is not in Atoms");
    /* item 6: truncated silently before */
    refuses("bond_self.data", WITH_BONDS("1 1 1 2\n2 5 1 1\n"), 25, "joins atom 1 to itself");
    refuses("bond_frac.data", WITH_BONDS("1 1 1 2\n2 1 1 2.5\n"), 25, "2.5");
    refuses("natoms_frac.data", "t\n\n29.5 atoms\n2 atom types\n0 1 xlo xhi\n0 1 ylo yhi\n0 1 zlo zhi\n\nAtoms\n\n",
            3, "'29.5' of 'atoms' must be an integer");
    refuses("id_frac.data", HEADER("3", "0") "Atoms\n\n1 1 1 -0.8 1 1 1\n2.5 1 2 0.4 2 1 1\n", 19,
            "atom id '2.5'");
    refuses("type_frac.data", HEADER("3", "0") "Atoms\n\n1 1 1 -0.8 1 1 1\n2 1 1.7 0.4 2 1 1\n", 19,
            "atom type '1.7'");
    refuses("pair_frac.data",
            "t\n1 atoms\n2 atom types\n0 1 xlo xhi\n0 1 ylo yhi\n0 1 zlo zhi\nPair Coeffs\n\n1.5 0.1 3\n",
            9, "Pair Coeffs line");
    refuses("atom_words.data", HEADER("3", "0") "Atoms\n\n1 1 1 -0.8 1 1 1 0\n", 18, "found 8 words");
    refuses("dup_id.data", HEADER("3", "0") "Atoms\n\n1 1 1 -0.8 1 1 1\n2 1 2 0.4 2 1 1\n1 1 2 0.4 1 2 1\n",
            20, "atom id 1 appears twice (also on line 18)");
    /* item 7: errors on the right line, with the right cause */
    refuses("count_short.data", HEADER("4", "0") ATOMS3, 3, "the header says 4 atoms, Atoms has 3");
    refuses("bonds_short.data", WITH_BONDS("1 1 1 2\n"), 4, "the header says 2 bonds, Bonds has 1");
    refuses("unknown.data", HEADER("3", "0") ATOMS3 "Atomz\n\n1 2\n", 22, "unknown section 'Atomz'");
    char long_line[5000];
    memset(long_line, '1', sizeof long_line - 2);
    long_line[sizeof long_line - 2] = '\n';
    long_line[sizeof long_line - 1] = '\0';
    char *big = malloc(8192);
    snprintf(big, 8192, "t\n%s", long_line);
    refuses("long_line.data", big, 2, "line longer than");
    free(big);
    refuses("triclinic.data", "t\n0 0 0 xy xz yz\n", 2, "triclinic");
    refuses("empty.data", "", 0, "empty file");

    /* a directory given as the data file */
    charmm_system s;
    char err[1024] = "";
    CHECK(charmm_read_data(dir, &s, err, sizeof err) == -1 && strstr(err, "is a directory"),
          "directory: '%s'", err);
    printf("ok: %s\n", err);

    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return test_summary("test_charmm_data");
}
