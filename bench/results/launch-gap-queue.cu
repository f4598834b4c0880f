// Why does PDL not show in the library? Variants: big args, cudaFuncSetAttribute per launch,
// two alternating kernels, and how many launches one hold can queue.
#include <cstdio>
#include <vector>
#include <algorithm>
#include <chrono>
#include <cuda_runtime.h>
#define CK(x) do{cudaError_t e_=(x); if(e_){printf("%s:%d %s\n",__FILE__,__LINE__,cudaGetErrorString(e_)); return 1;}}while(0)
struct big { const int *idx; float *x; int n, chain; long pad[28]; };
template<int WAIT, int K> __global__ void __launch_bounds__(256) work(big a){
  extern __shared__ float sm[];
  if (WAIT) asm volatile("griddepcontrol.wait;" ::: "memory");
  int i = blockIdx.x*blockDim.x+threadIdx.x;
  if (i>=a.n) return;
  int j=i; for(int c=0;c<a.chain;c++) j = a.idx[j];
  a.x[i] += (float)j + K;
}
template<int WAIT,int K> int launch(big a,cudaStream_t s,int setattr,size_t smem){
  if (setattr && cudaFuncSetAttribute(work<WAIT,K>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem)) return 1;
  cudaLaunchAttribute at; at.id=cudaLaunchAttributeProgrammaticStreamSerialization; at.val.programmaticStreamSerializationAllowed=1;
  cudaLaunchConfig_t cfg={}; cfg.gridDim=dim3((a.n+255)/256); cfg.blockDim=dim3(256); cfg.dynamicSmemBytes=smem; cfg.stream=s; cfg.attrs=&at; cfg.numAttrs=WAIT?1:0;
  return cudaLaunchKernelEx(&cfg, work<WAIT,K>, a)!=cudaSuccess;
}
__global__ void hold(volatile int*f, volatile int*to){ long long t0=clock64(); while(!f[0]){ if(clock64()-t0>2000000000LL){*to=1;return;} } }
int main(){
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s,cudaStreamNonBlocking));
  int *hf; CK(cudaHostAlloc(&hf,8,cudaHostAllocMapped)); int*df; CK(cudaHostGetDevicePointer((void**)&df,hf,0));
  cudaEvent_t e0,e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  int n=135168; int *idx; float*x; CK(cudaMalloc(&idx,n*4)); CK(cudaMalloc(&x,n*4));
  std::vector<int> h(n); for(int i=0;i<n;i++) h[i]=(int)((i*2654435761u)%n); CK(cudaMemcpy(idx,h.data(),n*4,cudaMemcpyHostToDevice));
  big a={idx,x,n,2,{0}};
  for (int iters : {64, 200, 512, 1024}) for (int alt=0; alt<2; alt++) for (int setattr=0; setattr<2; setattr++) for (int wait=0; wait<2; wait++) {
    double best=1e9, host=0; int timeout=0;
    for (int rep=0; rep<3; rep++){
      hf[0]=0; hf[1]=0; __sync_synchronize(); hold<<<1,1,0,s>>>(df, df+1);
      CK(cudaEventRecord(e0,s));
      auto t0=std::chrono::steady_clock::now();
      for(int it=0;it<iters;it++){
        int k = alt ? it%2 : 0; int r;
        size_t smem = setattr ? 60000 : 0;
        if (wait) r = k? launch<1,1>(a,s,setattr,smem) : launch<1,0>(a,s,setattr,smem);
        else r = k? launch<0,1>(a,s,setattr,smem) : launch<0,0>(a,s,setattr,smem);
        if(r){printf("launch failed %s\n", cudaGetErrorString(cudaGetLastError()));return 1;}
      }
      CK(cudaEventRecord(e1,s));
      double hs = std::chrono::duration<double,std::micro>(std::chrono::steady_clock::now()-t0).count()/iters;
      __sync_synchronize(); hf[0]=1; CK(cudaStreamSynchronize(s));
      float t; CK(cudaEventElapsedTime(&t,e0,e1)); best=std::min(best,(double)t*1000/iters); host=hs; timeout|=hf[1];
    }
    printf("iters=%4d alt=%d setattr=%d pdl=%d  gpu us/kernel %.2f  host us/launch %.2f  hold_timed_out=%d\n", iters, alt, setattr, wait, best, host, timeout);
  }
  return 0;
}
