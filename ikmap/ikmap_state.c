/*
 * ikmap_state.c - a struct ikmap's life: an empty map, its derived part
 * computed from the stored part (after a build in ikmap.c or a load in
 * ikmap_file.c), and freeing. It calls the method files' prepare and GPU
 * context functions; both halves of the facade call it, and it calls
 * neither of them.
 */
#include <stdlib.h>
#include "ikmap_impl.h"

struct ikmap *ikmap_alloc(void)
{
	struct ikmap *map = calloc(1, sizeof(struct ikmap));
	if (map && !(map->gpu = ikmap_gpu_new())) {
		free(map);
		return NULL;
	}
	return map;
}

int ikmap_prepare(struct ikmap *map, char *err)
{
	if (map->method == IKMAP_ANNE)
		return ikmap_anne_prepare(map, err);
	map->path = IKMAP_PATH_SPARSE;
	if (map->method == IKMAP_IFOREST)
		return ikmap_forest_prepare(map, err);
	/* min-max and acos: scale 2's zero list, then the method's own derived part */
	if (ikmap_kernel_prepare_zeros(map)) {
		ikmap_error(err, "out of memory");
		return -1;
	}
	if (map->method == IKMAP_MINMAX)
		return ikmap_minmax_prepare(map, err);
	return ikmap_acos_prepare(map, err);
}

void ikmap_free(struct ikmap *map)
{
	if (!map)
		return;
	free(map->factor);
	free(map->shift);
	free(map->raw_factor);
	free(map->zero_feature);
	free(map->zero_value);
	free(map->acos_gt);
	free(map->acos_gf);
	free(map->acos_gnorm);
	free(map->acos_stream);
	ikmap_minmax_free(map);
	free(map->sample_start);
	free(map->sample_index);
	free(map->sample_value);
	free(map->centre);
	free(map->tree_start);
	free(map->node_feature);
	free(map->node_child);
	free(map->node_split);
	free(map->sample_scaled);
	free(map->sample_sqnorm);
	free(map->part_maxnorm);
	free(map->mean);
	free(map->dense);
	free(map->part_maxnorm_centred);
	free(map->centred_sq);
	free(map->empty_row);
	free(map->post_start);
	free(map->post_sample);
	free(map->post_value);
	free(map->feature_slot);
	free(map->node_slot);
	free(map->flat_node);
	free(map->keys);
	ikmap_prune_free(map->prune);
	ikmap_anne_vnni_free(atomic_load(&map->vnni));
	ikmap_gpu_free(map->gpu);
	free(map);
}
