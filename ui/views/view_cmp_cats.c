/* Comparing, the Categories view: one row per category of either trace, its
   figures (new, base or delta: b) and the deltas,
   sorted by |Δ self| by default; + only in the new trace, - only in the base. */
#include "config.h"

#include "ui/cmp.h"

static const col cols[] = {
    { CMP_COL_NAME, "Category", 20, MODEL_SORT_NAME, 0, false, true, true },
    { CMP_COL_CALLS, "Calls", 9, -1, 2, false, false, false },
    { CMP_COL_SELF, "Self ms", 11, -1, 1, false, false, false },
    { CMP_COL_TOTAL, "Total ms", 11, -1, 2, false, false, false },
    { CMP_COL_DEV_SELF, "Dev self", 11, -1, 4, true, false, false },
    { CMP_COL_D_CALLS, "Δ calls", 9, MODEL_SORT_CALLS, 1, false, false, false },
    { CMP_COL_D_SELF, "Δ self ms", 11, MODEL_SORT_SELF, 0, false, false, false },
    { CMP_COL_D_TOTAL, "Δ total ms", 11, MODEL_SORT_TOTAL, 0, false, false, false },
    { CMP_COL_D_PCT, "Δ %", 7, MODEL_SORT_AVG, 0, false, false, false },
    { CMP_COL_D_DEV_SELF, "Δ dev ms", 11, MODEL_SORT_DEVICE_SELF, 3, true, false, false },
    { 0, NULL, 0, 0, 0, false, false, false }
};

static const enum model_sort sorts[] = { MODEL_SORT_NAME, MODEL_SORT_CALLS, MODEL_SORT_SELF, MODEL_SORT_TOTAL, MODEL_SORT_AVG, MODEL_SORT_DEVICE_SELF, MODEL_SORT_N };

static int ccats_open(view *v)
{
    return cmp_table_open(v, VIEW_CATS);
}

static void ccats_close(view *v)
{
    cmp_table_close(v, VIEW_CATS);
}

static int ccats_rebuild(view *v, view_rows *r)
{
    return cmp_table_rebuild(v, VIEW_CATS, r, false);
}

static const char *ccats_name(view *v, uint32_t id, char *buf, size_t size, size_t *len)
{
    (void)buf;
    (void)size;
    return cmp_table_name(v, VIEW_CATS, id, len);
}

static void ccats_cell(view *v, uint32_t id, const col *c, int namew, cols_line *l)
{
    if (cmp_table_cell(v, VIEW_CATS, id, c, namew, l))
        return;
    cols_cell(l, "", 0, c->width, true);
}

static enum view_style ccats_style(view *v, uint32_t id)
{
    return cmp_table_style(v, VIEW_CATS, id);
}

static int ccats_action(view *v, enum key_act act, int arg)
{
    (void)arg;
    return cmp_action(v, act);
}

const struct view_ops view_cmp_cats_ops = {
    .name = "categories",
    .label = "Categories Δ",
    .cols = cols,
    .namecap = 80,
    .sorts = sorts,
    .open = ccats_open,
    .close = ccats_close,
    .rebuild = ccats_rebuild,
    .name_of = ccats_name,
    .cell = ccats_cell,
    .style = ccats_style,
    .action = ccats_action,
    .tabinfo = cmp_tabinfo,
    .off_acts = cmp_table_off,
};
