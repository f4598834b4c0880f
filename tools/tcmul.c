/* tcmul: C = A*B on the CPU or the GPU, with checks and timing. */
#include "config.h"
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "tcmul.h"

static void usage(void)
{
    /* longer than stdio's buffer: a write that fails is caught here, where
       errno still says why */
    if (printf(
"Usage: %s [OPTIONS] A (-B FILE[:DATASET] | --cols N) [-o C]\n"
"       %s --op attention [OPTIONS] A (Q K V | --dim D) [-o O]\n"
"       %s --op sddmm [OPTIONS] A (Q K | --dim D) [-o S.mtx|S.tcf.h5]\n"
"Multiply a sparse matrix A by a dense matrix B: C = A*B, on the CPU or the\n"
"GPU, checked against a float64 reference (--verify) and timed (--bench);\n"
"or compute sparse attention O = softmax(scale Q K^T masked by A) V, or its\n"
"SDDMM S = scale Q K^T at A's nonzeros, from the bsb format.\n"
"\n"
"A is a matrix of any kind tcconv reads (.mtx, .mtx.gz, .tcf.h5, edge lists,\n"
"...). When A was reordered (its .tcf.h5 holds /permutation), B is taken and\n"
"C is given in the original order. When A has original ids (an edge list's\n"
"relabelled ids), an HDF5 C gets them in DATASET_row_labels beside it.\n"
"\n"
"Operands:\n"
TOOL_INPUT_HELP
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
"  -d, --device DEV         cpu, gpu, or auto (default: the plan's choice; the\n"
"                           CPU without a GPU or for a short one-off product)\n"
"  -f, --format NAME        the tensor-core format whose kernel runs, or auto\n"
"                           (default): the plan's choice, cuSPARSE among the\n"
"                           candidates (csr: cuSPARSE on the GPU, threaded CSR\n"
"                           on the CPU)\n"
"      --variant NAME       run this variant of the kernel instead of the\n"
"                           plan's (the fastest where it times, else the\n"
"                           first that takes A; tcmul(1) describes each\n"
"                           format's; an unknown NAME lists them; --op: w1,\n"
"                           w2, w4, w8 warps per thread block)\n"
"  -t, --threads N          CPU threads (default: $TC_THREADS, else all CPUs)\n"
"      --gpu I              which GPU (default 0)\n"
"      --list-devices       list the CUDA devices and exit (status 3: none)\n"
"\n"
"Planning (--op spmm; tcmul(1), PLANS):\n"
"      --effort LEVEL       estimate (the model alone, nothing timed), measure\n"
"                           (times the candidates in the given order),\n"
"                           patient (also the reorderings) or exhaustive\n"
"                           (every kernel, variant and reordering); default:\n"
"                           estimate\n"
"                           for one product, measure with --bench, --plan or\n"
"                           --calls above 1\n"
"      --order ORDER        given, auto (default) or a reordering method\n"
"      --accuracy P         fp32, tf32 or fp16: only paths at least that exact\n"
"      --calls N            products the plan is for (default 1, --bench: many)\n"
"      --plan FILE          reuse the plan in FILE when it matches, else plan\n"
"                           and write it there\n"
"      --no-plan-cache      neither read nor write the plan cache\n"
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
"  %s graph.mtx.gz --cols 64 --effort patient --plan graph.plan --verify\n"
"  %s graph.mtx.gz -B features.h5:/X -o out.h5:/Y\n"
"  %s --device cpu graph.mtx --cols 32 --verify --tsv\n"
"  %s --op attention graph.tcf.h5 --dim 64 --verify --bench\n"
"  %s --op attention graph.mtx x.h5:/Q x.h5:/K x.h5:/V -o out.h5:/O\n",
        tool_name, tool_name, tool_name, tool_name, tool_name, tool_name, tool_name, tool_name,
        tool_name) < 0 || fflush(stdout) != 0)
        tool_stdout_failed(errno);
}

enum {
    OPT_SEED = 256, OPT_VARIANT, OPT_GPU, OPT_LIST, OPT_VERIFY, OPT_BENCH, OPT_WARMUP, OPT_ITERS,
    OPT_BANDWIDTH, OPT_DENSE, OPT_TSV, OPT_JSON, OPT_OP, OPT_DIM, OPT_SCALE, OPT_PATH,
    OPT_EFFORT, OPT_PLAN, OPT_NO_PLAN_CACHE, OPT_ACCURACY, OPT_CALLS, OPT_ORDER
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
    if (o->device == DEVICE_CPU &&
        ((o->format && !tc_format_is_canonical(tool_parse_format(o->format))) || o->variant))
        tool_usage_error("the CPU runs the csr format only, with no variants");
    if (o->variant && !o->format)
        tool_usage_error("--variant %s: name the kernel's format with -f too", o->variant);
    const tc_kernel *k = o->format ? tc_kernel_find(o->format) : NULL;
    if (k && o->variant)
        check_variant(k, o->variant);
    if (o->plan_file && o->no_plan_cache)
        tool_usage_error("--plan FILE and --no-plan-cache: give one (--plan uses no cache)");
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
    if (o->variant && ((o->path && strcmp(o->path, "unfused") == 0) ||
                       !tcmul_attention_warps(o->variant)))
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

static tc_effort parse_effort(const char *s)
{
    if (strcmp(s, "estimate") == 0)
        return TC_EFFORT_ESTIMATE;
    if (strcmp(s, "measure") == 0)
        return TC_EFFORT_MEASURE;
    if (strcmp(s, "patient") == 0)
        return TC_EFFORT_PATIENT;
    if (strcmp(s, "exhaustive") == 0)
        return TC_EFFORT_EXHAUSTIVE;
    tool_usage_error("--effort: expected estimate, measure, patient or exhaustive, found '%s'", s);
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
        { "effort", required_argument, NULL, OPT_EFFORT },
        { "plan", required_argument, NULL, OPT_PLAN },
        { "no-plan-cache", no_argument, NULL, OPT_NO_PLAN_CACHE },
        { "accuracy", required_argument, NULL, OPT_ACCURACY },
        { "calls", required_argument, NULL, OPT_CALLS },
        { "order", required_argument, NULL, OPT_ORDER },
        TOOL_COMMON_LONGOPTS
    };
    memset(o, 0, sizeof *o);
    o->format = NULL;
    o->effort = TC_EFFORT_DEFAULT;
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
            if (strcmp(optarg, "fused") == 0 || strcmp(optarg, "unfused") == 0)
                o->path = optarg;
            else
                tool_usage_error("--path: expected fused or unfused, found '%s'", optarg);
            break;
        case OPT_EFFORT: o->effort = parse_effort(optarg); break;
        case OPT_PLAN: o->plan_file = optarg; break;
        case OPT_NO_PLAN_CACHE: o->no_plan_cache = 1; break;
        case OPT_ACCURACY: o->accuracy = tool_parse_accuracy(optarg); break;
        case OPT_CALLS: o->calls = tool_parse_long("--calls", optarg, 1, LONG_MAX); break;
        case OPT_ORDER:
            if (strcmp(optarg, "given") != 0 && strcmp(optarg, "auto") != 0 &&
                !tc_reorder_find(optarg))
                tool_usage_error("--order: expected given, auto or a reordering method, found "
                                 "'%s'", optarg);
            o->order = optarg;
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
    if (o->format && strcmp(o->format, "auto") == 0)
        o->format = NULL;
    if (o->op != OP_SPMM && (o->effort != TC_EFFORT_DEFAULT || o->plan_file ||
                             o->no_plan_cache || o->accuracy || o->calls || o->order))
        tool_usage_error("--effort, --plan, --no-plan-cache, --accuracy, --calls and --order "
                         "belong to --op spmm");
    if (o->op == OP_SPMM)
        check_spmm_args(argc - optind, o);
    else
        check_attention_args(argc - optind, argv + optind, o);
    if (!o->output && !o->verify && !o->bench)
        tool_usage_error("nothing to do: give -o FILE, --verify or --bench");
    if (o->output)
        parse_output(o->output, o);
    if (o->format)
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

int main(int argc, char **argv)
{
    tool_init("tcmul", argc, argv);
    options o;
    parse_args(argc, argv, &o);
    if (o.list_devices)
        list_devices();
    check_clobber(&o);

    if (o.op == OP_SPMM)
        return tcmul_spmm(&o);
    return tcmul_attention(&o);
}
