#!/usr/bin/python3
# make-fixtures.py: writes the binsparse fixtures of this directory with
# h5py alone, from the arrays and descriptors printed in the binsparse
# specification 0.1 (github.com/GraphBLAS/binsparse-specification,
# spec/latest/index.bs), typed in by hand, so that tests/containers.sh
# checks tcsparse's reader against the specification and not against
# tcsparse's own writer. The .mtx files beside them are the same matrices
# typed from the specification's tables. Run from this directory.
import json

import h5py
import numpy as np


def fixture(name, descriptor, arrays):
    with h5py.File(name, "w", track_order=True) as f:
        for key, (values, dtype) in arrays.items():
            f.create_dataset(key, data=np.array(values, dtype=dtype))
        f.attrs["binsparse"] = json.dumps(descriptor)


# "All Values the Same (ISO)", descriptor as printed (without the
# "binsparse" namespace object)
fixture("spec-iso-csr.bsp.h5",
        {"version": "0.1", "format": "CSR", "shape": [5, 5],
         "number_of_stored_values": 6,
         "data_types": {"pointers_to_1": "uint64", "indices_1": "uint64",
                        "values": "iso[int8]"}},
        {"pointers_to_1": ([0, 1, 3, 3, 5, 6], "<u8"),
         "indices_1": ([3, 1, 4, 1, 2, 3], "<u8"),
         "values": ([7], "i1")})

# "Structure": symmetric_lower, namespaced as the descriptor section says
fixture("spec-symmetric-lower.bsp.h5",
        {"binsparse": {"version": "0.1", "format": "CSR", "shape": [5, 5],
                       "number_of_stored_values": 9,
                       "structure": "symmetric_lower",
                       "data_types": {"pointers_to_1": "uint64",
                                      "indices_1": "uint64",
                                      "values": "int8"}}},
        {"pointers_to_1": ([0, 1, 3, 5, 7, 9], "<u8"),
         "indices_1": ([0, 0, 1, 0, 2, 1, 3, 2, 4], "<u8"),
         "values": ([1, 2, 9, 7, 2, 2, 3, 3, 7], "i1")})
