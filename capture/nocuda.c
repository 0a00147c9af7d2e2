/* nocuda.c - the shim's CUDA side when it is built without the CUDA
 * toolkit's headers: nothing to set up, and the capture says why. */
#include <stdio.h>

#include "capture/shim.h"

void cupti_prepare(void) {}
void nvtx_prepare(void) {}
void cupti_stop(void) {}
void cupti_after_fork_child(void) {}

void cupti_take(struct fk_cap_buf *kernels, struct fk_cap_buf *memory)
{
	*kernels = (struct fk_cap_buf){ 0 };
	*memory = (struct fk_cap_buf){ 0 };
}

unsigned cupti_status(unsigned seen, char *buf, size_t n, bool *monotonic)
{
	if (seen == 1)
		return 1;
	*monotonic = false;
	snprintf(buf, n, "off: this stackcap was built without the CUDA toolkit");
	return 1;
}
