// Does a change of shared-memory configuration between two kernels cancel PDL?
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#define CK(x) do{cudaError_t e_=(x); if(e_){printf("%s:%d %s\n",__FILE__,__LINE__,cudaGetErrorString(e_)); return 1;}}while(0)
template<int WAIT, int K> __global__ void __launch_bounds__(256) work(const int*idx, float*x, int n, int chain){
  extern __shared__ float sm[];
  if (WAIT) asm volatile("griddepcontrol.wait;" ::: "memory");
  int i = blockIdx.x*blockDim.x+threadIdx.x;
  if (i>=n) return;
  int j=i; for(int c=0;c<chain;c++) j = idx[j];
  x[i] += (float)j + K;
}
template<int WAIT,int K> int launch(const int*idx,float*x,int n,int chain,cudaStream_t s,size_t smem){
  cudaLaunchAttribute at; at.id=cudaLaunchAttributeProgrammaticStreamSerialization; at.val.programmaticStreamSerializationAllowed=1;
  cudaLaunchConfig_t cfg={}; cfg.gridDim=dim3((n+255)/256); cfg.blockDim=dim3(256); cfg.dynamicSmemBytes=smem; cfg.stream=s; cfg.attrs=&at; cfg.numAttrs=WAIT?1:0;
  return cudaLaunchKernelEx(&cfg, work<WAIT,K>, idx,x,n,chain)!=cudaSuccess;
}
__global__ void hold(volatile int*f){ while(!f[0]); }
int main(){
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s,cudaStreamNonBlocking));
  int *hf; CK(cudaHostAlloc(&hf,8,cudaHostAllocMapped)); int*df; CK(cudaHostGetDevicePointer((void**)&df,hf,0));
  const int P=60; std::vector<cudaEvent_t> ev(P+1); for(auto&q:ev) CK(cudaEventCreate(&q));
  int n=135168; int *idx; float*x; CK(cudaMalloc(&idx,n*4)); CK(cudaMalloc(&x,n*4));
  std::vector<int> h(n); for(int i=0;i<n;i++) h[i]=(int)((i*2654435761u)%n); CK(cudaMemcpy(idx,h.data(),n*4,cudaMemcpyHostToDevice));
  CK(cudaFuncSetAttribute(work<1,1>, cudaFuncAttributeMaxDynamicSharedMemorySize, 100000));
  CK(cudaFuncSetAttribute(work<0,1>, cudaFuncAttributeMaxDynamicSharedMemorySize, 100000));
  for (int carve=0; carve<2; carve++) {
    int c = carve ? 100 : -1;
    CK(cudaFuncSetAttribute(work<1,0>, cudaFuncAttributePreferredSharedMemoryCarveout, c));
    CK(cudaFuncSetAttribute(work<0,0>, cudaFuncAttributePreferredSharedMemoryCarveout, c));
    CK(cudaFuncSetAttribute(work<1,1>, cudaFuncAttributePreferredSharedMemoryCarveout, c));
    CK(cudaFuncSetAttribute(work<0,1>, cudaFuncAttributePreferredSharedMemoryCarveout, c));
    for (size_t smem2 : {(size_t)0, (size_t)20000, (size_t)60000}) for (int pdl=0; pdl<2; pdl++) {
      double r[3];
      for (int rep=0;rep<3;rep++){
        hf[0]=0; __sync_synchronize(); hold<<<1,1,0,s>>>(df);
        CK(cudaEventRecord(ev[0],s));
        for (int p=0;p<P;p++){
          if (launch<0,0>(idx,x,n,2,s,0)) {printf("fail\n");return 1;}
          if (pdl ? launch<1,1>(idx,x,n,2,s,smem2) : launch<0,1>(idx,x,n,2,s,smem2)) {printf("fail2\n");return 1;}
          CK(cudaEventRecord(ev[p+1],s));
        }
        __sync_synchronize(); hf[0]=1; CK(cudaStreamSynchronize(s));
        std::vector<float> d(P); for(int p=0;p<P;p++) CK(cudaEventElapsedTime(&d[p],ev[p],ev[p+1])); std::sort(d.begin(),d.end()); r[rep]=d[P/2]*1000;
      }
      printf("carveout=%s second kernel smem=%6zu pdl=%d  us/product %.2f %.2f %.2f\n", carve?"max-shared(both)":"default", smem2, pdl, r[0],r[1],r[2]);
    }
  }
  return 0;
}
