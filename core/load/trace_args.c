/* The values inside an event's args, and the keys that name them: what
   the loader keeps of args (correlation, shapes, kernel and NCCL figures,
   [memory] fields, Python ids). The callbacks (trace_parse.c) hand every
   scalar inside args here. */
#include "config.h"

#include <string.h>

#include "core/base/num.h"
#include "core/load/trace_args.h"

enum trace_key trace_args_event_key(const unsigned char *k, size_t n)
{
    switch (n) {
    case 2:
        if (k[0] == 'p' && k[1] == 'h') return K_PH;
        if (k[0] == 't' && k[1] == 's') return K_TS;
        if (k[0] == 'i' && k[1] == 'd') return K_ID;
        if (k[0] == 'b' && k[1] == 'p') return K_BP;
        break;
    case 3:
        if (!memcmp(k, "cat", 3)) return K_CAT;
        if (!memcmp(k, "pid", 3)) return K_PID;
        if (!memcmp(k, "tid", 3)) return K_TID;
        if (!memcmp(k, "dur", 3)) return K_DUR;
        break;
    case 4:
        if (!memcmp(k, "name", 4)) return K_NAME;
        if (!memcmp(k, "args", 4)) return K_ARGS;
        break;
    }
    return K_OTHER;
}

enum trace_key trace_args_key(const unsigned char *k, size_t n)
{
    switch (n) {
    case 3:
        if (!memcmp(k, "Seq", 3) || !memcmp(k, "seq", 3)) return K_SEQ;
        break;
    case 5:
        if (!memcmp(k, "dtype", 5)) return K_DTYPE;
        if (!memcmp(k, "Bytes", 5)) return K_BYTES;
        if (!memcmp(k, "block", 5)) return K_KBLOCK;
        break;
    case 18:
        if (!memcmp(k, "Process Group Name", 18)) return K_PG_NAME;
        break;
    case 4:
        if (!memcmp(k, "name", 4)) return K_NAME;
        if (!memcmp(k, "Addr", 4)) return K_ADDR;
        if (!memcmp(k, "grid", 4)) return K_KGRID;
        break;
    case 6:
        if (!memcmp(k, "labels", 6)) return K_LABELS;
        if (!memcmp(k, "device", 6)) return K_KDEVICE;
        break;
    case 13:
        if (!memcmp(k, "In msg nelems", 13)) return K_IN_NELEMS;
        if (!memcmp(k, "blocks per SM", 13)) return K_KBPS;
        if (!memcmp(k, "shared memory", 13)) return K_KSMEM;
        break;
    case 20:
        if (!memcmp(k, "registers per thread", 20)) return K_KREGS;
        break;
    case 25:
        if (!memcmp(k, "est. achieved occupancy %", 25)) return K_KOCC;
        break;
    case 9:
        if (!memcmp(k, "Device Id", 9)) return K_DEV_ID;
        if (!memcmp(k, "Python id", 9)) return K_PY_ID;
        break;
    case 10:
        if (!memcmp(k, "sort_index", 10)) return K_SORT_INDEX;
        if (!memcmp(k, "Input Dims", 10)) return K_INPUT_DIMS;
        if (!memcmp(k, "Input dims", 10)) return K_INPUT_DIMS_LC;
        if (!memcmp(k, "Call stack", 10)) return K_CALL_STACK;
        if (!memcmp(k, "Group size", 10)) return K_GROUP_SIZE;
        break;
    case 11:
        if (!memcmp(k, "correlation", 11)) return K_CORRELATION;
        if (!memcmp(k, "External id", 11) || !memcmp(k, "external id", 11)) return K_EXTERNAL_ID;
        if (!memcmp(k, "Device Type", 11)) return K_DEV_TYPE;
        break;
    case 14:
        if (!memcmp(k, "Total Reserved", 14)) return K_TOTAL_RES;
        if (!memcmp(k, "Out msg nelems", 14)) return K_OUT_NELEMS;
        break;
    case 15:
        if (!memcmp(k, "Total Allocated", 15)) return K_TOTAL_ALLOC;
        if (!memcmp(k, "Collective name", 15)) return K_COLL_NAME;
        break;
    case 16:
        if (!memcmp(k, "Process Group ID", 16)) return K_PG_ID;
        if (!memcmp(k, "Python parent id", 16)) return K_PY_PARENT;
        if (!memcmp(k, "Python module id", 16)) return K_PY_MODULE;
        break;
    }
    return K_OTHER;
}

/* A kernel's blocks per SM or occupancy that a sum weighted by durations
   (up to 2^62 ns) can hold: real ones are below a million; one past 1e12
   is taken for no figure rather than an infinite average. */
static bool karg_sane(double x)
{
    return x >= -1e12 && x <= 1e12;
}

/* ---- args["Input Dims"]: its str() text, token by token ---- */

/* The rendered value is complete: keep it on the event. */
static int dims_end(trace_parser *L)
{
    uint32_t id = trace_pstate_intern(L, L->dims.len ? L->dims.buf : "", L->dims.len);
    if (id == STRTAB_NONE)
        return 0;
    if (L->dims_key == K_INPUT_DIMS)
        L->c.dims = id;
    else
        L->c.dims_lc = id;
    L->dims_key = K_OTHER;
    return 1;
}

int trace_args_dims_value(trace_parser *L, const char *s, size_t n, bool is_str)
{
    enum pyrepr_kind k = is_str                           ? PYREPR_STRING
                         : n == 4 && !memcmp(s, "null", 4) ? PYREPR_NULL
                         : n == 4 && !memcmp(s, "true", 4) ? PYREPR_TRUE
                         : n == 5 && !memcmp(s, "false", 5) ? PYREPR_FALSE
                                                           : PYREPR_NUMBER;
    if (pyrepr_scalar(&L->dims, k, s, n) < 0)
        return trace_pstate_nomem(L);
    return pyrepr_depth(&L->dims) ? 1 : dims_end(L);
}

/* An object or array opens (L->depth already counts it): inside a shape,
   or as the shape's value itself. Returns 1 when it was one, 0 on no memory,
   -1 when it is not a shape's. */
int trace_args_dims_open(trace_parser *L, bool object)
{
    if (L->dims_key == K_OTHER) {
        if (!(L->in_args && L->depth == L->ev_depth + 3 &&
              (L->args_key == K_INPUT_DIMS || L->args_key == K_INPUT_DIMS_LC)))
            return -1;
        pyrepr_reset(&L->dims);
        L->dims_key = L->args_key;
    }
    return pyrepr_open(&L->dims, object) < 0 ? trace_pstate_nomem(L) : 1;
}

/* An object or array closes; -1 when it is not a shape's. */
int trace_args_dims_close(trace_parser *L)
{
    if (L->dims_key == K_OTHER)
        return -1;
    if (pyrepr_close(&L->dims) < 0)
        return trace_pstate_nomem(L);
    return pyrepr_depth(&L->dims) ? 1 : dims_end(L);
}

/* A scalar inside the current event's args (depth ev_depth + 2), or an
   element of its args.grid / args.block array (ev_depth + 3). */
int trace_args_value(trace_parser *L, const char *s, size_t n, bool is_str)
{
    int d = L->depth;
    if (d == L->ev_depth + 2) {
        struct trace_cur *c = &L->c;
        switch (L->args_key) {
        case K_CORRELATION:
            c->has_corr = num_parse_id(s, n, &c->corr);
            break;
        case K_EXTERNAL_ID: {
            /* kept as id + 1 in 32 bits (0: none); larger ids are not linked */
            uint64_t x;
            c->ext = num_parse_id(s, n, &x) && x < UINT32_MAX ? (uint32_t)x + 1 : 0;
            break;
        }
        case K_NAME:
            if (is_str && (c->arg_name = trace_pstate_intern(L, s, n)) == STRTAB_NONE)
                return 0;
            break;
        case K_LABELS:
            if (is_str && (c->arg_labels = trace_pstate_intern(L, s, n)) == STRTAB_NONE)
                return 0;
            break;
        case K_CALL_STACK:
            /* many operators share a stack: interned, one id per event */
            if (is_str && n && (c->stack = trace_pstate_intern_memo(L, 3, s, n)) == STRTAB_NONE)
                return 0;
            break;
        case K_SORT_INDEX:
            c->has_sort = num_parse_scaled(s, n, 0, &c->sort_index);
            break;
        case K_INPUT_DIMS:
        case K_INPUT_DIMS_LC:
            /* a scalar shape: str() of it; a null "Input Dims" is none
               (TensorBoard then reads "Input dims") */
            if (L->args_key == K_INPUT_DIMS && !is_str && n == 4 && !memcmp(s, "null", 4))
                break;
            pyrepr_reset(&L->dims);
            L->dims_key = L->args_key;
            return trace_args_dims_value(L, s, n, is_str);
        case K_PY_ID:
        case K_PY_PARENT:
        case K_PY_MODULE: {
            int64_t x;
            unsigned bit = L->args_key == K_PY_ID ? TRACE_PY_ID
                           : L->args_key == K_PY_PARENT ? TRACE_PY_PARENT : TRACE_PY_MODULE;
            if (!is_str && num_parse_scaled(s, n, 0, &x)) {
                c->py_has |= bit;
                *(L->args_key == K_PY_ID ? &c->py_id
                  : L->args_key == K_PY_PARENT ? &c->py_parent : &c->py_module) = x;
            } else {
                c->py_has &= ~bit;
            }
            break;
        }
        case K_BYTES:
            c->has_bytes = num_parse_scaled(s, n, 0, &c->bytes);
            break;
        case K_ADDR:
            c->has_addr = num_parse_id(s, n, &c->addr);
            break;
        case K_DEV_TYPE:
            c->has_dev_type = num_parse_scaled(s, n, 0, &c->dev_type);
            break;
        case K_DEV_ID:
            if (!num_parse_scaled(s, n, 0, &c->dev_id))
                c->dev_id = -1;
            break;
        case K_TOTAL_ALLOC:
            c->has_total_alloc = num_parse_scaled(s, n, 0, &c->total_alloc) && c->total_alloc >= 0;
            break;
        case K_TOTAL_RES:
            c->has_total_res = num_parse_scaled(s, n, 0, &c->total_res) && c->total_res >= 0;
            break;
        case K_KBPS:
            if (!is_str && num_parse_double(s, n, &c->k_bps) && karg_sane(c->k_bps))
                c->kflags |= TRACE_KARG_BPS;
            break;
        case K_KOCC:
            if (!is_str && num_parse_double(s, n, &c->k_occ) && karg_sane(c->k_occ))
                c->kflags |= TRACE_KARG_OCC;
            break;
        case K_KREGS:
            if (!is_str && num_parse_scaled(s, n, 0, &c->k_regs))
                c->kflags |= TRACE_KARG_REGS;
            break;
        case K_KSMEM:
            if (!is_str && num_parse_scaled(s, n, 0, &c->k_smem))
                c->kflags |= TRACE_KARG_SMEM;
            break;
        case K_KDEVICE:
            if (!is_str && num_parse_scaled(s, n, 0, &c->k_dev) && c->k_dev >= 0 &&
                c->k_dev <= INT16_MAX)
                c->kflags |= TRACE_KARG_DEVICE;
            break;
        case K_COLL_NAME:
            if (is_str && (c->coll_name = trace_pstate_intern(L, s, n)) == STRTAB_NONE)
                return 0;
            c->has_coll = true;
            break;
        case K_PG_NAME:
        case K_PG_ID:
            /* the name is what the ranks share; an ID stands in without one */
            if (L->args_key == K_PG_ID && c->pg_from_name)
                break;
            if ((c->coll_pg = trace_pstate_intern(L, s, n)) == STRTAB_NONE)
                return 0;
            c->pg_from_name = L->args_key == K_PG_NAME;
            c->has_coll = true;
            break;
        case K_DTYPE:
            if (is_str && (c->coll_dtype = trace_pstate_intern(L, s, n)) == STRTAB_NONE)
                return 0;
            break;
        case K_IN_NELEMS:
        case K_OUT_NELEMS:
        case K_GROUP_SIZE:
        case K_SEQ: {
            int64_t x;
            if (!num_parse_scaled(s, n, 0, &x) || x < 0)
                break;
            if (L->args_key == K_IN_NELEMS)
                c->in_nelems = x;
            else if (L->args_key == K_OUT_NELEMS)
                c->out_nelems = x;
            else if (L->args_key == K_GROUP_SIZE)
                c->group_size = x;
            else
                c->seq = x;
            c->has_coll |= L->args_key != K_GROUP_SIZE;
            break;
        }
        default:
            break;
        }
        return 1;
    }
    /* an element of args.grid or args.block: three integers */
    struct trace_cur *c = &L->c;
    int64_t x;
    if (is_str || c->k_n >= 3 || !num_parse_scaled(s, n, 0, &x) || x < INT32_MIN ||
        x > INT32_MAX) {
        c->k_bad = true;
        return 1;
    }
    (c->k_arr == K_KGRID ? c->k_grid : c->k_block)[c->k_n++] = (int32_t)x;
    return 1;
}
