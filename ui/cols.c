/* Column layout and text cells; see ui/cols.h. */
#include "config.h"

#include "ui/cols.h"

#include <string.h>

#include "core/base/fmt.h"
#include "core/base/textsafe.h"

void cols_line_init(cols_line *l, char *buf, size_t size)
{
    l->buf = buf;
    l->size = size;
    l->off = 0;
    l->sec_off = l->sec_end = 0;
    if (size)
        buf[0] = '\0';
}

void cols_put(cols_line *l, const char *s, size_t len)
{
    if (l->off >= l->size)
        return;
    /* every byte of a screen line passes here: in its visible form (whole
       units, the same bytes for text that is visible already) */
    l->off += textsafe_visible(s, len, l->buf + l->off, l->size - l->off, NULL);
}

void cols_pad(cols_line *l, size_t n)
{
    while (n-- > 0)
        cols_put(l, " ", 1);
}

void cols_pad_to(cols_line *l, int width)
{
    size_t w = fmt_width(l->buf, l->off);
    if (w < (size_t)width)
        cols_pad(l, (size_t)width - w);
}

void cols_cell(cols_line *l, const char *s, size_t len, int width, bool right)
{
    char tmp[4200];
    if (width <= 0)
        return;
    fmt_ellipsize(s, len, (size_t)width, tmp, sizeof tmp);
    size_t w = fmt_width(tmp, strlen(tmp));
    size_t gap = w < (size_t)width ? (size_t)width - w : 0;
    if (right)
        cols_pad(l, gap);
    cols_put(l, tmp, strlen(tmp));
    if (!right)
        cols_pad(l, gap);
}

void cols_cell_sec(cols_line *l, const char *s, size_t len, size_t split, int width)
{
    if (split >= len || width <= 0 || fmt_width(s, split) >= (size_t)width) {
        cols_cell(l, s, len, width, false);
        return;
    }
    size_t start = l->off;
    cols_cell(l, s, len, width, false);
    /* the cell is s (or s cut, then an ellipsis) and blanks: the secondary
       part ends where the text does */
    size_t end = l->off;
    while (end > start && l->buf[end - 1] == ' ')
        end--;
    if (start + split < end) {
        l->sec_off = start + split;
        l->sec_end = end;
    }
}

int cols_layout(const col *cols, int width, bool gpu, int namecap, const col **out, int *namew)
{
    return cols_layout_sorted(cols, width, gpu, namecap, -1, out, namew);
}

int cols_layout_sorted(const col *cols, int width, bool gpu, int namecap, int sort,
                       const col **out, int *namew)
{
    int n = 0;
    while (cols[n].title && n < COLS_MAX)
        n++;
    bool keep[COLS_MAX] = { false };
    int used = cols[0].width; /* the name's least width is always there */
    bool name_last = false;
    for (int i = 0; i < n; i++)
        if (cols[i].name) {
            keep[i] = true;
            used = cols[i].width;
            name_last = i == n - 1;
        }
    for (int i = 0; i < n && sort >= 0; i++)
        if (!keep[i] && cols[i].sort == sort && (!cols[i].gpu || gpu) &&
            used + 1 + cols[i].width <= width) {
            keep[i] = true;
            used += 1 + cols[i].width;
        }
    for (int p = 0; p <= 4; p++)
        for (int i = 0; i < n; i++) {
            if (keep[i] || cols[i].prio != p || (cols[i].gpu && !gpu))
                continue;
            if (used + 1 + cols[i].width <= width) {
                keep[i] = true;
                used += 1 + cols[i].width;
            }
        }
    int k = 0;
    for (int i = 0; i < n; i++)
        if (keep[i])
            out[k++] = &cols[i];
    *namew = width - used;
    for (int i = 0; i < k; i++)
        if (out[i]->name)
            *namew += out[i]->width;
    /* on a wide screen a name column before the figures must not push them
       out of sight of the name; a name that comes last takes all */
    if (!name_last && namecap > 0 && *namew > namecap)
        *namew = namecap;
    return k;
}
