/*
 * gputest.h: what the GPU test programs share. Include after tap.h and
 * kernels.h.
 */
#ifndef TC_GPUTEST_H
#define TC_GPUTEST_H

/* Ends the test as skipped where there is no CUDA device (a build without
   CUDA, no GPU library, no device), the plan of a GPU test run elsewhere. */
__attribute__((unused)) static void tap_need_gpu(void)
{
    tc_gpu_info *list = NULL;
    int n = 0;
    if (tc_gpu_list(&list, &n, NULL) != TC_OK || n == 0)
        skip_all("no CUDA device");
    free(list);
}

#endif
