/*
 * h5chunks.c: the chunks of a compressed dataset, checked before HDF5
 * reads them.
 *
 * HDF5 1.10 copies a whole chunk out of what its filters give back, even
 * when a corrupted deflate stream inflates to fewer bytes than the chunk
 * holds: a read past the end of its buffer, which a tool would take for
 * data (a bitmap of bcsr, say, that no other check can tell from a real
 * one). So each chunk of a filtered dataset is read raw (H5Dread_chunk)
 * and inflated here first, and must give exactly the chunk's size, from a
 * place inside the file. Only deflate, with or without shuffle (which
 * keeps the size), is accepted: what tcsparse, h5py and anndata write.
 * It costs one more inflate of each chunk: 16 to 28% of the CPU time of
 * reading a compressed file (tcf.h5(5), SECURITY).
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <zlib.h>

#include "tcsparse.h"
#include "h5internal.h"

/* Inflates the size bytes at in into out (room for want bytes and one
   more): the bytes it gives, or -1 when the stream is malformed. */
static int64_t inflated_size(const unsigned char *in, size_t size, unsigned char *out,
                             size_t want)
{
    z_stream z = { 0 };
    if (inflateInit(&z) != Z_OK)
        return -1;
    z.next_in = (unsigned char *)in;
    z.avail_in = (uInt)size;
    z.next_out = out;
    z.avail_out = (uInt)(want + 1);
    int r = inflate(&z, Z_FINISH);
    int64_t got = r == Z_STREAM_END || r == Z_BUF_ERROR || r == Z_OK ? (int64_t)z.total_out : -1;
    inflateEnd(&z);
    return got;
}

/* The filters of dcpl: *deflate the bit of deflate in a chunk's filter
   mask (0 without deflate); an error for any filter but deflate and
   shuffle. */
static tc_status filters(hid_t dcpl, const char *what, unsigned *deflate, tc_error *err)
{
    int n = H5Pget_nfilters(dcpl);
    *deflate = 0;
    if (n < 0)
        return tc_h5_fail(err, TC_ERR_FORMAT, "%s: cannot list its filters", what);
    for (int i = 0; i < n; i++) {
        unsigned flags, cd[8];
        size_t ncd = 8;
        char name[64] = "";
        H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, sizeof name,
                                         name, NULL);
        if (id == H5Z_FILTER_DEFLATE)
            *deflate = 1u << i;
        else if (id != H5Z_FILTER_SHUFFLE)
            return tc_error_set(err, TC_ERR_UNSUPPORTED,
                                "%s: compressed with filter %d%s%s%s (only deflate and "
                                "shuffle are read)", what, (int)id, name[0] ? " (" : "", name,
                                name[0] ? ")" : "");
    }
    return TC_OK;
}

tc_status tc_h5ds_check_chunks(hid_t ds, const char *what, uint64_t fsize, tc_error *err)
{
    hid_t dcpl = H5Dget_create_plist(ds);
    if (dcpl < 0)
        return tc_h5_fail(err, TC_ERR_FORMAT, "%s: cannot read its layout", what);
    unsigned deflate = 0;
    tc_status st = H5Pget_layout(dcpl) == H5D_CHUNKED ? filters(dcpl, what, &deflate, err)
                                                        : TC_OK;
    hsize_t cdims[H5S_MAX_RANK];
    int rank = deflate ? H5Pget_chunk(dcpl, H5S_MAX_RANK, cdims) : 0;
    tc_h5_close(dcpl);
    if (st != TC_OK || !deflate)
        return st;
    hid_t t = H5Dget_type(ds), space = H5Dget_space(ds);
    int64_t want = t < 0 ? 0 : (int64_t)H5Tget_size(t);
    tc_h5_close(t);
    for (int i = 0; i < rank; i++)
        if (cdims[i] > INT64_MAX || tc_mul_overflows(want, (int64_t)cdims[i], &want))
            want = -1;
    hsize_t n = 0;
    if (rank <= 0 || want <= 0 || want > UINT32_MAX - 1 || space < 0 ||
        H5Dget_num_chunks(ds, space, &n) < 0)
        st = tc_h5_fail(err, TC_ERR_FORMAT, "%s: cannot read its chunk index", what);
    unsigned char *raw = NULL, *out = st == TC_OK ? malloc((size_t)want + 1) : NULL;
    size_t raw_cap = 0;
    if (st == TC_OK && !out)
        st = tc_error_set(err, TC_ERR_NOMEM, "%s: out of memory", what);
    for (hsize_t i = 0; st == TC_OK && i < n; i++) {
        hsize_t offset[H5S_MAX_RANK], size;
        unsigned mask;
        haddr_t addr;
        if (H5Dget_chunk_info(ds, space, i, offset, &mask, &addr, &size) < 0) {
            st = tc_h5_fail(err, TC_ERR_FORMAT, "%s: chunk %llu: cannot read its place", what,
                            (unsigned long long)i);
            break;
        }
        /* zlib takes a 32-bit length: a stored chunk past it is no
           deflate output of a chunk under 4 GiB */
        if (addr == HADDR_UNDEF || addr > fsize || size > fsize - addr || size > UINT32_MAX) {
            st = tc_error_set(err, TC_ERR_FORMAT,
                              "%s: chunk %llu: %llu bytes at %llu in a file of %llu bytes",
                              what, (unsigned long long)i, (unsigned long long)size,
                              (unsigned long long)addr, (unsigned long long)fsize);
            break;
        }
        /* HDF5 stores a chunk that deflate cannot shrink as it is, with
           deflate's bit set in its mask: then it must be the whole chunk */
        if ((mask & ~deflate) || ((mask & deflate) && size != (hsize_t)want)) {
            st = tc_error_set(err, TC_ERR_FORMAT,
                              "%s: chunk %llu: %llu bytes stored with filter mask %u, for a "
                              "chunk of %" PRId64, what, (unsigned long long)i,
                              (unsigned long long)size, mask, want);
            break;
        }
        if (mask & deflate)
            continue;
        if (size > raw_cap) {
            unsigned char *more = realloc(raw, size);
            if (!more) {
                st = tc_error_set(err, TC_ERR_NOMEM, "%s: out of memory", what);
                break;
            }
            raw = more;
            raw_cap = size;
        }
        if (H5Dread_chunk(ds, H5P_DEFAULT, offset, &mask, raw) < 0) {
            st = tc_h5_fail(err, TC_ERR_FORMAT, "%s: chunk %llu: cannot read", what,
                            (unsigned long long)i);
            break;
        }
        int64_t got = inflated_size(raw, size, out, (size_t)want);
        if (got < 0)
            st = tc_error_set(err, TC_ERR_FORMAT, "%s: chunk %llu: not a valid deflate stream",
                              what, (unsigned long long)i);
        else if (got != want)
            st = tc_error_set(err, TC_ERR_FORMAT,
                              "%s: chunk %llu: inflates to %" PRId64 " bytes, not %" PRId64,
                              what, (unsigned long long)i, got, want);
    }
    free(raw);
    free(out);
    tc_h5_close(space);
    return st;
}
