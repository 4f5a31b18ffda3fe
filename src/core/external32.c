/*
 * external32 (MPI-3.1 §13.5.2): big-endian two's complement integers and
 * IEEE floating point, with the sizes of Table 13.2, which are not always
 * the native ones (MPI_LONG is 4 bytes, MPI_WCHAR 2, MPI_LONG_DOUBLE a
 * 16-byte IEEE quad). Integers are truncated or sign/zero-extended between
 * the two sizes; x87 extended precision is re-encoded as binary128.
 */
#include "core/datarep.h"

#include <float.h>
#include <stdint.h>
#include <string.h>

enum { K_BYTES, K_INT, K_UINT, K_FLOAT, K_LDOUBLE };

typedef struct x32 {
    MPI_Datatype t;
    unsigned char kind, parts, size; /* size in external32; parts: 2 for complex */
} x32;

#define E(t, k, p, s) {t, k, p, s},
static const x32 table[] = {
    E(MPI_BYTE, K_BYTES, 1, 1) E(MPI_PACKED, K_BYTES, 1, 1) E(MPI_CHAR, K_BYTES, 1, 1)
    E(MPI_UNSIGNED_CHAR, K_UINT, 1, 1) E(MPI_SIGNED_CHAR, K_INT, 1, 1) E(MPI_WCHAR, K_UINT, 1, 2)
    E(MPI_SHORT, K_INT, 1, 2) E(MPI_UNSIGNED_SHORT, K_UINT, 1, 2) E(MPI_INT, K_INT, 1, 4)
    E(MPI_UNSIGNED, K_UINT, 1, 4) E(MPI_LONG, K_INT, 1, 4) E(MPI_UNSIGNED_LONG, K_UINT, 1, 4)
    E(MPI_LONG_LONG_INT, K_INT, 1, 8) E(MPI_UNSIGNED_LONG_LONG, K_UINT, 1, 8) E(MPI_FLOAT, K_FLOAT, 1, 4)
    E(MPI_DOUBLE, K_FLOAT, 1, 8) E(MPI_LONG_DOUBLE, K_LDOUBLE, 1, 16) E(MPI_C_BOOL, K_BYTES, 1, 1)
    E(MPI_INT8_T, K_INT, 1, 1) E(MPI_INT16_T, K_INT, 1, 2) E(MPI_INT32_T, K_INT, 1, 4)
    E(MPI_INT64_T, K_INT, 1, 8) E(MPI_UINT8_T, K_UINT, 1, 1) E(MPI_UINT16_T, K_UINT, 1, 2)
    E(MPI_UINT32_T, K_UINT, 1, 4) E(MPI_UINT64_T, K_UINT, 1, 8) E(MPI_AINT, K_INT, 1, 8)
    E(MPI_COUNT, K_INT, 1, 8) E(MPI_OFFSET, K_INT, 1, 8) E(MPI_C_COMPLEX, K_FLOAT, 2, 8)
    E(MPI_C_FLOAT_COMPLEX, K_FLOAT, 2, 8) E(MPI_C_DOUBLE_COMPLEX, K_FLOAT, 2, 16)
    E(MPI_C_LONG_DOUBLE_COMPLEX, K_LDOUBLE, 2, 32)
    E(MPI_CHARACTER, K_BYTES, 1, 1) E(MPI_LOGICAL, K_INT, 1, 4) E(MPI_INTEGER, K_INT, 1, 4)
    E(MPI_REAL, K_FLOAT, 1, 4) E(MPI_DOUBLE_PRECISION, K_FLOAT, 1, 8) E(MPI_COMPLEX, K_FLOAT, 2, 8)
    E(MPI_DOUBLE_COMPLEX, K_FLOAT, 2, 16)
#ifdef MPI_INTEGER1
    E(MPI_INTEGER1, K_INT, 1, 1) E(MPI_INTEGER2, K_INT, 1, 2) E(MPI_INTEGER4, K_INT, 1, 4)
    E(MPI_INTEGER8, K_INT, 1, 8)
#endif
#ifdef MPI_INTEGER16
    E(MPI_INTEGER16, K_INT, 1, 16)
#endif
#ifdef MPI_REAL2
    E(MPI_REAL2, K_FLOAT, 1, 2)
#endif
#ifdef MPI_REAL4
    E(MPI_REAL4, K_FLOAT, 1, 4) E(MPI_REAL8, K_FLOAT, 1, 8)
#endif
#ifdef MPI_REAL16
    E(MPI_REAL16, K_FLOAT, 1, 16)
#endif
#ifdef MPI_COMPLEX8
    E(MPI_COMPLEX8, K_FLOAT, 2, 8) E(MPI_COMPLEX16, K_FLOAT, 2, 16)
#endif
#ifdef MPI_COMPLEX4
    E(MPI_COMPLEX4, K_FLOAT, 2, 4)
#endif
#ifdef MPI_COMPLEX32
    E(MPI_COMPLEX32, K_FLOAT, 2, 32)
#endif
#ifdef MPI_CXX_BOOL
    E(MPI_CXX_BOOL, K_BYTES, 1, 1)
#endif
#ifdef MPI_CXX_FLOAT_COMPLEX
    E(MPI_CXX_FLOAT_COMPLEX, K_FLOAT, 2, 8) E(MPI_CXX_DOUBLE_COMPLEX, K_FLOAT, 2, 16)
    E(MPI_CXX_LONG_DOUBLE_COMPLEX, K_LDOUBLE, 2, 32)
#endif
};
#undef E

typedef struct prim_info {
    int kind, parts;
    int64_t native, ext; /* bytes per element */
} prim_info;

static void info_of(MPI_Datatype t, prim_info *p)
{
    MPI_Count n = 0;
    MPI_Type_size_x(t, &n);
    p->native = n;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].t == t && t != MPI_DATATYPE_NULL) {
            p->kind = table[i].kind;
            p->parts = table[i].parts;
            p->ext = table[i].size;
            return;
        }
    /* MPI_Type_create_f90_*: the native size, by kind */
    int ni, na, nd, comb = MPI_COMBINER_NAMED;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    p->kind = comb == MPI_COMBINER_F90_INTEGER ? K_INT
              : comb == MPI_COMBINER_F90_REAL || comb == MPI_COMBINER_F90_COMPLEX ? K_FLOAT
                                                                                 : K_BYTES;
    p->parts = comb == MPI_COMBINER_F90_COMPLEX ? 2 : 1;
    p->ext = n;
}

int64_t ferry_ext32_size(MPI_Datatype prim)
{
    MPI_Datatype a, b;
    if (prim == MPI_FLOAT_INT || prim == MPI_DOUBLE_INT || prim == MPI_LONG_INT || prim == MPI_2INT ||
        prim == MPI_SHORT_INT || prim == MPI_LONG_DOUBLE_INT) {
        a = prim == MPI_FLOAT_INT ? MPI_FLOAT
            : prim == MPI_DOUBLE_INT ? MPI_DOUBLE
            : prim == MPI_LONG_INT ? MPI_LONG
            : prim == MPI_2INT ? MPI_INT
            : prim == MPI_SHORT_INT ? MPI_SHORT
                                   : MPI_LONG_DOUBLE;
        b = MPI_INT;
        return ferry_ext32_size(a) + ferry_ext32_size(b);
    }
    prim_info p;
    info_of(prim, &p);
    return p.ext;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define SIG(b, n, k) ((b)[(n) - 1 - (k)]) /* byte of significance k of a native n-byte value */
#else
#define SIG(b, n, k) ((b)[(k)])
#endif

/* One two's complement (or IEEE, when n == m) value, native n bytes -> big-endian m bytes. */
static void int_out(const unsigned char *in, int64_t n, unsigned char *out, int64_t m, int is_signed)
{
    unsigned char ext = is_signed && (SIG(in, n, n - 1) & 0x80) ? 0xff : 0;
    for (int64_t j = 0; j < m; j++) {
        int64_t k = m - 1 - j;
        out[j] = k < n ? SIG(in, n, k) : ext;
    }
}

static void int_in(const unsigned char *in, int64_t m, unsigned char *out, int64_t n, int is_signed)
{
    unsigned char ext = is_signed && (in[0] & 0x80) ? 0xff : 0;
    for (int64_t k = 0; k < n; k++)
        SIG(out, n, k) = k < m ? in[m - 1 - k] : ext;
}

static uint64_t load64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* Native long double <-> binary128, as big-endian (hi, lo) 64-bit halves. */
static void ld_out(const unsigned char *in, int64_t n, unsigned char *out)
{
#if LDBL_MANT_DIG == 64
    (void)n;
    uint64_t mant = load64(in);
    uint16_t se;
    memcpy(&se, in + 8, 2);
    uint64_t hi = ((uint64_t)se << 48) | ((mant >> 15) & 0xffffffffffffull);
    uint64_t lo = (mant & 0x7fff) << 49;
#elif LDBL_MANT_DIG == 53
    (void)n;
    uint64_t d = load64(in), sign = d >> 63, e = (d >> 52) & 0x7ff, fr = d & 0xfffffffffffffull;
    uint64_t e15 = e == 0 ? 0 : e == 0x7ff ? 0x7fff : e - 1023 + 16383;
    uint64_t hi = (sign << 63) | (e15 << 48) | (fr >> 4), lo = fr << 60;
#else
    /* already binary128 */
    unsigned char tmp[16];
    int_out(in, n, tmp, 16, 0);
    memcpy(out, tmp, 16);
    return;
#endif
#if LDBL_MANT_DIG == 64 || LDBL_MANT_DIG == 53
    unsigned char h[8], l[8];
    memcpy(h, &hi, 8);
    memcpy(l, &lo, 8);
    int_out(h, 8, out, 8, 0);
    int_out(l, 8, out + 8, 8, 0);
#endif
}

static void ld_in(const unsigned char *in, unsigned char *out, int64_t n)
{
    uint64_t hi, lo;
    unsigned char h[8], l[8];
    int_in(in, 8, h, 8, 0);
    int_in(in + 8, 8, l, 8, 0);
    memcpy(&hi, h, 8);
    memcpy(&lo, l, 8);
    memset(out, 0, (size_t)n);
#if LDBL_MANT_DIG == 64
    uint16_t se = (uint16_t)(hi >> 48);
    uint64_t mant = ((hi & 0xffffffffffffull) << 15) | (lo >> 49);
    if (se & 0x7fff)
        mant |= 1ull << 63; /* the explicit integer bit of a normal number */
    memcpy(out, &mant, 8);
    memcpy(out + 8, &se, 2);
#elif LDBL_MANT_DIG == 53
    uint64_t sign = hi >> 63, e15 = (hi >> 48) & 0x7fff, fr = ((hi & 0xffffffffffffull) << 4) | (lo >> 60);
    int64_t e = e15 == 0 ? 0 : e15 == 0x7fff ? 0x7ff : (int64_t)e15 - 16383 + 1023;
    if (e <= 0 && e15 != 0)
        e = 0, fr = 0; /* underflow to zero */
    else if (e >= 0x7ff && e15 != 0x7fff)
        e = 0x7ff, fr = 0; /* overflow to infinity */
    uint64_t d = (sign << 63) | ((uint64_t)e << 52) | fr;
    memcpy(out, &d, 8);
#else
    int_in(in, 16, out, n, 0);
#endif
}

/* native -> external32 (encode) or back: the same walk over the parts of
 * count elements of prim, in steps of each side's part size */
static void convert(MPI_Datatype prim, int64_t count, const unsigned char *in, unsigned char *out, int encode)
{
    prim_info p;
    info_of(prim, &p);
    if (p.kind == K_BYTES && p.native == p.ext) {
        memcpy(out, in, (size_t)(count * p.ext));
        return;
    }
    int64_t n = p.native / p.parts, m = p.ext / p.parts, parts = count * p.parts;
    int64_t in_step = encode ? n : m, out_step = encode ? m : n;
    for (int64_t i = 0; i < parts; i++, in += in_step, out += out_step) {
        if (p.kind == K_LDOUBLE && encode)
            ld_out(in, n, out);
        else if (p.kind == K_LDOUBLE)
            ld_in(in, out, n);
        else if (encode)
            int_out(in, n, out, m, p.kind == K_INT);
        else
            int_in(in, m, out, n, p.kind == K_INT);
    }
}

void ferry_ext32_encode(MPI_Datatype prim, int64_t count, const char *native, char *file)
{
    convert(prim, count, (const unsigned char *)native, (unsigned char *)file, 1);
}

void ferry_ext32_decode(MPI_Datatype prim, int64_t count, const char *file, char *native)
{
    convert(prim, count, (const unsigned char *)file, (unsigned char *)native, 0);
}
