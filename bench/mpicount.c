/*
 * Counts the MPI calls a preloaded MPI-IO layer makes (load it after
 * libferry in LD_PRELOAD: ferry's calls resolve here, then to the MPI
 * library). Prints per-rank totals at MPI_Finalize for ranks 0 and 1 (every
 * rank with MPICOUNT_ALL=1). Built and used by bench/latency.sh and
 * bench/openclose.sh.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
enum {ALLRED, RSB, ISEND, IRECV, PROBE, RECV, WAITALL, TCREATE, BARRIER, BCAST, ALLGATHER, SEND, WAIT, DUP, CFREE, WALLOC, WFREE, WLOCK, N};
static const char *nm[N]={"Allreduce","Reduce_scatter_block","Isend","Irecv","Probe","Recv","Waitall","Type_commit","Barrier","Bcast","Allgather","Send","Wait","Comm_dup","Comm_free","Win_allocate","Win_free","Win_lock"};
static long c[N];
#define F(name, idx, params, args) int name params { static int (*p) params; if(!p) p=dlsym(RTLD_NEXT,#name); c[idx]++; return p args; }
F(MPI_Allreduce, ALLRED, (const void*a, void*b, int n, MPI_Datatype t, MPI_Op o, MPI_Comm cm), (a,b,n,t,o,cm))
F(MPI_Reduce_scatter_block, RSB, (const void*a, void*b, int n, MPI_Datatype t, MPI_Op o, MPI_Comm cm), (a,b,n,t,o,cm))
F(MPI_Isend, ISEND, (const void*a, int n, MPI_Datatype t, int d, int g, MPI_Comm cm, MPI_Request*r), (a,n,t,d,g,cm,r))
F(MPI_Irecv, IRECV, (void*a, int n, MPI_Datatype t, int d, int g, MPI_Comm cm, MPI_Request*r), (a,n,t,d,g,cm,r))
F(MPI_Probe, PROBE, (int s, int g, MPI_Comm cm, MPI_Status*st), (s,g,cm,st))
F(MPI_Recv, RECV, (void*a, int n, MPI_Datatype t, int d, int g, MPI_Comm cm, MPI_Status*st), (a,n,t,d,g,cm,st))
F(MPI_Waitall, WAITALL, (int n, MPI_Request*r, MPI_Status*s), (n,r,s))
F(MPI_Type_commit, TCREATE, (MPI_Datatype*t), (t))
F(MPI_Barrier, BARRIER, (MPI_Comm cm), (cm))
F(MPI_Bcast, BCAST, (void*a, int n, MPI_Datatype t, int r, MPI_Comm cm), (a,n,t,r,cm))
F(MPI_Allgather, ALLGATHER, (const void*a, int n, MPI_Datatype t, void*b, int m, MPI_Datatype u, MPI_Comm cm), (a,n,t,b,m,u,cm))
F(MPI_Send, SEND, (const void*a, int n, MPI_Datatype t, int d, int g, MPI_Comm cm), (a,n,t,d,g,cm))
F(MPI_Wait, WAIT, (MPI_Request*r, MPI_Status*s), (r,s))
F(MPI_Comm_dup, DUP, (MPI_Comm a, MPI_Comm*b), (a,b))
F(MPI_Comm_free, CFREE, (MPI_Comm*a), (a))
F(MPI_Win_allocate, WALLOC, (MPI_Aint s, int d, MPI_Info i, MPI_Comm cm, void*b, MPI_Win*w), (s,d,i,cm,b,w))
F(MPI_Win_free, WFREE, (MPI_Win*w), (w))
F(MPI_Win_lock, WLOCK, (int t, int r, int a, MPI_Win w), (t,r,a,w))
int MPI_Finalize(void){ static int (*p)(void); if(!p) p=dlsym(RTLD_NEXT,"MPI_Finalize"); int r; PMPI_Comm_rank(MPI_COMM_WORLD,&r);
 /* one write per rank, so two ranks' lines never interleave */
 if (r==0 || r==1 || getenv("MPICOUNT_ALL")) { char line[1024]; int n=snprintf(line,sizeof line,"rank %d:",r);
   for(int i=0;i<N;i++) if(c[i] && n < (int)sizeof line) n+=snprintf(line+n,sizeof line-n," %s=%ld",nm[i],c[i]);
   if (n < (int)sizeof line - 1) { line[n++]='\n'; line[n]=0; } fputs(line,stderr); fflush(stderr); } return p(); }
