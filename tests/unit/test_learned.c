/* The store of learned choices (learn/store.c): what it accepts and what it
 * skips, that a file that is not a store is never overwritten, where it
 * lives, and that many processes writing one store at once lose nothing. */
#include "learn/store.h"
#include "unit/check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[512];

static ferry_learned_entry entry(int64_t bytes, const char *choice)
{
    ferry_learned_entry e;
    memset(&e, 0, sizeof e);
    snprintf(e.key.fs, sizeof e.key.fs, "tmpfs");
    snprintf(e.key.mount, sizeof e.key.mount, "/dev/shm");
    e.key.write = 1;
    e.key.ranks = 8;
    e.key.nodes = 2;
    e.key.bytes = bytes;
    e.key.pieces = 64;
    e.key.active = 8;
    e.key.extent = bytes;
    e.key.span = 2 * bytes;
    snprintf(e.choice.strategy, sizeof e.choice.strategy, "%s", choice);
    e.ntried = 2;
    snprintf(e.tried[0].opt.strategy, sizeof e.tried[0].opt.strategy, "independent");
    e.tried[0].seconds = 0.5;
    e.tried[0].calls = 3;
    snprintf(e.tried[1].opt.strategy, sizeof e.tried[1].opt.strategy, "twophase");
    e.tried[1].opt.cb_nodes = 1;
    e.tried[1].seconds = 0.25;
    e.tried[1].calls = 1;
    snprintf(e.source, sizeof e.source, "online");
    e.updated = 1700000000 + bytes;
    return e;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static char *read_file(const char *path)
{
    static char buf[1 << 16];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    return buf;
}

static int parse(const char *text, ferry_learned *s)
{
    char why[200];
    return ferry_learned_parse(text, strlen(text), s, why, sizeof why);
}

static void parsing(void)
{
    ferry_learned s, back;
    memset(&s, 0, sizeof s);
    ferry_learned_entry a = entry(1000, "twophase"), b = entry(2000, "local");
    CHECK(ferry_learned_put(&s, &a) == 0 && ferry_learned_put(&s, &b) == 0);
    /* format and parse give the same entries back */
    char *text = ferry_learned_format(&s);
    CHECK(text && parse(text, &back) == FERRY_LEARNED_OK && back.n == 2 && back.skipped == 0);
    const ferry_learned_entry *x = ferry_learned_find(&back, &b.key);
    CHECK(x && !strcmp(x->choice.strategy, "local") && x->ntried == 2 && x->tried[1].opt.cb_nodes == 1 &&
          x->tried[1].seconds == 0.25 && x->tried[0].calls == 3 && x->updated == b.updated);
    ferry_learned_free(&back);
    /* one bad entry out of three is skipped and counted; the others stand */
    static const char *bad_entries[] = {
        "\"op\":\"sideways\"", "\"ranks\":0", "\"ranks\":-3", "\"bytes\":1.5", "\"nodes\":99",
        "\"choice\":{\"strategy\":\"magic\"}", "\"tried\":7", "\"mount\":12", "\"updated\":\"now\"",
        "\"bytes\":1e300", "\"tried\":[{\"strategy\":\"local\",\"seconds\":-1,\"calls\":1}]",
        "\"tried\":[{\"strategy\":\"local\",\"seconds\":1,\"calls\":1},{\"strategy\":\"local\",\"seconds\":2,\"calls\":1}]",
        "\"fs\":\"0123456789012345678901234567890123456789\"",
    };
    for (size_t i = 0; i < sizeof bad_entries / sizeof bad_entries[0]; i++) {
        /* the text with one member of the second entry replaced */
        char *t = malloc(strlen(text) + 256);
        const char *second = strchr(strchr(text, '\n') + 1, '\n') + 1;
        const char *member = bad_entries[i];
        char name[32];
        snprintf(name, sizeof name, "%.*s", (int)(strchr(member, ':') - member + 1), member);
        const char *at = strstr(second, name);
        const char *end = at;
        int depth = 0;
        for (end = at + strlen(name); *end && !(depth == 0 && (*end == ',' || *end == '}')); end++)
            depth += *end == '{' || *end == '[' ? 1 : *end == '}' || *end == ']' ? -1 : 0;
        sprintf(t, "%.*s%s%s", (int)(at - text), text, member, end);
        ferry_learned out;
        int rc = parse(t, &out);
        CHECK_MSG(rc == FERRY_LEARNED_OK && out.n == 1 && out.skipped == 1, "%s: rc %d n %d", member, rc, out.n);
        ferry_learned_free(&out);
        free(t);
    }
    /* not a store at all, another version, not JSON: refused whole */
    ferry_learned out;
    CHECK(parse("{\"entries\":[]}", &out) == FERRY_LEARNED_BAD);
    CHECK(parse("[1,2,3]", &out) == FERRY_LEARNED_BAD);
    CHECK(parse("{\"ferry_learned\":2,\"entries\":[]}", &out) == FERRY_LEARNED_FOREIGN);
    CHECK(parse("{\"ferry_learned\":1,\"entries\":{}}", &out) == FERRY_LEARNED_BAD);
    CHECK(parse("{\"ferry_learned\":1,\"entries\":[],\"entries\":[]}", &out) == FERRY_LEARNED_BAD);
    CHECK(parse("{\"ferry_learned\":1,\"entries\":[", &out) == FERRY_LEARNED_BAD);
    CHECK(parse("\x7f" "ELF\x02\x01", &out) == FERRY_LEARNED_BAD);
    /* empty or blank: a store with nothing yet */
    CHECK(parse("", &out) == FERRY_LEARNED_OK && out.n == 0);
    CHECK(parse(" \n\t", &out) == FERRY_LEARNED_OK && out.n == 0);
    /* the same key twice: one entry */
    CHECK(ferry_learned_put(&s, &a) == 0 && s.n == 2);
    free(text);
    ferry_learned_free(&s);
}

static void saving(void)
{
    char path[600], why[200];
    snprintf(path, sizeof path, "%s/sub/dir/learned.json", dir);
    ferry_learned_entry a = entry(1000, "twophase"), b = entry(2000, "local");
    /* the directories are made; a missing file is an empty store */
    CHECK(ferry_learned_save(path, &a, 1, why, sizeof why) == 0);
    CHECK(ferry_learned_save(path, &b, 1, why, sizeof why) == 0);
    ferry_learned s;
    CHECK(ferry_learned_load(path, &s, why, sizeof why) == FERRY_LEARNED_OK && s.n == 2);
    ferry_learned_free(&s);
    /* a new measurement of a key replaces the old and keeps options it did not measure */
    ferry_learned_entry a2 = entry(1000, "independent");
    a2.ntried = 1;
    a2.tried[0].seconds = 0.1;
    CHECK(ferry_learned_save(path, &a2, 1, why, sizeof why) == 0);
    CHECK(ferry_learned_load(path, &s, why, sizeof why) == FERRY_LEARNED_OK && s.n == 2);
    const ferry_learned_entry *x = ferry_learned_find(&s, &a.key);
    CHECK(x && !strcmp(x->choice.strategy, "independent") && x->ntried == 2 && x->tried[0].seconds == 0.1 &&
          x->tried[1].seconds == 0.25);
    ferry_learned_free(&s);
    /* no temporary file or lock is left but the lock file itself */
    char cmd[700];
    snprintf(cmd, sizeof cmd, "test $(ls %s/sub/dir | wc -l) -eq 2", dir);
    CHECK(system(cmd) == 0);

    /* what is not a store is never overwritten, and says why */
    static const char *foreign[] = {"my notes, not JSON\n", "{\"ferry_learned\":7,\"entries\":[]}\n",
                                    "{\"other\":\"tool\"}\n"};
    for (int i = 0; i < 3; i++) {
        write_file(path, foreign[i]);
        why[0] = '\0';
        CHECK(ferry_learned_save(path, &a, 1, why, sizeof why) != 0 && why[0]);
        CHECK_STR(read_file(path), foreign[i]);
    }
    /* nor is a directory, nor a file too big to be one */
    char big[600];
    snprintf(big, sizeof big, "%s/big.json", dir);
    FILE *f = fopen(big, "w");
    fprintf(f, "{\"ferry_learned\":1,\"entries\":[]}");
    for (int i = 0; i < (1 << 20); i++)
        fputc(' ', f);
    fclose(f);
    CHECK(ferry_learned_load(big, &s, why, sizeof why) == FERRY_LEARNED_BAD);
    CHECK(ferry_learned_save(big, &a, 1, why, sizeof why) != 0);
    CHECK(ferry_learned_load(dir, &s, why, sizeof why) == FERRY_LEARNED_BAD);

    /* the oldest entries go beyond the limit */
    snprintf(path, sizeof path, "%s/full.json", dir);
    ferry_learned_entry *many = calloc(FERRY_LEARNED_MAX_ENTRIES + 10, sizeof *many);
    for (int i = 0; i < FERRY_LEARNED_MAX_ENTRIES + 10; i++)
        many[i] = entry(5000 + i, "local");
    CHECK(ferry_learned_save(path, many, FERRY_LEARNED_MAX_ENTRIES + 10, why, sizeof why) == 0);
    CHECK(ferry_learned_load(path, &s, why, sizeof why) == FERRY_LEARNED_OK && s.n == FERRY_LEARNED_MAX_ENTRIES);
    CHECK(!ferry_learned_find(&s, &many[0].key) && ferry_learned_find(&s, &many[FERRY_LEARNED_MAX_ENTRIES + 9].key));
    ferry_learned_free(&s);
    free(many);
}

/* 16 processes at once, each saving 16 entries of its own one by one:
 * every entry is there afterwards and the store parses. */
static void concurrent(void)
{
    char path[600], why[200];
    snprintf(path, sizeof path, "%s/shared.json", dir);
    enum { PROCS = 16, EACH = 16 };
    pid_t pids[PROCS];
    for (int p = 0; p < PROCS; p++) {
        pids[p] = fork();
        if (pids[p] == 0) {
            int bad = 0;
            for (int i = 0; i < EACH; i++) {
                ferry_learned_entry e = entry(100000 + p * 1000 + i, i % 2 ? "local" : "twophase");
                char w[200];
                bad += ferry_learned_save(path, &e, 1, w, sizeof w) != 0;
            }
            _exit(bad ? 1 : 0);
        }
    }
    int failed = 0;
    for (int p = 0; p < PROCS; p++) {
        int st = 0;
        waitpid(pids[p], &st, 0);
        failed += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
    }
    CHECK(failed == 0);
    ferry_learned s;
    CHECK(ferry_learned_load(path, &s, why, sizeof why) == FERRY_LEARNED_OK);
    CHECK_MSG(s.n == PROCS * EACH && s.skipped == 0, "%d entries, %d skipped", s.n, s.skipped);
    for (int p = 0; p < PROCS; p++)
        for (int i = 0; i < EACH; i++) {
            ferry_learned_entry e = entry(100000 + p * 1000 + i, "x");
            CHECK(ferry_learned_find(&s, &e.key) != NULL);
        }
    ferry_learned_free(&s);
}

static void where(void)
{
    char buf[600];
    setenv("HOME", "/home/u", 1);
    unsetenv("XDG_CACHE_HOME");
    unsetenv("FERRY_LEARN_CACHE");
    CHECK(ferry_learned_path(NULL, buf, sizeof buf) && !strcmp(buf, "/home/u/.cache/ferry/learned.json"));
    CHECK(ferry_learned_path("default", buf, sizeof buf) && !strcmp(buf, "/home/u/.cache/ferry/learned.json"));
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    CHECK(ferry_learned_path("", buf, sizeof buf) && !strcmp(buf, "/xdg/ferry/learned.json"));
    setenv("FERRY_LEARN_CACHE", "/env/store.json", 1);
    CHECK(ferry_learned_path(NULL, buf, sizeof buf) && !strcmp(buf, "/env/store.json"));
    CHECK(ferry_learned_path("/hint/s.json", buf, sizeof buf) && !strcmp(buf, "/hint/s.json"));
    CHECK(ferry_learned_path("off", buf, sizeof buf) == NULL);
    setenv("FERRY_LEARN_CACHE", "off", 1);
    CHECK(ferry_learned_path(NULL, buf, sizeof buf) == NULL);
    CHECK(ferry_learned_path("/hint/s.json", buf, sizeof buf) != NULL); /* the file's own hint wins */
    unsetenv("FERRY_LEARN_CACHE");
    unsetenv("XDG_CACHE_HOME");
    unsetenv("HOME");
    CHECK(ferry_learned_path(NULL, buf, sizeof buf) == NULL);
}

int main(void)
{
    const char *tmp = getenv("FERRY_TEST_TMP");
    snprintf(dir, sizeof dir, "%s/test_learned.%d", tmp ? tmp : "/tmp", (int)getpid());
    mkdir(dir, 0700);
    parsing();
    saving();
    concurrent();
    where();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "test_learned: could not remove %s\n", dir);
    if (check_failures) {
        fprintf(stderr, "test_learned: %d checks failed\n", check_failures);
        return 1;
    }
    printf("test_learned: passed\n");
    return 0;
}
