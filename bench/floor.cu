/*
 * floor.cu: what the shape of a small SpMM costs before any multiply, timed
 * the way tcmul times kernels (bench/NOTES.md, rstile step 20). For a CSR
 * matrix of R rows in its stored order (the wjaccard order of a .tcf.h5)
 * and n = 32 columns of B and C in float32:
 *   - empty:  a kernel of one thread block that does nothing;
 *   - copy:   C = B row by row, a warp per 16 rows, 16 bytes per lane, its
 *             rows read through an index array first (a segment's load);
 *   - chain:  copy with its row indices read through 1 or 2 more dependent
 *             loads of an index array (L2), or 1 or 2 more dependent loads
 *             of B rows (a TC block's rows waiting on the one before);
 *   - gather: the rows of B that the matrix's 16 x 8 TC blocks name (each
 *             window's distinct columns, in groups of 8, as rstile compacts
 *             them) summed into the window's 16 rows of C: a warp per
 *             window with all its blocks' loads in flight, the same one
 *             block after another, and two warps per window (as tc-fly)
 *             adding their halves in shared memory.
 * Every run takes the next of several copies of B and C (together past four
 * times the L2), as tc_gpu_time does; runs are queued behind a kernel that holds
 * the GPU until 64 are queued, with a CUDA event between consecutive runs;
 * the median, 10th and 90th percentile of 256 runs after 10 untimed ones.
 *
 *   floor INDPTR INDICES ROWS    (h5dump -b LE of /matrix/indptr, int64,
 *                                 and /matrix/indices, int32; bench/floor.sh)
 *
 * Prints one TSV row per kernel: name, thread blocks, threads per block,
 * median_us, p10_us, p90_us.
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CK(x)                                                                    \
    do {                                                                         \
        cudaError_t e_ = (x);                                                    \
        if (e_ != cudaSuccess) {                                                 \
            fprintf(stderr, "floor: %s: %s\n", #x, cudaGetErrorString(e_));      \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

static const int N = 32, BATCH = 64, BATCHES = 4, WARMUP = 10;

__global__ void hold(volatile int *flag)
{
    const long long t0 = clock64();
    while (!flag[0] && clock64() - t0 < 4000000000LL) {
    }
}

__global__ void empty_kernel() {}

/* Warp w: rows 16 w .. 16 w + 15, lane l their row 4 i + l / 8, columns
   4 (l % 8) .. + 3; the source row read through idx, then L2X more times
   through idx2, then BX more rows of B, each waiting on the one before. */
template <int L2X, int BX>
__global__ void chain_copy(const int *idx, const int *idx2, const float *B, float *C, int rows)
{
    const int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    const int row = w * 16 + lane / 8, q = lane % 8;
    int src[4];
#pragma unroll
    for (int i = 0; i < 4; i++)
        src[i] = row + 4 * i < rows ? idx[row + 4 * i] : -1;
#pragma unroll
    for (int x = 0; x < L2X; x++)
#pragma unroll
        for (int i = 0; i < 4; i++)
            src[i] = src[i] >= 0 ? idx2[src[i]] : -1;
    float4 v[4];
#pragma unroll
    for (int i = 0; i < 4; i++)
        v[i] = src[i] >= 0 ? *(const float4 *)(B + (size_t)src[i] * N + 4 * q)
                           : make_float4(0, 0, 0, 0);
#pragma unroll
    for (int x = 0; x < BX; x++) {
        const int dep = __float_as_int(v[0].x) & 0;    /* 0, once v[0] is in */
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const int r = src[i] >= 0 ? (src[i] + 7919 * (x + 1) + dep) % rows : -1;
            const float4 u = r >= 0 ? *(const float4 *)(B + (size_t)r * N + 4 * q)
                                    : make_float4(0, 0, 0, 0);
            v[i].x += u.x, v[i].y += u.y, v[i].z += u.z, v[i].w += u.w;
        }
    }
#pragma unroll
    for (int i = 0; i < 4; i++)
        if (row + 4 * i < rows)
            *(float4 *)(C + (size_t)(row + 4 * i) * N + 4 * q) = v[i];
}

/* Window win's blocks woff[win] .. woff[win + 1], 8 column ids each (-1:
   padding). MODE 0: a warp per window, all its blocks' rows in flight
   (MAX_BLOCKS at a time);
   1: the same, one block after another; 2: two warps per window, a half
   of its blocks each, added in shared memory. Lane l reads rows l / 8 and
   l / 8 + 4 of each block at columns 4 (l % 8) .. + 3. */
#define MAX_BLOCKS 16
template <int MODE>
__global__ void gather(const int *woff, const int *cols, const float *B, float *C, int rows,
                       int nwin)
{
    __shared__ float4 half[32][2];
    const int lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
    const int win = MODE == 2 ? blockIdx.x : blockIdx.x * (blockDim.x >> 5) + wib;
    if (win >= nwin)
        return;
    int b0 = woff[win], b1 = woff[win + 1];
    if (MODE == 2) {
        const int mid = (b0 + b1 + 1) / 2;
        if (wib == 0)
            b1 = mid;
        else
            b0 = mid;
    }
    const int r = lane >> 3, q = lane & 7;
    float4 acc[2] = { make_float4(0, 0, 0, 0), make_float4(0, 0, 0, 0) };
    if (MODE == 1) {
        int dep = 0;
        for (int b = b0; b < b1; b++) {
            const int c0 = cols[b * 8 + r], c1 = cols[b * 8 + r + 4];
            const float4 x = c0 >= 0 ? *(const float4 *)(B + (size_t)(c0 + dep) * N + 4 * q)
                                     : make_float4(0, 0, 0, 0);
            const float4 y = c1 >= 0 ? *(const float4 *)(B + (size_t)(c1 + dep) * N + 4 * q)
                                     : make_float4(0, 0, 0, 0);
            acc[0].x += x.x, acc[0].y += x.y, acc[0].z += x.z, acc[0].w += x.w;
            acc[1].x += y.x, acc[1].y += y.y, acc[1].z += y.z, acc[1].w += y.w;
            dep = __float_as_int(x.x) & 0;
        }
    } else {
        for (int k0 = b0; k0 < b1; k0 += MAX_BLOCKS) {
            int c[2 * MAX_BLOCKS];
#pragma unroll
            for (int k = 0; k < MAX_BLOCKS; k++) {
                c[2 * k] = k0 + k < b1 ? cols[(k0 + k) * 8 + r] : -1;
                c[2 * k + 1] = k0 + k < b1 ? cols[(k0 + k) * 8 + r + 4] : -1;
            }
            float4 v[2 * MAX_BLOCKS];
#pragma unroll
            for (int k = 0; k < 2 * MAX_BLOCKS; k++)
                v[k] = c[k] >= 0 ? *(const float4 *)(B + (size_t)c[k] * N + 4 * q)
                                 : make_float4(0, 0, 0, 0);
#pragma unroll
            for (int k = 0; k < 2 * MAX_BLOCKS; k++) {
                float4 &a = acc[k & 1];
                a.x += v[k].x, a.y += v[k].y, a.z += v[k].z, a.w += v[k].w;
            }
        }
    }
    if (MODE == 2) {
        if (wib == 1)
            half[lane][0] = acc[0], half[lane][1] = acc[1];
        __syncthreads();
        if (wib == 1)
            return;
        acc[0].x += half[lane][0].x, acc[1].x += half[lane][1].x;
    }
#pragma unroll
    for (int j = 0; j < 4; j++) {
        const int row = win * 16 + r + 4 * j;
        if (row < rows)
            *(float4 *)(C + (size_t)row * N + 4 * q) = acc[j & 1];
    }
}

template <typename T> static std::vector<T> slurp(const char *path, size_t count)
{
    std::vector<T> v(count);
    FILE *fp = fopen(path, "rb");
    if (!fp || fread(v.data(), sizeof(T), count, fp) != count) {
        fprintf(stderr, "floor: %s: cannot read %zu values of %zu bytes\n", path, count,
                sizeof(T));
        exit(1);
    }
    fclose(fp);
    return v;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: floor INDPTR INDICES ROWS\n");
        return 2;
    }
    const int rows = atoi(argv[3]);
    const std::vector<long long> ip = slurp<long long>(argv[1], (size_t)rows + 1);
    const std::vector<int> ix = slurp<int>(argv[2], (size_t)ip[rows]);
    /* rstile's compaction: each window's distinct columns, 8 per block */
    std::vector<int> woff(1, 0), cols;
    for (int w = 0; w < rows; w += 16) {
        std::vector<int> s(ix.begin() + ip[w], ix.begin() + ip[std::min(w + 16, rows)]);
        std::sort(s.begin(), s.end());
        s.erase(std::unique(s.begin(), s.end()), s.end());
        while (s.size() % 8)
            s.push_back(-1);
        cols.insert(cols.end(), s.begin(), s.end());
        woff.push_back((int)(cols.size() / 8));
    }
    const int nwin = (int)woff.size() - 1, warps = nwin;
    std::vector<int> ident(rows);
    for (int i = 0; i < rows; i++)
        ident[i] = i;
    const size_t bytes = (size_t)rows * N * sizeof(float);
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    const int SETS = (int)std::max<size_t>(2, (4 * (size_t)prop.l2CacheSize + 2 * bytes - 1) /
                                                  (2 * bytes));
    float *B, *C;
    int *idx, *d_woff, *d_cols, *flag_h, *flag_d;
    CK(cudaMalloc(&B, bytes * SETS));
    CK(cudaMalloc(&C, bytes * SETS));
    CK(cudaMemset(B, 0, bytes * SETS));
    CK(cudaMalloc(&idx, rows * sizeof(int)));
    CK(cudaMemcpy(idx, ident.data(), rows * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMalloc(&d_woff, woff.size() * sizeof(int)));
    CK(cudaMemcpy(d_woff, woff.data(), woff.size() * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMalloc(&d_cols, cols.size() * sizeof(int) + 4));
    CK(cudaMemcpy(d_cols, cols.data(), cols.size() * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaHostAlloc(&flag_h, sizeof(int), cudaHostAllocMapped));
    CK(cudaHostGetDevicePointer(&flag_d, flag_h, 0));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaEvent_t ev[BATCH + 1];
    for (int i = 0; i <= BATCH; i++)
        CK(cudaEventCreate(&ev[i]));
    struct kernel {
        const char *name;
        int grid, block, kind;
    };
    const kernel ks[] = {
        { "empty", 1, 32, 0 },
        { "copy", warps, 32, 1 },
        { "copy, 1 more index load", warps, 32, 2 },
        { "copy, 2 more index loads", warps, 32, 3 },
        { "copy, 1 more dependent row of B", warps, 32, 4 },
        { "copy, 2 more dependent rows of B", warps, 32, 5 },
        { "gather, a warp per window, all in flight", nwin, 32, 6 },
        { "gather, a warp per window, one block after another", nwin, 32, 7 },
        { "gather, two warps per window, halves in shared memory", nwin, 64, 8 },
    };
    long run = 0;
    for (const kernel &k : ks) {
        auto launch = [&](int set) {
            const float *b = B + (size_t)set * rows * N;
            float *c = C + (size_t)set * rows * N;
            switch (k.kind) {
            case 0: empty_kernel<<<1, 32, 0, s>>>(); break;
            case 1: chain_copy<0, 0><<<k.grid, k.block, 0, s>>>(idx, idx, b, c, rows); break;
            case 2: chain_copy<1, 0><<<k.grid, k.block, 0, s>>>(idx, idx, b, c, rows); break;
            case 3: chain_copy<2, 0><<<k.grid, k.block, 0, s>>>(idx, idx, b, c, rows); break;
            case 4: chain_copy<0, 1><<<k.grid, k.block, 0, s>>>(idx, idx, b, c, rows); break;
            case 5: chain_copy<0, 2><<<k.grid, k.block, 0, s>>>(idx, idx, b, c, rows); break;
            case 6: gather<0><<<k.grid, k.block, 0, s>>>(d_woff, d_cols, b, c, rows, nwin); break;
            case 7: gather<1><<<k.grid, k.block, 0, s>>>(d_woff, d_cols, b, c, rows, nwin); break;
            default: gather<2><<<k.grid, k.block, 0, s>>>(d_woff, d_cols, b, c, rows, nwin);
            }
        };
        std::vector<float> t;
        for (int i = 0; i < WARMUP; i++)
            launch((int)(run++ % SETS));
        for (int b = 0; b < BATCHES; b++) {
            flag_h[0] = 0;
            __sync_synchronize();
            hold<<<1, 1, 0, s>>>(flag_d);
            CK(cudaEventRecord(ev[0], s));
            for (int j = 0; j < BATCH; j++) {
                launch((int)(run++ % SETS));
                CK(cudaEventRecord(ev[j + 1], s));
            }
            __sync_synchronize();
            flag_h[0] = 1;
            CK(cudaStreamSynchronize(s));
            for (int j = 0; j < BATCH; j++) {
                float ms;
                CK(cudaEventElapsedTime(&ms, ev[j], ev[j + 1]));
                t.push_back(ms * 1000.0f);
            }
        }
        CK(cudaGetLastError());
        std::sort(t.begin(), t.end());
        printf("%s\t%d\t%d\t%.3f\t%.3f\t%.3f\n", k.name, k.grid, k.block, t[t.size() / 2],
               t[t.size() / 10], t[t.size() * 9 / 10]);
    }
    return 0;
}
