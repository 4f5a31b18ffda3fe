/*
 * The shared file pointer family: write_ordered puts ranks in rank order,
 * write_shared/read_shared serialize without losing records, seek_shared and
 * get_position_shared agree, and the split and nonblocking forms work.
 */
#include "tutil.h"

#define REC 64

static void record(char *buf, int rank, int k)
{
    memset(buf, 'a' + (rank % 26), REC);
    snprintf(buf, REC, "rank %d record %d", rank, k);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    char path[512];
    t_path(path, sizeof path, "shared.dat");
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS, "open");
    char buf[REC], rbuf[REC];
    MPI_Status st;

    /* ordered: rank order, each rank a record of its own length (rank+1)*REC/.. */
    record(buf, t_rank, 0);
    rc = MPI_File_write_ordered(fh, buf, REC, MPI_CHAR, &st);
    EXPECT(rc == MPI_SUCCESS, "write_ordered");
    MPI_Offset pos = -1;
    MPI_File_get_position_shared(fh, &pos);
    EXPECT(pos == (MPI_Offset)t_size * REC, "shared position after ordered: %lld", (long long)pos);
    t_report("ordered pos=%lld", (long long)pos);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_read_at(fh, (MPI_Offset)t_rank * REC, rbuf, REC, MPI_CHAR, &st);
    EXPECT(!memcmp(buf, rbuf, REC), "rank order of write_ordered");

    /* split ordered */
    record(buf, t_rank, 1);
    rc = MPI_File_write_ordered_begin(fh, buf, REC, MPI_CHAR);
    rc |= MPI_File_write_ordered_end(fh, buf, &st);
    EXPECT(rc == MPI_SUCCESS, "write_ordered split");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_read_at(fh, (MPI_Offset)(t_size + t_rank) * REC, rbuf, REC, MPI_CHAR, &st);
    EXPECT(!memcmp(buf, rbuf, REC), "rank order of split ordered");

    /* independent shared writes: 3 records each, any order, none lost */
    for (int k = 0; k < 3; k++) {
        record(buf, t_rank, 10 + k);
        if (k == 2) {
            MPI_Request r;
            rc = MPI_File_iwrite_shared(fh, buf, REC, MPI_CHAR, &r);
            MPI_Wait(&r, &st);
        } else {
            rc = MPI_File_write_shared(fh, buf, REC, MPI_CHAR, &st);
        }
        EXPECT(rc == MPI_SUCCESS, "write_shared");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_get_position_shared(fh, &pos);
    EXPECT(pos == (MPI_Offset)t_size * 5 * REC, "shared position after shared writes");
    t_report("shared pos=%lld", (long long)pos);
    /* every record is present exactly once */
    if (t_rank == 0) {
        int seen = 0;
        for (int i = 0; i < 3 * t_size; i++) {
            MPI_File_read_at(fh, (MPI_Offset)(2 * t_size + i) * REC, rbuf, REC, MPI_CHAR, &st);
            int r = -1, k = -1;
            if (sscanf(rbuf, "rank %d record %d", &r, &k) == 2 && k >= 10 && k < 13)
                seen++;
        }
        EXPECT(seen == 3 * t_size, "records found %d", seen);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* seek_shared then read_ordered reads the ordered records back */
    rc = MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
    EXPECT(rc == MPI_SUCCESS, "seek_shared");
    rc = MPI_File_read_ordered(fh, rbuf, REC, MPI_CHAR, &st);
    record(buf, t_rank, 0);
    EXPECT(rc == MPI_SUCCESS && !memcmp(buf, rbuf, REC), "read_ordered");
    rc = MPI_File_read_ordered_begin(fh, rbuf, REC, MPI_CHAR);
    rc |= MPI_File_read_ordered_end(fh, rbuf, &st);
    record(buf, t_rank, 1);
    EXPECT(rc == MPI_SUCCESS && !memcmp(buf, rbuf, REC), "read_ordered split");
    MPI_File_get_position_shared(fh, &pos);
    t_report("after read_ordered pos=%lld", (long long)pos);
    MPI_Barrier(MPI_COMM_WORLD);
    /* read_shared from a common position: each rank gets a different record */
    rc = MPI_File_seek_shared(fh, 2 * t_size * REC, MPI_SEEK_SET);
    EXPECT(rc == MPI_SUCCESS, "seek_shared 2");
    rc = MPI_File_read_shared(fh, rbuf, REC, MPI_CHAR, &st);
    int count = -1;
    MPI_Get_count(&st, MPI_CHAR, &count);
    EXPECT(rc == MPI_SUCCESS && count == REC, "read_shared");
    MPI_File_seek_shared(fh, 0, MPI_SEEK_END);
    MPI_File_get_position_shared(fh, &pos);
    t_report("seek_shared end pos=%lld", (long long)pos);
    EXPECT(pos == (MPI_Offset)t_size * 5 * REC, "seek_shared end");
    MPI_File_close(&fh);
    /* shared-pointer records land in any order: the file is checked above,
     * not compared byte for byte with another run */
    if (t_rank == 0)
        MPI_File_delete(path, MPI_INFO_NULL);
    return t_finish("t_shared");
}
