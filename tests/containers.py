#!/usr/bin/python3
"""containers.py: the reference side of tests/containers.sh, through the
formats' own libraries (SciPy, h5py + json, anndata).

  containers.py inputs DIR MTX...    writes, for each Matrix Market file
      DIR/NAME.mtx.gz, the same matrix as SciPy .npz (csr compressed, csc
      uncompressed, coo), binsparse (CSR with unsigned indices, CSC,
      COO, DCSR, and symmetric_lower for a symmetric one) and AnnData
      (X csr, X csc, layers/counts)
  containers.py compare MTX GOT...   one line per GOT file: "0 GOT" when it
      holds exactly MTX's matrix (shape, pattern, values bit for bit),
      "1 GOT: why" otherwise. GOT.mtx is read by SciPy; GOT.npz by
      scipy.sparse.load_npz, and must be CSR as save_npz writes it;
      GOT.h5 by h5py and json, and must be binsparse CSR as the
      specification lays it out
  containers.py bad DIR              the malformed inputs of each kind
"""
import gzip
import io
import json
import os
import sys
import zipfile

import anndata
import h5py
import numpy as np
import scipy.io
import scipy.sparse as sp


def load_mtx(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        a = scipy.io.mmread(f)
    a = sp.csr_matrix(a)
    a.sum_duplicates()
    a.sort_indices()
    return a


def same(a, b):
    """Why csr matrices a and b differ, or None."""
    if a.shape != b.shape:
        return "shape %s, expected %s" % (b.shape, a.shape)
    a, b = sp.csr_matrix(a), sp.csr_matrix(b)
    for m in (a, b):
        m.sum_duplicates()
        m.sort_indices()
    if not np.array_equal(a.indptr, b.indptr) or not np.array_equal(a.indices, b.indices):
        return "pattern differs"
    if not np.array_equal(a.data.astype(np.float64), b.data.astype(np.float64)):
        return "values differ"
    return None


def binsparse(path, fmt, arrays, shape, nnz, types, **extra):
    desc = {"version": "0.1", "format": fmt, "shape": list(shape),
            "number_of_stored_values": int(nnz), "data_types": types}
    desc.update(extra)
    with h5py.File(path, "w") as f:
        for name, values in arrays.items():
            f.create_dataset(name, data=values)
        f.attrs["binsparse"] = json.dumps({"binsparse": desc})


def write_binsparse_inputs(base, a):
    vt = str(a.data.dtype)
    # CSR with unsigned index types, CSC with mixed ones
    for fmt, m, ptr_t, idx_t in (("CSR", a, "uint64", "uint64"),
                                 ("CSC", a.tocsc(), "int64", "int32")):
        binsparse("%s.%s.bsp.h5" % (base, fmt.lower()), fmt,
                  {"pointers_to_1": m.indptr.astype(ptr_t), "indices_1": m.indices.astype(idx_t),
                   "values": m.data},
                  a.shape, a.nnz, {"pointers_to_1": ptr_t, "indices_1": idx_t, "values": vt})
    # COO listed backwards: the reader sorts
    o = a.tocoo()
    binsparse(base + ".coo.bsp.h5", "COO",
              {"indices_0": o.row[::-1].astype(np.int64),
               "indices_1": o.col[::-1].astype(np.int64), "values": o.data[::-1]},
              a.shape, a.nnz, {"indices_0": "int64", "indices_1": "int64",
                               "values": vt})
    rows = np.flatnonzero(np.diff(a.indptr))
    binsparse(base + ".dcsr.bsp.h5", "DCSR",
              {"indices_0": rows.astype(np.int64),
               "pointers_to_1": np.concatenate([[0], a.indptr[rows + 1]]).astype(np.int64),
               "indices_1": a.indices.astype(np.int64), "values": a.data},
              a.shape, a.nnz, {"indices_0": "int64", "pointers_to_1": "int64",
                               "indices_1": "int64", "values": vt})
    if a.shape[0] == a.shape[1] and (a != a.T).nnz == 0:
        low = sp.tril(a).tocsr()
        binsparse(base + ".sym.bsp.h5", "CSR",
                  {"pointers_to_1": low.indptr.astype(np.int64),
                   "indices_1": low.indices.astype(np.int64), "values": low.data},
                  a.shape, low.nnz, {"pointers_to_1": "int64", "indices_1": "int64",
                                     "values": vt}, structure="symmetric_lower")


def inputs(d, paths):
    for path in paths:
        name = os.path.basename(path)[:-len(".mtx.gz")]
        base = os.path.join(d, name)
        a = load_mtx(path)
        sp.save_npz(base + ".csr.npz", a)
        sp.save_npz(base + ".csc.npz", a.tocsc(), compressed=False)
        sp.save_npz(base + ".coo.npz", a.tocoo())
        write_binsparse_inputs(base, a)
        ad = anndata.AnnData(X=a, dtype=a.dtype)
        ad.layers["counts"] = a.tocsc()
        ad.write_h5ad(base + ".h5ad")
        anndata.AnnData(X=a.tocsc(), dtype=a.dtype).write_h5ad(base + ".csc.h5ad")


def compare(mtx, gots):
    a = load_mtx(mtx)
    for got in gots:
        reader = ("scipy.sparse.load_npz" if got.endswith(".npz") else
                  "h5py + json as binsparse CSR" if got.endswith(".h5") else "SciPy")
        if not os.path.exists(got):
            why = "missing"
        elif got.endswith(".npz"):
            why = check_npz(a, got)
        elif got.endswith(".h5"):
            why = check_binsparse(a, got)
        else:
            why = same(a, load_mtx(got))
        name = "%s, read by %s, is %s" % (got, reader, os.path.basename(mtx))
        print("0 %s" % name if why is None else "1 %s: %s" % (name, why))


def check_npz(a, npz):
    b = sp.load_npz(npz)
    if b.format != "csr":
        return "format %s, expected csr" % b.format
    if b.indices.dtype != np.int32 or b.indptr.dtype != np.int32:
        return "index dtypes %s %s, expected int32" % (b.indices.dtype, b.indptr.dtype)
    if b.data.dtype != np.float64:
        return "data dtype %s, expected float64" % b.data.dtype
    with zipfile.ZipFile(npz) as z:
        names = [i.filename for i in z.infolist()]
        if names != ["indices.npy", "indptr.npy", "format.npy", "shape.npy", "data.npy"]:
            return "members %s" % names
        if any(i.compress_type != zipfile.ZIP_DEFLATED for i in z.infolist()):
            return "members not deflated"
        if z.testzip() is not None:
            return "a member's CRC is wrong"
    return same(a, b)


def check_binsparse(a, h5):
    with h5py.File(h5, "r") as f:
        desc = json.loads(f.attrs["binsparse"])["binsparse"]
        types = desc["data_types"]
        if desc["version"] != "0.1" or desc["format"] != "CSR":
            return "descriptor %s" % desc
        if desc["shape"] != list(a.shape) or desc["number_of_stored_values"] != a.nnz:
            return "shape or number_of_stored_values differ: %s" % desc
        if sorted(types) != ["indices_1", "pointers_to_1", "values"]:
            return "data_types %s" % types
        if sorted(f.keys()) != ["indices_1", "pointers_to_1", "values"]:
            return "datasets %s" % list(f.keys())
        ptr, idx, val = f["pointers_to_1"][()], f["indices_1"][()], f["values"][()]
    if str(ptr.dtype) != types["pointers_to_1"] or str(idx.dtype) != types["indices_1"]:
        return "index dtypes differ from data_types"
    if types["values"] == "iso[bint8]":
        if list(val) != [1]:
            return "iso value %s" % val
        val = np.ones(len(idx))
    elif str(val.dtype) != types["values"]:
        return "values dtype differs from data_types"
    return same(a, sp.csr_matrix((val, idx, ptr), shape=tuple(desc["shape"])))


def npy(values, dtype=None):
    buf = io.BytesIO()
    np.save(buf, np.asarray(values, dtype=dtype))
    return buf.getvalue()


def npz(path, members, compressed=True):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED if compressed else zipfile.ZIP_STORED) as z:
        for name, data in members.items():
            z.writestr(name + ".npy", data)


def bad(d):
    """Malformed files, each wrong in one way; tests/containers.sh knows
    what the reader must say of each."""
    good = {"indices": npy([0, 2, 1], np.int32), "indptr": npy([0, 2, 3], np.int32),
            "format": npy(b"csr"), "shape": npy([2, 3], np.int64),
            "data": npy([1.0, 2.0, 3.0])}
    npz(d + "/good.npz", good)
    with open(d + "/good.npz", "rb") as f:
        whole = f.read()
    with open(d + "/truncated.npz", "wb") as f:
        f.write(whole[:len(whole) // 2])
    npz(d + "/no-indices.npz", {k: v for k, v in good.items() if k != "indices"})
    npz(d + "/complex-data.npz", dict(good, data=npy([1j, 2, 3])))
    npz(d + "/big-endian.npz", dict(good, indices=npy([0, 2, 1], ">i4")))
    npz(d + "/float-indices.npz", dict(good, indices=npy([0.0, 2.0, 1.0])))
    # the same with a descr of 18 characters the reader still takes (the
    # size is read as a number): its message names it whole; 15 spaces of
    # the header's padding make room
    padded = npy([0.0, 2.0, 1.0]).replace(b"'<f8'", b"'<f0000000000000008'")
    npz(d + "/padded-descr.npz", dict(good, indices=padded.replace(b" " * 15 + b"\n", b"\n")))
    npz(d + "/indptr-down.npz", dict(good, indptr=npy([0, 3, 2], np.int32)), compressed=False)
    npz(d + "/index-range.npz", dict(good, indices=npy([0, 3, 1], np.int32)))
    npz(d + "/shape-mismatch.npz", dict(good, shape=npy([3, 3], np.int64)))
    npz(d + "/bsr.npz", dict(good, format=npy(b"bsr")))
    npz(d + "/short-data.npz", dict(good, data=npy([1.0, 2.0])))
    npz(d + "/empty.npz", {})
    npz(d + "/bad-header.npz", dict(good, data=good["data"][:10] + b"X" + good["data"][11:]))

    types = {"pointers_to_1": "int64", "indices_1": "int64", "values": "float64"}
    arrays = {"pointers_to_1": np.array([0, 2, 3], np.int64),
              "indices_1": np.array([0, 2, 1], np.int64), "values": np.array([1.0, 2, 3])}

    def bsp(name, fmt="CSR", arr=arrays, nnz=3, shape=(2, 3), ty=types, **extra):
        binsparse(d + "/" + name, fmt, arr, shape, nnz, ty, **extra)

    bsp("good.bsp.h5")
    with h5py.File(d + "/bad-json.bsp.h5", "w") as f:
        f.attrs["binsparse"] = '{"binsparse": {"version": "0.1", "format": "CSR",}}'
    with h5py.File(d + "/no-descriptor.bsp.h5", "w") as f:
        f.create_dataset("values", data=np.zeros(1))
    bsp("version.bsp.h5", version="1.0")
    bsp("dvec.bsp.h5", fmt="DVEC")
    bsp("nsv.bsp.h5", nnz=4)
    bsp("ptr-down.bsp.h5", arr=dict(arrays, pointers_to_1=np.array([0, 3, 2], np.int64)))
    bsp("index-range.bsp.h5", arr=dict(arrays, indices_1=np.array([0, 5, 1], np.int64)))
    bsp("declared.bsp.h5", arr=dict(arrays, indices_1=np.array([0, 2, 1], np.int32)))
    bsp("upper.bsp.h5", shape=(2, 2), arr=dict(arrays, indices_1=np.array([0, 1, 1], np.int64)),
        structure="symmetric_lower")
    bsp("hermitian.bsp.h5", structure="hermitian_lower")
    bsp("fill.bsp.h5", fill=True, arr=dict(arrays, fill_value=np.array([2.5])))
    bsp("no-types.bsp.h5", ty={"pointers_to_1": "int64", "values": "float64"})

    x = sp.csr_matrix(np.array([[1.0, 0, 2], [0, 3, 0]]))
    anndata.AnnData(X=x, dtype=x.dtype).write_h5ad(d + "/good.h5ad")
    for name, change in (("indptr-down", lambda g: g["indptr"].__setitem__(1, 4)),
                         ("index-range", lambda g: g["indices"].__setitem__(0, 7)),
                         ("shape", lambda g: g.attrs.__setitem__("shape", np.array([3, 3]))),
                         ("encoding", lambda g: g.attrs.__setitem__("encoding-type",
                                                                    "dataframe"))):
        path = "%s/%s.h5ad" % (d, name)
        with open(d + "/good.h5ad", "rb") as src, open(path, "wb") as dst:
            dst.write(src.read())
        with h5py.File(path, "r+") as f:
            change(f["X"])


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    {"inputs": lambda: inputs(args[0], args[1:]), "compare": lambda: compare(args[0], args[1:]),
     "bad": lambda: bad(args[0])}[cmd]()
