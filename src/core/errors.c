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

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- codes with messages ---- */

#define MAX_CODES 512
static struct {
    const char *msg;
    int cls;
    int code;
} codes[MAX_CODES];
static int ncodes;

int ferry_err(int cls, const char *msg)
{
    if (cls == MPI_SUCCESS)
        return MPI_SUCCESS;
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (!initialized || finalized || !msg)
        return cls;
    pthread_mutex_lock(&lock);
    int code = cls;
    for (int i = 0; i < ncodes; i++)
        if (codes[i].msg == msg && codes[i].cls == cls) {
            code = codes[i].code;
            goto out;
        }
    if (ncodes < MAX_CODES && MPI_Add_error_code(cls, &code) == MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        snprintf(text, sizeof text, "ferry: %s", msg);
        MPI_Add_error_string(code, text);
        codes[ncodes].msg = msg;
        codes[ncodes].cls = cls;
        codes[ncodes].code = code;
        ncodes++;
    } else {
        code = cls;
    }
out:
    pthread_mutex_unlock(&lock);
    return code;
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

/* One message per errno, so MPI_Error_string names the system error. */
int ferry_err_errno(int err, const char *what)
{
    (void)what;
    if (err < 0)
        err = -err;
    if (err == 0)
        return MPI_SUCCESS;
    static const char *texts[160];
    if (err < 160) {
        pthread_mutex_lock(&lock);
        if (!texts[err])
            texts[err] = strdup(strerror(err));
        const char *t = texts[err];
        pthread_mutex_unlock(&lock);
        return ferry_err(ferry_errno_class(err), t);
    }
    return ferry_errno_class(err);
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
        fprintf(stderr, "ferry: %s on %s failed: %s\n", fn, f && f->filename ? f->filename : "MPI_FILE_NULL", text);
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
