/*
 * Error codes and file error handlers.
 *
 * MPI errhandler objects are typed by the MPI library, and a file handler
 * must be callable with ferry's MPI_File. So a file handler is a real MPI
 * errhandler (MPI_Errhandler_free keeps working on it) created as a
 * communicator handler that is never attached; ferry keeps the user's
 * function beside it and calls that function itself.
 */
#include "core/errors.h"
#include "core/file.h"
#include "core/say.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- codes with messages ----
 *
 * Each distinct (class, text) gets one code from MPI_Add_error_code, and
 * ferry keeps the text: MPI_Error_string (binding/errstring.c) answers from
 * this table. MPICH 4.0 mangles the string of a code added to a predefined
 * class (its decoder reads the code's index bits as one of its own messages:
 * "Network type AF_INET invalid..." for a missing file), so the MPI
 * library's own table cannot be trusted with them; Open MPI's can, and gets
 * the string too for its own printing. Codes are never freed: texts that name
 * a file may take all but RESERVED of the table, so a run that meets many
 * files falls back to the text without the path instead of running out. */

#define MAX_CODES 1024
#define RESERVED 256
static struct {
    char *text; /* "ferry: ..." */
    int cls;
    int code;
} codes[MAX_CODES];
static int ncodes;

/* The code for (cls, text); cls itself when none can be made. Lock held. */
static int code_for(int cls, const char *text, int limit)
{
    for (int i = 0; i < ncodes; i++)
        if (codes[i].cls == cls && strcmp(codes[i].text, text) == 0)
            return codes[i].code;
    int code = cls;
    if (ncodes >= limit)
        return -1;
    char *copy = strdup(text);
    if (!copy || MPI_Add_error_code(cls, &code) != MPI_SUCCESS) {
        free(copy);
        return cls;
    }
    MPI_Add_error_string(code, copy);
    codes[ncodes].text = copy;
    codes[ncodes].cls = cls;
    codes[ncodes].code = code;
    ncodes++;
    return code;
}

static int mpi_usable(void)
{
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    return initialized && !finalized;
}

int ferry_err(int cls, const char *msg)
{
    if (cls == MPI_SUCCESS)
        return MPI_SUCCESS;
    if (!msg || !mpi_usable())
        return cls;
    char text[MPI_MAX_ERROR_STRING];
    snprintf(text, sizeof text, "ferry: %s", msg);
    pthread_mutex_lock(&lock);
    int code = code_for(cls, text, MAX_CODES);
    pthread_mutex_unlock(&lock);
    return code < 0 ? cls : code;
}

int ferry_err_text(int code, char *buf, int len)
{
    if (code == MPI_SUCCESS || len <= 0)
        return 0;
    int found = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < ncodes && !found; i++)
        if (codes[i].code == code) {
            snprintf(buf, (size_t)len, "%s", codes[i].text);
            found = 1;
        }
    pthread_mutex_unlock(&lock);
    return found;
}

int ferry_errno_class(int err)
{
    if (err < 0)
        err = -err;
    switch (err) {
    case 0: return MPI_SUCCESS;
    case ENOENT: return MPI_ERR_NO_SUCH_FILE;
    case EACCES:
    case EPERM: return MPI_ERR_ACCESS;
    case EEXIST: return MPI_ERR_FILE_EXISTS;
    case ENOSPC: return MPI_ERR_NO_SPACE;
    case EDQUOT: return MPI_ERR_QUOTA;
    case EROFS: return MPI_ERR_READ_ONLY;
    case ENAMETOOLONG:
    case EISDIR:
    case ENOTDIR:
    case ELOOP: return MPI_ERR_BAD_FILE;
    case ETXTBSY:
    case EBUSY: return MPI_ERR_FILE_IN_USE;
    case EFBIG:
    case EOVERFLOW: return MPI_ERR_ARG;
    case ENOMEM: return MPI_ERR_NO_MEM;
    default: return MPI_ERR_IO;
    }
}

/* "ferry: No such file or directory: /path/f.dat", as ROMIO names the file. */
int ferry_err_errno(int err, const char *path)
{
    if (err < 0)
        err = -err;
    if (err == 0)
        return MPI_SUCCESS;
    int cls = ferry_errno_class(err);
    if (!mpi_usable())
        return cls;
    char text[MPI_MAX_ERROR_STRING];
    pthread_mutex_lock(&lock);
    int code = -1;
    if (path && *path) {
        snprintf(text, sizeof text, "ferry: %s: %s", strerror(err), path);
        code = code_for(cls, text, MAX_CODES - RESERVED);
    }
    if (code < 0) {
        snprintf(text, sizeof text, "ferry: %s", strerror(err));
        code = code_for(cls, text, MAX_CODES);
    }
    pthread_mutex_unlock(&lock);
    return code < 0 ? cls : code;
}

int ferry_err_class(int code)
{
    if (code == MPI_SUCCESS)
        return MPI_SUCCESS;
    int cls = code;
    if (MPI_Error_class(code, &cls) != MPI_SUCCESS)
        return code;
    return cls;
}

/* ---- file error handlers ---- */

#define MAX_HANDLERS 256
static struct {
    MPI_Errhandler eh;
    MPI_File_errhandler_function *fn;
} handlers[MAX_HANDLERS];
static int nhandlers;
static int null_file_set;
static MPI_Errhandler null_file_eh;

static void never_called(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
}

int ferry_errh_create(MPI_File_errhandler_function *fn, MPI_Errhandler *out)
{
    if (!fn || !out)
        return ferry_err(MPI_ERR_ARG, "error handler function is NULL");
    pthread_mutex_lock(&lock);
    int rc = MPI_ERR_INTERN;
    if (nhandlers < MAX_HANDLERS && MPI_Comm_create_errhandler(never_called, out) == MPI_SUCCESS) {
        handlers[nhandlers].eh = *out;
        handlers[nhandlers].fn = fn;
        nhandlers++;
        rc = MPI_SUCCESS;
    }
    pthread_mutex_unlock(&lock);
    return rc == MPI_SUCCESS ? rc : ferry_err(MPI_ERR_INTERN, "too many file error handlers");
}

static MPI_File_errhandler_function *user_fn(MPI_Errhandler eh)
{
    MPI_File_errhandler_function *fn = NULL;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nhandlers; i++)
        if (handlers[i].eh == eh)
            fn = handlers[i].fn;
    pthread_mutex_unlock(&lock);
    return fn;
}

static int is_predefined(MPI_Errhandler eh)
{
    if (eh == MPI_ERRORS_RETURN || eh == MPI_ERRORS_ARE_FATAL)
        return 1;
#ifdef MPI_ERRORS_ABORT
    if (eh == MPI_ERRORS_ABORT)
        return 1;
#endif
    return 0;
}

int ferry_errh_valid(MPI_Errhandler eh)
{
    return eh != MPI_ERRHANDLER_NULL && (is_predefined(eh) || user_fn(eh) != NULL);
}

MPI_Errhandler ferry_errh_null_file(void)
{
    return null_file_set ? null_file_eh : MPI_ERRORS_RETURN;
}

void ferry_errh_set_null_file(MPI_Errhandler eh)
{
    null_file_eh = eh;
    null_file_set = 1;
}

int ferry_raise(ferry_file *f, int code, const char *fn)
{
    if (code == MPI_SUCCESS)
        return code;
    MPI_Errhandler eh = f ? f->errhandler : ferry_errh_null_file();
    if (eh == MPI_ERRORS_RETURN)
        return code;
    if (is_predefined(eh)) {
        char text[MPI_MAX_ERROR_STRING];
        int len = 0;
        if (MPI_Error_string(code, text, &len) != MPI_SUCCESS)
            snprintf(text, sizeof text, "error %d", code);
        ferry_say(FERRY_INFO, "%s on %s failed: %s", fn, f && f->filename ? f->filename : "MPI_FILE_NULL", text);
        fflush(stderr);
        MPI_Abort(f ? f->comm : MPI_COMM_WORLD, code);
        return code;
    }
    MPI_File_errhandler_function *ufn = user_fn(eh);
    if (ufn) {
        MPI_File h = f ? ferry_handle(f) : MPI_FILE_NULL;
        int c = code;
        ufn(&h, &c);
    }
    return code;
}
