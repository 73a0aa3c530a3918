#include "config.h"

#include "core/model/select.h"
#include "core/model/model_nodes.h" /* model_outer_nodes */

#include <regex.h>
#include <stdlib.h>
#include <string.h>

void select_init(select_spec *s)
{
    memset(s, 0, sizeof *s);
    s->focus_op = MODEL_NONE;
    s->focus_mnode = MODEL_NONE;
}

/* Per-node bits: what the stack from the root down to the node holds. */
enum {
    HAS_FOCUS = 1,  /* a frame matching focus_re */
    HAS_IGNORE = 2, /* a frame matching ignore_re */
    HAS_FILTER = 4, /* a frame whose name contains filter */
    HAS_OP = 8,     /* the frame focus_op */
    IN_MNODE = 16   /* a frame whose merged node is focus_mnode */
};

static int compile(regex_t *re, const char *pattern, const char *what, t2p_error *err)
{
    int rc = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char msg[256];
        regerror(rc, re, msg, sizeof msg);
        error_set(err, rc == REG_ESPACE ? T2P_ERR_NOMEM : T2P_ERR_ARG, NULL, -1,
                  "bad %s regular expression '%s': %s", what, pattern, msg);
        return -1;
    }
    return 0;
}

int select_check(const select_spec *s, t2p_error *err)
{
    const char *pats[3] = { s->focus_re, s->ignore_re, s->thread_re };
    const char *what[3] = { "focus", "ignore", "thread" };
    for (int i = 0; i < 3; i++) {
        regex_t re;
        if (!pats[i])
            continue;
        if (compile(&re, pats[i], what[i], err) < 0)
            return -1;
        regfree(&re);
    }
    return 0;
}

static bool has_upper(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] >= 'A' && s[i] <= 'Z')
            return true;
    return false;
}

static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

bool select_name_has(const char *s, size_t len, const char *needle, size_t nlen)
{
    if (nlen == 0)
        return true;
    if (has_upper(needle, nlen)) {
        for (size_t i = 0; i + nlen <= len; i++)
            if (s[i] == needle[0] && memcmp(s + i, needle, nlen) == 0)
                return true;
        return false;
    }
    /* no capital in the text: any case (ASCII letters; UTF-8 bytes as they are) */
    for (size_t i = 0; i + nlen <= len; i++) {
        size_t k = 0;
        while (k < nlen && lower(s[i + k]) == needle[k])
            k++;
        if (k == nlen)
            return true;
    }
    return false;
}

uint8_t *select_nodes(const model *m, const select_spec *s, t2p_error *err)
{
    const trace *tr = m->tr;
    regex_t focus, ignore, thread;
    bool have_focus = false, have_ignore = false, have_thread = false;
    uint8_t *opbits = NULL, *trackok = NULL, *bits = NULL, *keep = NULL;

    if (s->focus_re) {
        if (compile(&focus, s->focus_re, "focus", err) < 0)
            goto fail;
        have_focus = true;
    }
    if (s->ignore_re) {
        if (compile(&ignore, s->ignore_re, "ignore", err) < 0)
            goto fail;
        have_ignore = true;
    }
    if (s->thread_re) {
        if (compile(&thread, s->thread_re, "thread", err) < 0)
            goto fail;
        have_thread = true;
    }

    opbits = calloc(m->nops ? m->nops : 1, 1);
    trackok = malloc(m->ntracks ? m->ntracks : 1);
    bits = calloc(m->nnodes ? m->nnodes : 1, 1);
    keep = calloc(m->nnodes ? m->nnodes : 1, 1);
    if (!opbits || !trackok || !bits || !keep)
        goto nomem;

    /* Each operator and each track is tested once, not once per frame:
       a tree has many nodes per op, and a regexec is the costly part. */
    size_t flen = s->filter ? strlen(s->filter) : 0;
    for (size_t i = 0; i < m->nops; i++) {
        const char *name = model_op_name(m, (uint32_t)i);
        size_t len = strtab_len(tr->strs, m->ops[i].name);
        if (have_focus && regexec(&focus, name, 0, NULL, 0) == 0)
            opbits[i] |= HAS_FOCUS;
        if (have_ignore && regexec(&ignore, name, 0, NULL, 0) == 0)
            opbits[i] |= HAS_IGNORE;
        if (s->filter && select_name_has(name, len, s->filter, flen))
            opbits[i] |= HAS_FILTER;
        if (s->focus_op == i)
            opbits[i] |= HAS_OP;
    }
    for (size_t k = 0; k < m->ntracks; k++) {
        char label[512];
        trackok[k] = !have_thread ||
                     regexec(&thread, trace_track_label(tr, (uint32_t)k, label, sizeof label), 0,
                             NULL, 0) == 0;
    }

    uint8_t need = (have_focus ? HAS_FOCUS : 0) | (s->filter ? HAS_FILTER : 0) |
                   (s->focus_op != MODEL_NONE ? HAS_OP : 0) |
                   (s->focus_mnode != MODEL_NONE ? IN_MNODE : 0);
    /* parents come before their children, so one pass carries each stack's
       bits down from the root */
    for (size_t i = 0; i < m->nnodes; i++) {
        const model_node *nd = &m->nodes[i];
        if (nd->parent == MODEL_NONE)
            continue;
        uint8_t b = bits[nd->parent] | opbits[nd->op];
        if (s->focus_mnode != MODEL_NONE && m->node_merged && m->node_merged[i] == s->focus_mnode)
            b |= IN_MNODE;
        bits[i] = b;
        keep[i] = (b & need) == need && !(b & HAS_IGNORE) && trackok[nd->track];
    }
    goto done;

nomem:
    error_set(err, T2P_ERR_NOMEM, NULL, -1, "out of memory selecting stacks");
fail:
    free(keep);
    keep = NULL;
done:
    free(opbits);
    free(trackok);
    free(bits);
    if (have_focus)
        regfree(&focus);
    if (have_ignore)
        regfree(&ignore);
    if (have_thread)
        regfree(&thread);
    return keep;
}

int select_cum(const model *m, const uint8_t *keep, int64_t *cum, t2p_error *err)
{
    /* the kept self time under each node (a node's index is greater than its
       parent's: children first), summed over each op's outer nodes */
    uint8_t *outer = model_outer_nodes(m);
    int64_t *sub = malloc((m->nnodes ? m->nnodes : 1) * sizeof *sub);
    if (!outer || !sub) {
        free(outer);
        free(sub);
        error_set(err, T2P_ERR_NOMEM, NULL, -1, "out of memory summing cum time");
        return -1;
    }
    for (size_t i = 0; i < m->nnodes; i++)
        sub[i] = m->nodes[i].parent != MODEL_NONE && (!keep || keep[i]) ? m->nodes[i].self_ns : 0;
    for (size_t o = 0; o < m->nops; o++)
        cum[o] = 0;
    for (size_t i = m->nnodes; i-- > 0;) {
        const model_node *nd = &m->nodes[i];
        if (nd->parent == MODEL_NONE)
            continue;
        sub[nd->parent] += sub[i];
        if (outer[i])
            cum[nd->op] += sub[i];
    }
    free(outer);
    free(sub);
    return 0;
}
