/*
 * The profiling-interface chain (chain.h): whether a tool sits after ferry,
 * whether it calls PMPI_ by name, and whether an open is a tool's own.
 *
 * Objects are told apart by the base address dladdr gives: ferry's own, the
 * MPI library's (where ferry's own PMPI_Comm_rank resolves), and any other
 * that defines MPI_File_open, a tool.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <mpi.h>

#include "core/chain.h"
#include "core/mpi_lib.h"
#include "core/say.h"

/* link.h's ElfW(), spelt out (cppcheck cannot expand it) */
#if __SIZEOF_POINTER__ == 8
typedef Elf64_Addr elf_addr;
typedef Elf64_Dyn elf_dyn;
typedef Elf64_Sym elf_sym;
typedef Elf64_Phdr elf_phdr;
#else
typedef Elf32_Addr elf_addr;
typedef Elf32_Dyn elf_dyn;
typedef Elf32_Sym elf_sym;
typedef Elf32_Phdr elf_phdr;
#endif

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const void *self_base, *mpi_base;
static const char *self_name = "libferry.so";
static int tools_present;

static const void *base_of(const void *addr, Dl_info *info)
{
    Dl_info local;
    if (!info)
        info = &local;
    return addr && dladdr(addr, info) ? info->dli_fbase : NULL;
}

/* The object at `base` defines `name` itself (not one of its dependencies). */
static int defines(const char *file, const void *base, const char *name)
{
    void *h = file && *file ? dlopen(file, RTLD_LAZY | RTLD_NOLOAD) : NULL;
    if (!h)
        return 0;
    const void *p = dlsym(h, name);
    dlclose(h);
    return p && base_of(p, NULL) == base;
}

static void init(void)
{
    Dl_info self;
    self_base = base_of((const void *)(ferry_fn)ferry_chain_resolve, &self);
    if (self_base && self.dli_fname && *self.dli_fname)
        self_name = self.dli_fname;
    /* ferry's own dependencies, searched from its handle: the MPI library */
    void *h = self_base ? dlopen(self.dli_fname, RTLD_LAZY | RTLD_NOLOAD) : NULL;
    if (h) {
        mpi_base = base_of(dlsym(h, "PMPI_Comm_rank"), NULL);
        dlclose(h);
    }
    /* a tool before ferry (the first MPI_File_open is not ferry's), or after it */
    const void *first = base_of(dlsym(RTLD_DEFAULT, "MPI_File_open"), NULL);
    const void *next = base_of(dlsym(RTLD_NEXT, "MPI_File_open"), NULL);
    tools_present = (first && first != self_base) || (next && next != mpi_base);
}

/* The loaded object holding address `base` has an undefined (imported)
 * dynamic symbol `name`: it calls that function by name. */
struct import_query {
    const void *base;
    const char *name;
    int found, imports;
};

static elf_addr dyn_ptr(elf_addr p, elf_addr load)
{
    /* the loader relocates these entries in place on most targets, not all */
    return p < load ? p + load : p;
}

static int scan_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct import_query *q = data;
    const elf_dyn *dyn = NULL;
    int hit = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const elf_phdr *ph = &info->dlpi_phdr[i];
        elf_addr lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && (elf_addr)q->base >= lo && (elf_addr)q->base < lo + ph->p_memsz)
            hit = 1;
        if (ph->p_type == PT_DYNAMIC)
            dyn = (const elf_dyn *)lo;
    }
    if (!hit)
        return 0;
    q->found = 1;
    if (!dyn)
        return 1;
    const elf_sym *symtab = NULL;
    const char *strtab = NULL;
    size_t nsyms = 0;
    for (; dyn->d_tag != DT_NULL; dyn++) {
        elf_addr p = dyn_ptr(dyn->d_un.d_ptr, info->dlpi_addr);
        if (dyn->d_tag == DT_SYMTAB)
            symtab = (const elf_sym *)p;
        else if (dyn->d_tag == DT_STRTAB)
            strtab = (const char *)p;
        else if (dyn->d_tag == DT_HASH)
            nsyms = ((const Elf32_Word *)p)[1]; /* nchain: every dynamic symbol */
        else if (dyn->d_tag == DT_GNU_HASH && !nsyms)
            nsyms = ((const Elf32_Word *)p)[1]; /* symoffset: the undefined ones come first */
    }
    if (!symtab || !strtab)
        return 1;
    for (size_t i = 1; i < nsyms; i++)
        if (symtab[i].st_shndx == SHN_UNDEF && strcmp(strtab + symtab[i].st_name, q->name) == 0) {
            q->imports = 1;
            break;
        }
    return 1;
}

/* Tools that would not be handed calls, each named once. */
static void warn_once(const char *tool, const char *fn)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static const void *warned[8];
    static int nwarned;
    const void *base = base_of(dlsym(RTLD_NEXT, fn), NULL);
    pthread_mutex_lock(&lock);
    int seen = 0;
    for (int i = 0; i < nwarned; i++)
        seen |= warned[i] == base;
    if (!seen && nwarned < 8)
        warned[nwarned++] = base;
    pthread_mutex_unlock(&lock);
    if (seen)
        return;
    int init = 0, fini = 0, rank = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fini);
    if (init && !fini)
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        ferry_say(FERRY_INFO,
                  "%s wraps %s but calls the MPI library past ferry (it is preloaded after %s), so it sees "
                  "none of the program's MPI-IO: preload it first, LD_PRELOAD=%s:%s",
                  tool, fn, self_name, tool, self_name);
}

ferry_fn ferry_chain_resolve(const char *mpi_name, int any_tool, ferry_chain_slot *slot)
{
    /* the other ABI's MPI library would look like a tool here, and naming it
     * calls it with this ABI's handles: the wrong build stops first */
    ferry_mpi_lib_check();
    pthread_once(&once, init);
    ferry_fn tool = NULL;
    Dl_info next;
    void *fn = dlsym(RTLD_NEXT, mpi_name);
    const void *base = base_of(fn, &next);
    if (base && base != mpi_base && base != self_base) {
        char pname[96];
        snprintf(pname, sizeof pname, "P%s", mpi_name);
        struct import_query q = {base, pname, 0, 0};
        if (!any_tool)
            dl_iterate_phdr(scan_object, &q);
        if (any_tool || q.imports)
            tool = (ferry_fn)fn;
        else
            warn_once(next.dli_fname ? next.dli_fname : "a library", mpi_name);
    }
    __atomic_store_n(&slot->state, tool ? (uintptr_t)tool : FERRY_CHAIN_NONE, __ATOMIC_RELEASE);
    return tool;
}

/* pc lies in the main program (the first object dl_iterate_phdr reports):
 * the program's own code, even where it exports a wrapper of its own. */
static int first_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    elf_addr pc = *(const elf_addr *)data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const elf_phdr *ph = &info->dlpi_phdr[i];
        elf_addr lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && pc >= lo && pc < lo + ph->p_memsz)
            return 1;
    }
    return 2; /* stop after the first object either way */
}

static int in_main_program(const void *pc)
{
    elf_addr a = (elf_addr)pc;
    return dl_iterate_phdr(first_object, &a) == 1;
}

static int is_open_wrapper(const char *s)
{
    return s && (!strcmp(s, "MPI_File_open") || !strcmp(s, "PMPI_File_open"));
}

int ferry_chain_tool_file(void)
{
    pthread_once(&once, init);
    if (!tools_present)
        return 0;
    void *frames[64];
    int n = backtrace(frames, 64), in_ferry = 0;
    for (int i = 0; i < n; i++) {
        /* a return address: the call is the instruction before it */
        const char *pc = (const char *)frames[i] - 1;
        Dl_info di;
        const elf_sym *sym = NULL;
        if (!dladdr1(pc, &di, (void **)&sym, RTLD_DL_SYMENT))
            return 0;
        /* frames before ferry's own are backtrace's (a sanitizer intercepts it) */
        if (di.dli_fbase == self_base) {
            in_ferry = 1;
            continue;
        }
        if (!in_ferry)
            continue;
        /* tools' wrappers of the open, however many, between the caller and ferry */
        if (sym && is_open_wrapper(di.dli_sname) && pc < (const char *)di.dli_saddr + sym->st_size)
            continue;
        /* the caller: a tool's own code (it wraps the open) or the program's */
        return di.dli_fbase != mpi_base && !in_main_program(pc) &&
               defines(di.dli_fname, di.dli_fbase, "MPI_File_open");
    }
    return 0;
}
