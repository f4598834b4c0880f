/*
 * format_registry.h: the one list of tensor-core formats. Each entry names a
 * format's CPU side (`const tc_format tc_format_NAME`, formats/NAME.c) and
 * its GPU side (`const tc_kernel tc_kernel_NAME`, kernels/NAME.cu), or only
 * the CPU side for a format without a kernel:
 *
 *     TC_FORMAT_CPU_GPU(NAME)     both sides
 *     TC_FORMAT_CPU(NAME)         no kernel
 *
 * formats/formats.c expands it into the formats registry (libtcsparse) and
 * kernels/gpu_api.c into the kernels of the GPU library, in the same
 * order, so that format i's kernel is entry i of the GPU library's table
 * and nothing matches a format to its kernel by name. The order is the
 * registry order tools list and store formats in.
 */
#ifndef TC_FORMATS_REGISTRY_H
#define TC_FORMATS_REGISTRY_H

#define TC_FORMAT_REGISTRY(TC_FORMAT_CPU_GPU, TC_FORMAT_CPU) \
    TC_FORMAT_CPU_GPU(csr)                                   \
    TC_FORMAT_CPU_GPU(brp)                                   \
    TC_FORMAT_CPU_GPU(rstile)                                \
    TC_FORMAT_CPU_GPU(hrpb)                                  \
    TC_FORMAT_CPU_GPU(bsb)                                   \
    TC_FORMAT_CPU_GPU(bcsr)                                  \
    TC_FORMAT_CPU_GPU(rowsplit)

#endif
