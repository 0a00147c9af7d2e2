/* memcolors.c - torch's memory category colours (see memcolors.h). */
#include "render/memcolors.h"

#include <string.h>

const unsigned fk_mem_category_colors[FK_MEM_NCAT] = {
	0x006400, /* darkgreen: PARAMETER */
	0xdaa520, /* goldenrod: OPTIMIZER_STATE */
	0x000000, /* black: INPUT */
	0x9370db, /* mediumpurple: TEMPORARY */
	0xff0000, /* red: ACTIVATION */
	0x0000cd, /* mediumblue: GRADIENT */
	0x4169e1, /* royalblue: AUTOGRAD_DETAIL */
	0x808080, /* grey: Unknown */
};

int fk_mem_category_of_name(const char *name, size_t len)
{
	for (int c = 0; c < FK_MEM_NCAT; c++)
		if (strlen(fk_mem_category_names[c]) == len &&
		    memcmp(fk_mem_category_names[c], name, len) == 0)
			return c;
	return -1;
}
