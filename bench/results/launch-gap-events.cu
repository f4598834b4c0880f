// Microbenchmark: does PDL shorten the gap between back-to-back small kernels,
// and do events recorded between them keep it?
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#define CK(x) do{cudaError_t e=(x); if(e){printf("%s:%d %s\n",__FILE__,__LINE__,cudaGetErrorString(e)); return 1;}}while(0)
template<int MODE> __global__ void work(const int *idx, float *x, int n, int chain){
  // MODE 0: plain; 1: wait first; 2: trigger at start then wait
  if (MODE==2) asm volatile("griddepcontrol.launch_dependents;");
  if (MODE>=1) asm volatile("griddepcontrol.wait;" ::: "memory");
  int i = blockIdx.x*blockDim.x+threadIdx.x;
  if (i>=n) return;
  int j=i; for(int c=0;c<chain;c++) j = idx[j];
  x[i] += (float)j;
}
template<int MODE> int launch(const int*idx,float*x,int n,int chain,cudaStream_t s){
  cudaLaunchAttribute a; a.id=cudaLaunchAttributeProgrammaticStreamSerialization; a.val.programmaticStreamSerializationAllowed=1;
  cudaLaunchConfig_t cfg={}; cfg.gridDim=dim3((n+255)/256); cfg.blockDim=dim3(256); cfg.stream=s; cfg.attrs=&a; cfg.numAttrs= MODE?1:0;
  return cudaLaunchKernelEx(&cfg, work<MODE>, idx, x, n, chain)!=cudaSuccess;
}
__global__ void hold(volatile int*f){ while(!f[0]); }
int main(){
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s,cudaStreamNonBlocking));
  int *hf; CK(cudaHostAlloc(&hf,4,cudaHostAllocMapped)); int*df; CK(cudaHostGetDevicePointer((void**)&df,hf,0));
  const int ITER=200;
  std::vector<cudaEvent_t> ev(ITER+1); for(auto&q:ev) CK(cudaEventCreate(&q));
  for (int n : {33792, 135168, 1<<20}) for (int chain : {1,4}) {
    int *idx; float*x; CK(cudaMalloc(&idx,n*4)); CK(cudaMalloc(&x,n*4));
    std::vector<int> h(n); for(int i=0;i<n;i++) h[i]=(int)((i*2654435761u)%n); CK(cudaMemcpy(idx,h.data(),n*4,cudaMemcpyHostToDevice));
    for (int mode=0; mode<3; mode++) for (int evs=0; evs<2; evs++) {
      double res[3];
      for (int rep=0; rep<3; rep++){
      hf[0]=0; __sync_synchronize(); hold<<<1,1,0,s>>>(df);
      CK(cudaEventRecord(ev[0],s));
      for(int it=0;it<ITER;it++){
        int r = mode==0?launch<0>(idx,x,n,chain,s):mode==1?launch<1>(idx,x,n,chain,s):launch<2>(idx,x,n,chain,s);
        if(r){printf("launch failed\n");return 1;}
        if(evs) CK(cudaEventRecord(ev[it+1],s));
      }
      if(!evs) CK(cudaEventRecord(ev[ITER],s));
      __sync_synchronize(); hf[0]=1; CK(cudaStreamSynchronize(s));
      if(evs){ std::vector<float> d(ITER); for(int it=0;it<ITER;it++) CK(cudaEventElapsedTime(&d[it],ev[it],ev[it+1])); std::sort(d.begin(),d.end()); res[rep]=d[ITER/2]*1000; }
      else { float t; CK(cudaEventElapsedTime(&t,ev[0],ev[ITER])); res[rep]=t*1000/ITER; }
      }
      printf("n=%d chain=%d mode=%s events=%s us/kernel: %.2f %.2f %.2f\n", n, chain, mode==0?"plain":mode==1?"pdl-wait":"pdl-trig+wait", evs?"between(median)":"ends(mean)", res[0],res[1],res[2]);
    }
    cudaFree(idx); cudaFree(x);
  }
  return 0;
}
