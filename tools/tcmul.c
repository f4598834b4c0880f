/* tcmul: C = A*B on the CPU or the GPU, with checks and timing. */
#include "config.h"
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "tcmul.h"

static void usage(void)
{
    printf(
"Usage: %s [OPTIONS] A (-B FILE[:DATASET] | --cols N) [-o C]\n"
"       %s --op attention [OPTIONS] A (Q K V | --dim D) [-o O]\n"
"       %s --op sddmm [OPTIONS] A (Q K | --dim D) [-o S.mtx|S.tcf.h5]\n"
"Multiply a sparse matrix A by a dense matrix B: C = A*B, on the CPU or the\n"
"GPU, checked against a float64 reference (--verify) and timed (--bench);\n"
"or compute sparse attention O = softmax(scale Q K^T masked by A) V, or its\n"
"SDDMM S = scale Q K^T at A's nonzeros, from the bsb format.\n"
"\n"
"A is a .mtx, .mtx.gz or .tcf.h5 file. When A was reordered (its .tcf.h5\n"
"holds /permutation), B is taken and C is given in the original order.\n"
"\n"
"Operands:\n"
"  -B, --B FILE[:DATASET]   B from an HDF5 dataset (default /B) or a Matrix\n"
"                           Market array file; it must have A's column count\n"
"                           of rows\n"
"  -n, --cols N             random B with N columns, uniform in [-1, 1)\n"
"      --seed S             seed of the random B (default 1)\n"
"  -o, --output FILE[:DATASET]\n"
"                           write C: FILE.h5 or FILE.hdf5 (float32 dataset,\n"
"                           default /C) or FILE.mtx (Matrix Market array;\n"
"                           FILE.mtx.gz gzip-compressed)\n"
"\n"
"Attention and SDDMM (Fused3S):\n"
"      --op OP              spmm (default), attention or sddmm\n"
"  Q K V                    FILE[:DATASET] each (default datasets /Q, /K,\n"
"                           /V) or Matrix Market arrays: Q has A's rows, K\n"
"                           and V A's columns, all D columns\n"
"      --dim D              random Q, K, V of D columns in [-1, 1) (--seed)\n"
"      --scale S            scores times S (default 1/sqrt(D) for attention,\n"
"                           1 for sddmm)\n"
"      --path PATH          fused (default: one kernel from bsb, fp16 inputs)\n"
"                           or unfused (cuSPARSE SDDMM, softmax, cuSPARSE\n"
"                           SpMM, fp32); --bench times both\n"
"\n"
"Where and how:\n"
"  -d, --device DEV         cpu, gpu, or auto (default: the GPU when there is\n"
"                           one, else the CPU)\n"
"  -f, --format NAME        the tensor-core format whose kernel runs (default\n"
"                           csr: cuSPARSE on the GPU, threaded CSR on the CPU)\n"
"      --variant NAME       run this variant of the kernel instead of the\n"
"                           fastest (tcmul(1) describes each format's; an\n"
"                           unknown NAME lists them; --op: w1, w2, w4, w8\n"
"                           warps per thread block)\n"
"  -t, --threads N          CPU threads (default: $TC_THREADS, else all CPUs)\n"
"      --gpu I              which GPU (default 0)\n"
"      --list-devices       list the CUDA devices and exit (status 3: none)\n"
"\n"
"Checks and timing:\n"
"      --verify             compare C with a float64 CPU reference; fail\n"
"                           (status 1) above the kernel precision's tolerance\n"
"      --bench              time the kernel: median of --iters runs after\n"
"                           --warmup runs; GFLOP/s; fraction of the memory-\n"
"                           traffic floor\n"
"      --warmup N           untimed runs first (default 10)\n"
"      --iters N            timed runs (default 100)\n"
"      --bandwidth GBS      memory bandwidth for the floor, in GB/s (default:\n"
"                           measured with a large copy)\n"
"      --dense              with --bench on the GPU: also time cuBLAS GEMM on\n"
"                           A stored densely (fp16, fp32 accumulation)\n"
"      --tsv                figures as section/key/value lines\n"
"      --json               figures as JSON\n"
"  -q, --quiet              no warnings, no progress bar\n"
"  -v, --verbose            say what runs where; show HDF5's own errors\n"
"  -h, --help               show this help and exit\n"
"  -V, --version            show the version and exit\n"
"\n"
"Examples:\n"
"  %s graph.tcf.h5 --cols 128 --verify --bench\n"
"  %s graph.mtx.gz -B features.h5:/X -o out.h5:/Y\n"
"  %s --device cpu graph.mtx --cols 32 --verify --tsv\n"
"  %s --op attention graph.tcf.h5 --dim 64 --verify --bench\n"
"  %s --op attention graph.mtx x.h5:/Q x.h5:/K x.h5:/V -o out.h5:/O\n",
        tool_name, tool_name, tool_name, tool_name, tool_name, tool_name, tool_name, tool_name);
}

enum {
    OPT_SEED = 256, OPT_VARIANT, OPT_GPU, OPT_LIST, OPT_VERIFY, OPT_BENCH, OPT_WARMUP, OPT_ITERS,
    OPT_BANDWIDTH, OPT_DENSE, OPT_TSV, OPT_JSON, OPT_OP, OPT_DIM, OPT_SCALE, OPT_PATH
};

/* The first len characters of an option's file name into buf. */
static void copy_name(char *buf, size_t size, const char *name, size_t len, const char *opt)
{
    if (len >= size)
        tool_usage_error("%s: the name is too long", opt);
    memcpy(buf, name, len);
    buf[len] = '\0';
}

/* -o FILE[:DATASET]: a name ending in .mtx is a Matrix Market file (.mtx.gz
   the same gzip-compressed), one ending in .h5 or .hdf5 an HDF5 file
   (dataset /C, or /O for attention); otherwise what follows the last ':'
   names the dataset of an HDF5 file, whose name must not say another kind.
   The SDDMM's output is sparse: a .mtx (coordinate) or .tcf.h5 file. */
static void parse_output(const char *spec, options *o)
{
    static const char dense[] = "HDF5 (a name ending in .h5 or .hdf5, or FILE:DATASET) or "
                                "Matrix Market (.mtx, .mtx.gz)";
    const unsigned mtx = TOOL_NAMES(TOOL_NAME_MTX), h5 = TOOL_NAMES(TOOL_NAME_HDF5);
    const char *colon = strrchr(spec, ':');
    const tool_name_kind kind = tool_name_kind_of(spec);
    size_t len = strlen(spec);
    if (o->op == OP_SDDMM) {
        o->out_sparse = tool_check_output_name("--output", spec, mtx | TOOL_NAMES(TOOL_NAME_TCF),
                                               "a sparse matrix: .tcf.h5 (a name ending in "
                                               ".tcf.h5) or Matrix Market (.mtx, .mtx.gz)") ==
                        TOOL_NAME_TCF;
    } else if (kind == TOOL_NAME_MTX) {
        o->out_dataset = NULL;
    } else if (kind == TOOL_NAME_HDF5) {
        o->out_dataset = o->op == OP_ATTENTION ? "/O" : "/C";
    } else if (colon && colon != spec && colon[1]) {
        o->out_dataset = colon + 1;
        len = (size_t)(colon - spec);
    } else {
        tool_check_output_name("--output", spec, mtx | h5, dense);
    }
    copy_name(o->out_path, sizeof o->out_path, spec, len, "-o");
    if (o->out_dataset && kind != TOOL_NAME_HDF5)
        tool_check_output_name("--output", o->out_path,
                               h5 | TOOL_NAMES(TOOL_NAME_PLAIN) | TOOL_NAMES(TOOL_NAME_OTHER), dense);
}

/* A dense operand FILE[:DATASET] (-B, Q, K, V): FILE:DATASET names a
   dataset when it is not itself a file; without one, FILE is HDF5 (the
   operand's default dataset) or Matrix Market by content
   (tcmul_read_dense). */
static void parse_dense_spec(const char *spec, const char *what, dense_spec *d)
{
    struct stat sb;
    const char *colon = strrchr(spec, ':');
    size_t len = strlen(spec);
    d->spec = spec;
    d->dataset = NULL;
    if (stat(spec, &sb) != 0 && colon && colon != spec && colon[1]) {
        d->dataset = colon + 1;
        len = (size_t)(colon - spec);
    }
    copy_name(d->path, sizeof d->path, spec, len, what);
}

static tcmul_op parse_op(const char *s)
{
    if (strcmp(s, "spmm") == 0)
        return OP_SPMM;
    if (strcmp(s, "attention") == 0)
        return OP_ATTENTION;
    if (strcmp(s, "sddmm") == 0)
        return OP_SDDMM;
    tool_usage_error("--op: expected spmm, attention or sddmm, found '%s'", s);
}

/* --op spmm: A alone, B from -B or --cols. */
static void check_spmm_args(int extra, options *o)
{
    if (extra)
        tool_usage_error("more than one input file");
    if (!o->b.spec == !o->cols)
        tool_usage_error("give B as either -B FILE or --cols N");
    if (o->dim || o->scale || o->path)
        tool_usage_error("--dim, --scale and --path belong to --op attention and sddmm");
    if (o->b.spec)
        parse_dense_spec(o->b.spec, "-B", &o->b);
    if (o->dense && !o->bench)
        tool_usage_error("--dense times cuBLAS next to the kernel: give --bench too");
    if (!o->format)
        o->format = "csr";
}

/* --op attention: A Q K V or A --dim d; sddmm: A Q K or A --dim d. The
   mask is multiplied from bsb. */
static void check_attention_args(int extra, char **specs, options *o)
{
    static const char *const names[3] = { "Q", "K", "V" };
    const int need = o->op == OP_ATTENTION ? 3 : 2;
    const char *op = o->op == OP_ATTENTION ? "attention" : "sddmm";
    if (o->b.spec || o->cols || o->dense)
        tool_usage_error("--op %s: -B, --cols and --dense belong to --op spmm", op);
    if (o->variant && (o->path == TC_ATTN_UNFUSED || !tcmul_attention_warps(o->variant)))
        tool_usage_error("--variant %s: --op %s's variants are the fused kernel's warps per "
                         "thread block: w1, w2, w4, w8", o->variant, op);
    if (o->format && strcmp(o->format, "bsb") != 0)
        tool_usage_error("--op %s runs from the bsb format, not '%s'", op, o->format);
    o->format = "bsb";
    if (extra == 0 && !o->dim)
        tool_usage_error("--op %s: give %s as files after A, or --dim d for random ones", op,
                         need == 3 ? "Q, K and V" : "Q and K");
    if (extra && o->dim)
        tool_usage_error("--op %s: give either the operand files or --dim, not both", op);
    if (extra && extra != need)
        tool_usage_error("--op %s takes A and %d operand files (%s), found %d", op, need,
                         need == 3 ? "Q K V" : "Q K", extra);
    for (int i = 0; i < extra; i++)
        parse_dense_spec(specs[i], names[i], &o->qkv[i]);
}

static void parse_args(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        { "B", required_argument, NULL, 'B' },
        { "cols", required_argument, NULL, 'n' },
        { "seed", required_argument, NULL, OPT_SEED },
        { "output", required_argument, NULL, 'o' },
        { "device", required_argument, NULL, 'd' },
        { "format", required_argument, NULL, 'f' },
        { "variant", required_argument, NULL, OPT_VARIANT },
        { "gpu", required_argument, NULL, OPT_GPU },
        { "list-devices", no_argument, NULL, OPT_LIST },
        { "verify", no_argument, NULL, OPT_VERIFY },
        { "bench", no_argument, NULL, OPT_BENCH },
        { "warmup", required_argument, NULL, OPT_WARMUP },
        { "iters", required_argument, NULL, OPT_ITERS },
        { "bandwidth", required_argument, NULL, OPT_BANDWIDTH },
        { "dense", no_argument, NULL, OPT_DENSE },
        { "tsv", no_argument, NULL, OPT_TSV },
        { "json", no_argument, NULL, OPT_JSON },
        { "op", required_argument, NULL, OPT_OP },
        { "dim", required_argument, NULL, OPT_DIM },
        { "scale", required_argument, NULL, OPT_SCALE },
        { "path", required_argument, NULL, OPT_PATH },
        TOOL_COMMON_LONGOPTS
    };
    memset(o, 0, sizeof *o);
    o->format = NULL;
    o->seed = 1;
    o->warmup = 10;
    o->iters = 100;
    int c;
    while ((c = getopt_long(argc, argv, ":B:n:o:d:f:" TOOL_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
        switch (c) {
        case 'B': o->b.spec = optarg; break;
        case 'n': o->cols = (int32_t)tool_parse_long("--cols", optarg, 1, INT32_MAX); break;
        case OPT_SEED: o->seed = (uint64_t)tool_parse_long("--seed", optarg, 0, LONG_MAX); break;
        case 'o': o->output = optarg; break;
        case 'd':
            if (strcmp(optarg, "cpu") == 0)
                o->device = DEVICE_CPU;
            else if (strcmp(optarg, "gpu") == 0)
                o->device = DEVICE_GPU;
            else if (strcmp(optarg, "auto") == 0)
                o->device = DEVICE_AUTO;
            else
                tool_usage_error("--device: expected cpu, gpu or auto, found '%s'", optarg);
            break;
        case 'f': o->format = optarg; break;
        case OPT_VARIANT: o->variant = optarg; break;
        case OPT_GPU: o->gpu = (int)tool_parse_long("--gpu", optarg, 0, 1023); break;
        case OPT_LIST: o->list_devices = 1; break;
        case OPT_VERIFY: o->verify = 1; break;
        case OPT_BENCH: o->bench = 1; break;
        case OPT_WARMUP: o->warmup = (int)tool_parse_long("--warmup", optarg, 0, 1000000); break;
        case OPT_ITERS: o->iters = (int)tool_parse_long("--iters", optarg, 1, 1000000); break;
        case OPT_BANDWIDTH:
            o->bandwidth = tool_parse_double("--bandwidth", optarg, 1e-3, 1e6);
            break;
        case OPT_DENSE: o->dense = 1; break;
        case OPT_TSV: tool_set_out_style(&o->style, TOOL_OUT_TSV); break;
        case OPT_JSON: tool_set_out_style(&o->style, TOOL_OUT_JSON); break;
        case OPT_OP: o->op = parse_op(optarg); break;
        case OPT_DIM: o->dim = (int32_t)tool_parse_long("--dim", optarg, 1, INT32_MAX); break;
        case OPT_SCALE: o->scale = tool_parse_double("--scale", optarg, 1e-30, 1e30); break;
        case OPT_PATH:
            if (strcmp(optarg, "fused") == 0)
                o->path = TC_ATTN_FUSED;
            else if (strcmp(optarg, "unfused") == 0)
                o->path = TC_ATTN_UNFUSED;
            else
                tool_usage_error("--path: expected fused or unfused, found '%s'", optarg);
            break;
        default: tool_common_option(c, argv, usage);
        }
    }
    if (o->list_devices) {
        if (optind != argc)
            tool_usage_error("--list-devices takes no input file");
        return;
    }
    if (optind == argc)
        tool_usage_error("no input file");
    o->input = argv[optind++];
    if (o->op == OP_SPMM)
        check_spmm_args(argc - optind, o);
    else
        check_attention_args(argc - optind, argv + optind, o);
    if (!o->output && !o->verify && !o->bench)
        tool_usage_error("nothing to do: give -o FILE, --verify or --bench");
    if (o->output)
        parse_output(o->output, o);
    tool_parse_format(o->format);
    if (o->dense && o->device == DEVICE_CPU)
        tool_usage_error("--dense: cuBLAS runs on the GPU, not with --device cpu");
}

/* ------------------------------------------------------------------------ */
/* Devices                                                                   */
/* ------------------------------------------------------------------------ */

static noreturn void list_devices(void)
{
    tc_gpu_info *list;
    int n;
    tc_error err;
    if (tc_gpu_list(&list, &n, &err))
        tool_die(&err);
    for (int i = 0; i < n; i++)
        printf("%d\t%s\tsm_%d%d\t%d SMs\t%.1f GiB\tL2 %.1f MiB\n", list[i].index, list[i].name,
               list[i].cc_major, list[i].cc_minor, list[i].sm_count,
               (double)list[i].mem_total / (1 << 30), (double)list[i].l2_bytes / (1 << 20));
    free(list);
    exit(0);
}

/* Opens the GPU when the device asks for one; with auto, no GPU means the
   CPU. Returns NULL for the CPU. */
static tc_gpu *open_device(const options *o)
{
    if (o->device == DEVICE_CPU)
        return NULL;
    tc_gpu *g = NULL;
    tc_error err;
    tc_status st = tc_gpu_open(o->gpu, &g, &err);
    if (st == TC_ERR_NODEVICE && o->device == DEVICE_AUTO) {
        /* said unless -q: timings and results of the CPU are not the GPU's */
        tool_warn("running on the CPU: %s", err.msg);
        return NULL;
    }
    if (st)
        tool_die(&err);
    tool_info("running on GPU %d: %s", o->gpu, tc_gpu_get_info(g)->name);
    return g;
}

/* ------------------------------------------------------------------------ */
/* Operands                                                                  */
/* ------------------------------------------------------------------------ */

tc_status tcmul_read_dense(const dense_spec *spec, const char *default_dataset, int32_t *rows,
                           int32_t *cols, double **data, tc_error *err)
{
    if (spec->dataset || tc_h5_is_hdf5(spec->path))
        return tc_h5_read_dense(spec->path, spec->dataset ? spec->dataset : default_dataset, rows,
                                cols, data, err);
    return tc_mtx_read_dense(spec->path, rows, cols, data, err);
}

/* B in A's column order, in float32 (what the kernels take) and the same
   values widened to float64 (what the reference takes, so that it measures
   the kernel's arithmetic, not the rounding of B). Random B is drawn in the
   original column order too, so that a reordered A gives the same C. */
static tc_status load_b(const options *o, const tool_matrix *in, int32_t *ncols, float **bf,
                        double **bd, tc_error *err)
{
    const tc_csr *a = in->a;
    int32_t rows = a->cols, n = o->cols;
    double *b = NULL;
    tc_status st = TC_OK;
    if (o->b.spec) {
        st = tcmul_read_dense(&o->b, "/B", &rows, &n, &b, err);
        if (!st && rows != a->cols)
            st = tc_error_set(err, TC_ERR_INVALID, "%s: B has %d rows, but A (%s) has %d columns",
                              o->b.spec, rows, o->input, a->cols);
        if (!st && n < 1)
            st = tc_error_set(err, TC_ERR_INVALID, "%s: B has no columns", o->b.spec);
    } else if ((b = tc_malloc_array((int64_t)rows * n, sizeof *b, err))) {
        tc_random_fill(b, (int64_t)rows * n, o->seed, -1.0, 1.0);
    } else {
        st = TC_ERR_NOMEM;
    }
    const tc_perm *cp = in->tcf ? in->tcf->col_perm : NULL;
    float *f = st ? NULL : tc_malloc_array((int64_t)rows * n, sizeof *f, err);
    double *d = f ? tc_malloc_array((int64_t)rows * n, sizeof *d, err) : NULL;
    if (!st && !d)
        st = TC_ERR_NOMEM;
    for (int32_t j = 0; j < rows && !st; j++) {
        /* row j of the stored A's columns is original column new2old[j] */
        const double *src = b + (int64_t)(cp ? cp->new2old[j] : j) * n;
        for (int32_t k = 0; k < n; k++) {
            f[(int64_t)j * n + k] = (float)src[k];
            d[(int64_t)j * n + k] = (float)src[k];
        }
    }
    free(b);
    if (st) {
        free(f);
        free(d);
        return st;
    }
    *ncols = n;
    *bf = f;
    *bd = d;
    return TC_OK;
}

static int all_finite(const float *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

/* ------------------------------------------------------------------------ */
/* Running                                                                   */
/* ------------------------------------------------------------------------ */

/* A kernel timed for comparison on the same operands: its fastest
   variant's median. */
typedef struct reference {
    double ms;
    const char *variant;        /* NULL: not timed */
} reference;

/* What a run produced, for the report. */
typedef struct run {
    const tc_csr *a;
    int32_t n;
    const float *B;
    int finite_b;               /* no NaN or Inf in B */
    float *C;                   /* rows x n, in the stored (reordered) row order */
    char device[300];
    const char *implementation, *precision, *variant;
    int threads;                /* CPU runs */
    const tc_kernel *kernel;    /* GPU runs */
    tc_kplan *plan;
    tc_dist ms;                 /* --bench */
    int sets, held;             /* GPU --bench */
    double bandwidth;
    const char *bandwidth_source;
    int64_t a_bytes;
    reference baseline;         /* GPU --bench of a kernel other than the baseline */
    reference dense;            /* GPU --bench --dense */
    double part_ms[TC_KERNEL_MAX_PARTS];    /* GPU --bench: each part alone (median) */
} run;

typedef struct cpu_ctx {
    run *r;
    int threads;
} cpu_ctx;

static tc_status cpu_once(void *arg, tc_error *err)
{
    cpu_ctx *c = arg;
    const tc_csr *a = c->r->a;
    return tc_spmm_cpu_f32(a, c->r->B, c->r->n, c->r->n, c->r->C, c->r->n, c->threads, err);
}

/* The copied buffer of the CPU bandwidth figure: well past any CPU cache. */
#define CPU_BANDWIDTH_BYTES ((int64_t)256 << 20)

static tc_status run_cpu(const options *o, run *r, tc_error *err)
{
    const tc_csr *a = r->a;
    cpu_ctx c = { r, tc_default_threads() };
    snprintf(r->device, sizeof r->device, "cpu");
    r->implementation = "threaded CSR SpMM (fp32)";
    r->precision = "fp32";
    r->variant = "rows";
    r->threads = c.threads;
    /* what each run reads of A: int64 row pointers, int32 columns, float64
       values */
    r->a_bytes = ((int64_t)a->rows + 1) * 8 + a->nnz * (a->val ? 12 : 4);
    for (int64_t i = 0; i < (int64_t)a->rows * r->n; i++)
        r->C[i] = NAN;
    if (!o->bench)
        return cpu_once(&c, err);
    tc_status st = tc_time_cpu(cpu_once, &c, o->warmup, o->iters, &r->ms, err);
    r->bandwidth_source = o->bandwidth > 0 ? "given" : "measured (copy)";
    r->bandwidth = o->bandwidth;
    if (!st && o->bandwidth <= 0)
        st = tc_cpu_copy_bandwidth(CPU_BANDWIDTH_BYTES, c.threads, &r->bandwidth, err);
    return st;
}

tc_status tcmul_kernel_fmt(const tc_format *f, const tool_matrix *in, const tc_fmt **m,
                           tc_fmt **built, tc_error *err)
{
    *m = NULL;
    *built = NULL;
    if (tc_format_is_canonical(f))
        return TC_OK;
    for (int i = 0; in->tcf && i < in->tcf->nformats; i++)
        if (tc_fmt_format(in->tcf->formats[i]) == f) {
            *m = in->tcf->formats[i];
            return TC_OK;
        }
    tc_params none = { 0 };
    tc_status st = tc_fmt_build(f, in->a, &none, built, err);
    *m = *built;
    return st;
}

/* The median of the fastest variant of kernel k (which runs from the CSR),
   prepared and tuned on the same operands. */
static tc_status time_reference(const options *o, const tc_kernel *k, tc_gpu *g,
                                const tc_gpu_operands *ops, const run *r, reference *out,
                                tc_error *err)
{
    tc_kplan *p = NULL;
    tc_status st = tc_kernel_prepare(k, g, NULL, r->a, ops, &p, err);
    if (!st)
        st = tc_kernel_tune(p, ops, o->warmup, o->iters, r->finite_b, err);
    if (!st) {
        out->ms = p->variant_ms[p->variant];
        out->variant = k->variant_names[p->variant];
    }
    tc_kernel_free(p);
    return st ? tc_error_prefix(err, "%s", k == tc_kernel_baseline() ? "baseline" : "dense")
              : TC_OK;
}

/* The median of each part of the selected variant run alone, for kernels
   made of parts (their shares of the time). */
static tc_status time_parts(const options *o, const tc_gpu_operands *ops, run *r, tc_error *err)
{
    tc_status st = TC_OK;
    for (int i = 0; i < r->plan->nparts && !st; i++) {
        tc_gpu_timing t;
        st = tc_kernel_time_part(r->plan, ops, i, o->warmup, o->iters, &t, err);
        if (!st)
            r->part_ms[i] = t.ms.decile[5];
    }
    return st;
}

/* --variant NAME of kernel k, checked before anything is read: a usage
   error that lists the kernel's variants when it has no such variant. */
static void check_variant(const tc_kernel *k, const char *name)
{
    if (tc_kernel_variant_find(k, name) >= 0)
        return;
    char names[512] = "";
    for (int i = 0; i < k->nvariants; i++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                 k->variant_names[i]);
    tool_usage_error("--variant %s: the %s kernel's variants are %s", name, k->format, names);
}

/* Prepares the kernel, picks its variant (--variant, else the fastest),
   poisons C, runs once or times it, and brings C back from the last run. */
static tc_status run_gpu(const options *o, tc_gpu *g, const tc_fmt *m, run *r, tc_error *err)
{
    const tc_gpu_info *info = tc_gpu_get_info(g);
    const tc_kernel *k = r->kernel;
    snprintf(r->device, sizeof r->device, "%s", info->name);
    r->implementation = k->description;
    r->precision = k->precision;
    tc_gpu_operands ops;
    tc_status st = tc_gpu_operands_alloc(g, r->B, r->a->cols, r->a->rows, r->n, o->bench, &ops,
                                         err);
    if (st)
        return st;
    st = tc_kernel_prepare(k, g, m, r->a, &ops, &r->plan, err);
    if (!st && o->variant)
        st = tc_kernel_select(r->plan, tc_kernel_variant_find(k, o->variant), err);
    else if (!st && k->nvariants > 1)
        st = tc_kernel_tune(r->plan, &ops, o->warmup, o->iters, r->finite_b, err);
    if (!st)
        st = tc_gpu_operands_poison(g, &ops, err);
    int set = 0;
    if (!st && o->bench) {
        tc_gpu_timing t;
        st = tc_kernel_time(r->plan, &ops, o->warmup, o->iters, &t, err);
        r->ms = t.ms;
        r->held = t.held;
        set = t.last_set;
    } else if (!st) {
        st = tc_kernel_run(r->plan, &ops, 0, err);
    }
    if (!st)
        st = tc_gpu_download(g, r->C, ops.C[set],
                             (int64_t)r->a->rows * r->n * (int64_t)sizeof *r->C, err);
    if (!st) {
        r->variant = k->variant_names[r->plan->variant];
        r->a_bytes = r->plan->a_bytes;
        r->sets = ops.count;
    }
    if (!st && o->bench) {
        r->bandwidth = o->bandwidth;
        r->bandwidth_source = o->bandwidth > 0 ? "given" : "measured (device-to-device copy)";
        if (o->bandwidth <= 0)
            st = tc_gpu_copy_bandwidth(g, &r->bandwidth, err);
    }
    /* after C came back: a part alone leaves C incomplete */
    if (!st && o->bench)
        st = time_parts(o, &ops, r, err);
    if (!st && o->bench && k != tc_kernel_baseline())
        st = time_reference(o, tc_kernel_baseline(), g, &ops, r, &r->baseline, err);
    if (!st && o->dense)
        st = time_reference(o, tc_kernel_dense(), g, &ops, r, &r->dense, err);
    tc_gpu_operands_free(g, &ops);
    return st;
}

/* ------------------------------------------------------------------------ */
/* Report                                                                    */
/* ------------------------------------------------------------------------ */

static tc_status report_input(tc_report *rep, const options *o, const tool_matrix *in,
                              const run *r)
{
    char b[1024];
    if (o->b.spec)
        snprintf(b, sizeof b, "%s", o->b.spec);
    else
        snprintf(b, sizeof b, "random, seed %llu", (unsigned long long)o->seed);
    tc_status st;
    (void)((st = tc_report_str(rep, "input", "matrix", o->input, NULL)) ||
           (st = tc_report_int(rep, "input", "rows", r->a->rows, NULL)) ||
           (st = tc_report_int(rep, "input", "cols", r->a->cols, NULL)) ||
           (st = tc_report_int(rep, "input", "nnz", r->a->nnz, NULL)) ||
           (st = tc_report_int(rep, "input", "n", r->n, "columns of B and C")) ||
           (st = tc_report_str(rep, "input", "B", b, NULL)) ||
           (st = tc_report_str(rep, "input", "reordered",
                               in->tcf && (in->tcf->row_perm || in->tcf->col_perm) ? "yes" : "no",
                               "C is given in the original row order")));
    return st;
}

static tc_status report_run(tc_report *rep, const options *o, const run *r)
{
    tc_status st;
    (void)((st = tc_report_str(rep, "run", "device", r->device, NULL)) ||
           (st = tc_report_str(rep, "run", "format", o->format, NULL)) ||
           (st = tc_report_str(rep, "run", "kernel", r->implementation, NULL)) ||
           (st = tc_report_str(rep, "run", "precision", r->precision, NULL)) ||
           (st = tc_report_str(rep, "run", "variant", r->variant, NULL)));
    if (!st && r->threads)
        st = tc_report_int(rep, "run", "threads", r->threads, NULL);
    return st;
}

int64_t tcmul_original(const tool_matrix *in, int64_t i, int cols)
{
    const tc_perm *p = !in->tcf ? NULL : cols ? in->tcf->col_perm : in->tcf->row_perm;
    return p && i >= 0 ? p->new2old[i] : i;
}

tc_status tcmul_report_verify(tc_report *rep, const tc_compare *c, double tol, int pass,
                              int64_t row, int64_t col)
{
    tc_status st;
    (void)((st = tc_report_num(rep, "verify", "tolerance", tol,
                               "relative Frobenius, from the precision")) ||
           (st = tc_report_num(rep, "verify", "rel_fro", c->rel_fro,
                               "||out - ref||_F / ||ref||_F, float64 reference")) ||
           (st = tc_report_num(rep, "verify", "max_abs", c->max_abs, "largest |out - ref|")) ||
           (st = tc_report_int(rep, "verify", "max_row", row, "where it is (0-based)")) ||
           (st = tc_report_int(rep, "verify", "max_col", col, NULL)) ||
           (st = tc_report_int(rep, "verify", "nonfinite", c->nonfinite,
                               "NaN/Inf where the reference differs")) ||
           (st = tc_report_str(rep, "verify", "result", pass ? "pass" : "FAIL", NULL)));
    return st;
}

tc_status tcmul_verify_failed(const tc_compare *c, const char *precision, tc_error *err)
{
    return tc_error_set(err, TC_ERR_VERIFY,
                        "verification failed: relative Frobenius error %.3g (tolerance %.3g, "
                        "%s), %lld non-finite where the reference differs",
                        c->rel_fro, tc_tolerance(precision), precision, (long long)c->nonfinite);
}

/* A reference's median, variant, and the kernel's speedup over it. */
static tc_status report_reference(tc_report *rep, const char *section, const reference *ref,
                                  double med, const char *what)
{
    tc_status st;
    (void)((st = tc_report_num(rep, section, "median_ms", ref->ms, what)) ||
           (st = tc_report_str(rep, section, "variant", ref->variant, NULL)) ||
           (st = tc_report_num(rep, section, "speedup", ref->ms / med, NULL)));
    return st;
}

static tc_status report_bench(tc_report *rep, const options *o, const run *r)
{
    const double med = r->ms.decile[5];
    const double flops = 2.0 * (double)r->a->nnz * r->n;
    const double bytes = (double)r->a_bytes + 4.0 * r->n * ((double)r->a->rows + r->a->cols);
    const double floor_ms = bytes / (r->bandwidth * 1e6);
    tc_status st;
    (void)((st = tc_report_int(rep, "bench", "warmup", o->warmup, "untimed runs")) ||
           (st = tc_report_int(rep, "bench", "iters", o->iters, "timed runs")) ||
           (st = tc_report_num(rep, "bench", "median_ms", med, NULL)) ||
           (st = tc_report_num(rep, "bench", "min_ms", r->ms.min, NULL)) ||
           (st = tc_report_num(rep, "bench", "max_ms", r->ms.max, NULL)) ||
           (st = tc_report_num(rep, "bench", "gflops", flops / (med * 1e6), "2*nnz*n / median")) ||
           (st = tc_report_num(rep, "bench", "floor_bytes", bytes, "A, B and C each moved once")) ||
           (st = tc_report_num(rep, "bench", "bandwidth_gbs", r->bandwidth, r->bandwidth_source)) ||
           (st = tc_report_num(rep, "bench", "floor_ms", floor_ms, "floor_bytes / bandwidth")) ||
           (st = tc_report_num(rep, "bench", "floor_fraction", floor_ms / med,
                               "floor_ms / median_ms")));
    if (!st && r->kernel)
        (void)((st = tc_report_int(rep, "bench", "operand_sets", r->sets,
                                    "B/C sets rotated so that they are not timed from L2")) ||
               (st = tc_report_str(rep, "bench", "launch_gaps_hidden", r->held ? "yes" : "no",
                                   "runs queued behind a holding kernel")));
    if (!st && r->baseline.variant)
        st = report_reference(rep, "baseline", &r->baseline, med,
                              "cuSPARSE, fastest CSR algorithm, same operands");
    if (!st && r->dense.variant)
        st = report_reference(rep, "dense", &r->dense, med,
                              "cuBLAS GEMM on A stored densely, same operands");
    return st;
}

/* Each part's nonzeros and time, and their shares (the time share is of
   the parts' medians summed, each part timed alone). */
static tc_status report_parts(tc_report *rep, const run *r)
{
    const tc_kplan *p = r->plan;
    double total = 0;
    for (int i = 0; i < p->nparts; i++)
        total += r->part_ms[i];
    tc_status st = TC_OK;
    for (int i = 0; i < p->nparts && !st; i++) {
        char nnz[64], nnz_share[64], ms[64], time_share[64];
        snprintf(nnz, sizeof nnz, "%s_nnz", p->part_names[i]);
        snprintf(nnz_share, sizeof nnz_share, "%s_nnz_share", p->part_names[i]);
        snprintf(ms, sizeof ms, "%s_ms", p->part_names[i]);
        snprintf(time_share, sizeof time_share, "%s_time_share", p->part_names[i]);
        (void)((st = tc_report_int(rep, "parts", nnz, p->part_nnz[i], NULL)) ||
               (st = tc_report_num(rep, "parts", nnz_share,
                                   r->a->nnz ? (double)p->part_nnz[i] / r->a->nnz : 0, NULL)) ||
               (st = tc_report_num(rep, "parts", ms, r->part_ms[i], "median, the part alone")) ||
               (st = tc_report_num(rep, "parts", time_share,
                                   total > 0 ? r->part_ms[i] / total : 0, NULL)));
    }
    return st;
}

/* The median of each variant that tc_kernel_tune timed. */
static tc_status report_variants(tc_report *rep, const run *r)
{
    tc_status st = TC_OK;
    for (int v = 0; v < r->kernel->nvariants && !st; v++) {
        char key[64];
        snprintf(key, sizeof key, "%s_ms", r->kernel->variant_names[v]);
        const double ms = r->plan->variant_ms[v];
        st = ms == TC_VARIANT_UNSUPPORTED ? tc_report_str(rep, "variants", key, "unsupported", NULL)
             : ms == TC_VARIANT_SKIPPED
                 ? tc_report_str(rep, "variants", key, "skipped",
                                 "B holds NaN/Inf, which this variant spreads to other rows")
                 : tc_report_num(rep, "variants", key, ms, "median");
    }
    if (!st)
        st = tc_report_str(rep, "variants", "fastest", r->variant, NULL);
    return st;
}

/* ------------------------------------------------------------------------ */
/* Output                                                                    */
/* ------------------------------------------------------------------------ */

/* x in the original row order (/matrix row i is original row new2old[i]),
   widened for the writers. */
tc_status tcmul_write_rows(const options *o, const tool_matrix *in, const float *x, int32_t rows,
                           int32_t n, tc_error *err)
{
    const tc_perm *rp = in->tcf ? in->tcf->row_perm : NULL;
    double *c = tc_malloc_array((int64_t)rows * n, sizeof *c, err);
    if (!c)
        return TC_ERR_NOMEM;
    for (int32_t i = 0; i < rows; i++) {
        double *dst = c + (int64_t)(rp ? rp->new2old[i] : i) * n;
        for (int32_t k = 0; k < n; k++)
            dst[k] = x[(int64_t)i * n + k];
    }
    tc_status st = o->out_dataset
                       ? tc_h5_write_dense(o->out_path, o->out_dataset, rows, n, c, 1, err)
                       : tc_mtx_write_dense(o->out_path, rows, n, c, err);
    free(c);
    if (!st)
        tool_info("wrote %s: %d x %d", o->output, rows, n);
    return st;
}

/* Refuses an output that would overwrite an input: A, B, Q, K or V. */
static void check_clobber(const options *o)
{
    const char *inputs[5] = { o->input, o->b.spec ? o->b.path : NULL };
    for (int i = 0; i < 3; i++)
        inputs[2 + i] = o->qkv[i].spec ? o->qkv[i].path : NULL;
    const tool_output out = { "--output", o->output ? o->out_path : NULL, 0 };
    tool_check_outputs(&out, 1, inputs, 5);
}

/* ------------------------------------------------------------------------ */

/* C against the float64 reference computed from the same (rounded) B. */
static tc_status verify(const options *o, const run *r, const double *bd, tc_compare *c,
                        tc_error *err)
{
    const int64_t len = (int64_t)r->a->rows * r->n;
    double *ref = tc_malloc_array(len, sizeof *ref, err);
    if (!ref)
        return TC_ERR_NOMEM;
    /* 0 threads: the library's default, $TC_THREADS, which --threads sets */
    tc_status st = tc_spmm_ref_f64(r->a, bd, r->n, r->n, ref, r->n, 0, err);
    if (!st)
        tc_compare_f32(r->C, ref, r->a->rows, r->n, r->n, c);
    free(ref);
    return st;
}

static tc_status print_report(const options *o, const tool_matrix *in, const run *r,
                              const tc_compare *c, int pass)
{
    tc_report *rep = tc_report_new();
    if (!rep)
        return TC_ERR_NOMEM;
    tc_status st = report_input(rep, o, in, r);
    if (!st)
        st = report_run(rep, o, r);
    /* where the largest error is, as the user numbers rows */
    const int64_t at = c->max_at;
    if (!st && o->verify)
        st = tcmul_report_verify(rep, c, tc_tolerance(r->precision), pass,
                                 tcmul_original(in, at < 0 ? -1 : at / r->n, 0),
                                 at < 0 ? -1 : at % r->n);
    if (!st && o->bench)
        st = report_bench(rep, o, r);
    if (!st && o->bench && r->kernel && r->plan->nparts)
        st = report_parts(rep, r);
    if (!st && r->kernel && !o->variant && r->kernel->nvariants > 1)
        st = report_variants(rep, r);
    if (!st)
        tool_print_reports(stdout, &o->input, &rep, 1, o->style);
    tc_report_free(rep);
    return st;
}

int main(int argc, char **argv)
{
    tool_init("tcmul", argc, argv);
    options o;
    parse_args(argc, argv, &o);
    if (o.list_devices)
        list_devices();
    check_clobber(&o);

    tc_gpu *g = open_device(&o);
    if (o.op != OP_SPMM)
        return tcmul_attention(&o, g);
    const tc_format *f = tc_format_find(o.format);
    run r;
    memset(&r, 0, sizeof r);
    if (g) {
        if (!(r.kernel = tc_kernel_find(o.format)))
            tool_usage_error("--format: no GPU kernel for format '%s'", o.format);
        if (o.variant)
            check_variant(r.kernel, o.variant);
    } else if (!tc_format_is_canonical(f) || o.variant) {
        tool_usage_error("the CPU runs the csr format only, with no variants");
    }
    if (!g && o.dense)
        tool_usage_error("--dense: cuBLAS runs on the GPU, and there is none");

    tc_error err;
    tool_matrix in;
    if (tool_load_matrix(o.input, g && !tc_format_is_canonical(f), &in, &err))
        tool_die(&err);
    r.a = in.a;
    float *bf = NULL;
    double *bd = NULL;
    const tc_fmt *m = NULL;
    tc_fmt *built = NULL;
    tc_compare cmp;
    memset(&cmp, 0, sizeof cmp);
    int pass = 1;
    tc_status st = load_b(&o, &in, &r.n, &bf, &bd, &err);
    r.B = bf;
    r.finite_b = !st && all_finite(bf, (int64_t)r.a->cols * r.n);
    if (!st && !(r.C = tc_malloc_array((int64_t)r.a->rows * r.n, sizeof *r.C, &err)))
        st = TC_ERR_NOMEM;
    if (!st && g)
        st = tcmul_kernel_fmt(f, &in, &m, &built, &err);
    if (!st)
        st = g ? run_gpu(&o, g, m, &r, &err) : run_cpu(&o, &r, &err);
    if (!st && o.verify) {
        st = verify(&o, &r, bd, &cmp, &err);
        pass = !st && cmp.nonfinite == 0 && cmp.rel_fro <= tc_tolerance(r.precision);
    }
    if (!st && o.output && pass)
        st = tcmul_write_rows(&o, &in, r.C, r.a->rows, r.n, &err);
    if (!st && (o.verify || o.bench))
        st = print_report(&o, &in, &r, &cmp, pass);
    if (!st && !pass)
        st = tcmul_verify_failed(&cmp, r.precision, &err);
    tc_kernel_free(r.plan);
    tc_gpu_close(g);
    tc_fmt_free(built);
    tool_matrix_free(&in);
    free(bf);
    free(bd);
    free(r.C);
    if (st)
        tool_die(&err);
    return 0;
}
