/* The per-glyph loops of mineru_tui/pdf/lines.py and columns.py in C: the same rules, the
 * same arithmetic, the same results, without a Python round trip per glyph.
 *
 * Optional (setup.py builds it when a compiler is there; lines.py and columns.py fall back
 * to their own loops when it is missing, or when MINERU_TUI_PURE_LINES=1). Each function
 * here stands for one Python function of the same name and gives what it gives; where the
 * input is not what the page reader makes (a box of ints, a text of two characters, an
 * origin at infinity, a NaN a sort would meet) it returns None and the caller runs its own
 * Python loop, so odd input is handled by one implementation only.
 *
 * Built with -ffp-contract=off: a fused multiply-add would round differently from
 * Python's float arithmetic, and boxes, heights and baselines must be equal to the last
 * bit (tests/pdf/test_line_loop.py compares both readers on every corpus PDF).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------------ Char fields ---- */

/* chars.Char's slots read at their offsets (setup() checks each is a plain object slot) */
enum { C_TEXT, C_OBJECT, C_SIZE, C_ORIGIN, C_DIRECTION, C_TILT, C_BOX, C_LOOSE, C_INDEX,
       C_GENERATED, C_HYPHEN, C_BOLD, C_ITALIC, N_CHAR_FIELDS };
static const char *char_field_names[N_CHAR_FIELDS] = {
    "text", "text_object", "size", "origin", "direction", "tilt", "box", "loose", "index",
    "generated", "hyphen", "bold", "italic"};
static PyTypeObject *char_type = NULL;
static Py_ssize_t char_offset[N_CHAR_FIELDS];
static PyObject *is_rtl_char = NULL; /* bidi_order.is_rtl_char */
static PyObject *piece_class = NULL; /* columns._Piece */
/* the rules' numbers, from lines.py and columns.py (setup()): one place for each */
enum { K_MAX_TILT, K_CORE, K_LINE_OVERLAP, K_PIECE_GAP, K_SPACED_PIECE_GAP, K_PIECE_BASELINE,
       N_NUMBERS };
static double number[N_NUMBERS];

/* a Char's field, borrowed (NULL when the slot is empty) */
#define FIELD(c, k) (*(PyObject **)((char *)(c) + char_offset[k]))

/* ------------------------------------------------------------------- Glyph type ---- */

/* lines._Glyph, the same fields; row_key and visual_key are made when asked for */
typedef struct {
    PyObject_HEAD
    PyObject *chr, *box, *loose; /* the Char; upright tight and loose boxes (4-tuples) */
    double baseline, top, bottom, height;
    double x0, x1, y0, y1;       /* box, as numbers */
    double lx0, ly0, lx1, ly1;   /* loose, as numbers */
    double vx;                   /* visual key: (vx, vmid, vidx) */
    long long vidx, index;
    int vmid;
    char space;
} Glyph;

static void
glyph_dealloc(Glyph *g)
{
    Py_XDECREF(g->chr);
    Py_XDECREF(g->box);
    Py_XDECREF(g->loose);
    Py_TYPE(g)->tp_free((PyObject *)g);
}

static PyObject *
glyph_row_key(Glyph *g, void *closure)
{
    return Py_BuildValue("(dO)", g->bottom, PyTuple_GET_ITEM(g->box, 0));
}

static PyObject *
glyph_visual_key(Glyph *g, void *closure)
{
    return Py_BuildValue("(diL)", g->vx, g->vmid, g->vidx);
}

static PyMemberDef glyph_members[] = {
    {"char", T_OBJECT_EX, offsetof(Glyph, chr), READONLY, "the character"},
    {"box", T_OBJECT_EX, offsetof(Glyph, box), READONLY, "tight box, upright frame"},
    {"loose", T_OBJECT_EX, offsetof(Glyph, loose), READONLY, "loose box, upright frame"},
    {"baseline", T_DOUBLE, offsetof(Glyph, baseline), READONLY, NULL},
    {"top", T_DOUBLE, offsetof(Glyph, top), READONLY, "the core's top"},
    {"bottom", T_DOUBLE, offsetof(Glyph, bottom), READONLY, "the core's bottom"},
    {"height", T_DOUBLE, offsetof(Glyph, height), READONLY, "the loose box's height"},
    {"space", T_BOOL, offsetof(Glyph, space), READONLY, "its text is white space"},
    {NULL}};

static PyGetSetDef glyph_getset[] = {
    {"row_key", (getter)glyph_row_key, NULL, "(bottom, left)", NULL},
    {"visual_key", (getter)glyph_visual_key, NULL, "the order along its line", NULL},
    {NULL}};

static PyTypeObject GlyphType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "mineru_tui.pdf._lineloop.Glyph",
    .tp_doc = "lines._Glyph made in C: a character in the upright frame with its core.",
    .tp_basicsize = sizeof(Glyph),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = (destructor)glyph_dealloc,
    .tp_members = glyph_members,
    .tp_getset = glyph_getset,
};

#define IS_GLYPH(o) Py_IS_TYPE((o), &GlyphType)

/* ------------------------------------------------------------------- helpers ------- */

/* the four floats of a 4-tuple of floats; 0 when it is anything else */
static int
four_floats(PyObject *t, double *v)
{
    if (!t || !PyTuple_CheckExact(t) || PyTuple_GET_SIZE(t) != 4)
        return 0;
    for (int k = 0; k < 4; k++) {
        PyObject *x = PyTuple_GET_ITEM(t, k);
        if (!PyFloat_CheckExact(x))
            return 0;
        v[k] = PyFloat_AS_DOUBLE(x);
    }
    return 1;
}

static int
as_float(PyObject *x, double *v)
{
    if (!x || !PyFloat_CheckExact(x))
        return 0;
    *v = PyFloat_AS_DOUBLE(x);
    return 1;
}

/* an int that fits a long long; 0 otherwise (no error left set) */
static int
as_long(PyObject *x, long long *v)
{
    if (!x || !PyLong_CheckExact(x))
        return 0;
    int overflow = 0;
    *v = PyLong_AsLongLongAndOverflow(x, &overflow);
    if (overflow || (*v == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return 0;
    }
    return 1;
}

static PyObject *
box_tuple(double a, double b, double c, double d)
{
    return Py_BuildValue("(dddd)", a, b, c, d);
}

/* A stable merge sort of n indices by less(ctx, a, b): the order Python's sorted() gives
 * for keys without NaN (any stable sort by the same strict order gives the same one). */
typedef int (*Less)(const void *ctx, Py_ssize_t a, Py_ssize_t b);

static void
merge_sort(Py_ssize_t *v, Py_ssize_t *tmp, Py_ssize_t n, Less less, const void *ctx)
{
    if (n < 2)
        return;
    if (n <= 12) { /* insertion sort: stable */
        for (Py_ssize_t i = 1; i < n; i++) {
            Py_ssize_t x = v[i], j = i;
            while (j > 0 && less(ctx, x, v[j - 1])) {
                v[j] = v[j - 1];
                j--;
            }
            v[j] = x;
        }
        return;
    }
    Py_ssize_t h = n / 2;
    merge_sort(v, tmp, h, less, ctx);
    merge_sort(v + h, tmp, n - h, less, ctx);
    if (!less(ctx, v[h], v[h - 1]))
        return; /* already in order */
    memcpy(tmp, v, h * sizeof(Py_ssize_t));
    Py_ssize_t i = 0, j = h, k = 0;
    while (i < h && j < n) {
        if (less(ctx, v[j], tmp[i]))
            v[k++] = v[j++];
        else
            v[k++] = tmp[i++];
    }
    while (i < h)
        v[k++] = tmp[i++];
}

/* 0..n-1 sorted stably by less; NULL (MemoryError set) when out of memory */
static Py_ssize_t *
sorted_indices(Py_ssize_t n, Less less, const void *ctx)
{
    Py_ssize_t *v = PyMem_Malloc((n ? n : 1) * 2 * sizeof(Py_ssize_t));
    if (!v) {
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        v[i] = i;
    merge_sort(v, v + n, n, less, ctx);
    return v;
}

/* ------------------------------------------------------------------- setup --------- */

static PyObject *
setup(PyObject *self, PyObject *args)
{
    PyObject *cls, *rtl, *piece, *numbers;
    if (!PyArg_ParseTuple(args, "O!OOO!", &PyType_Type, &cls, &rtl, &piece, &PyTuple_Type,
                          &numbers))
        return NULL;
    if (PyTuple_GET_SIZE(numbers) != N_NUMBERS) {
        PyErr_Format(PyExc_ValueError, "setup: %d numbers", N_NUMBERS);
        return NULL;
    }
    double given[N_NUMBERS];
    for (int k = 0; k < N_NUMBERS; k++) {
        given[k] = PyFloat_AsDouble(PyTuple_GET_ITEM(numbers, k));
        if (given[k] == -1.0 && PyErr_Occurred())
            return NULL;
    }
    for (int k = 0; k < N_CHAR_FIELDS; k++) {
        PyObject *d = PyObject_GetAttrString(cls, char_field_names[k]);
        if (!d)
            return NULL;
        int ok = Py_IS_TYPE(d, &PyMemberDescr_Type)
                 && ((PyMemberDescrObject *)d)->d_member->type == T_OBJECT_EX;
        if (ok)
            char_offset[k] = ((PyMemberDescrObject *)d)->d_member->offset;
        Py_DECREF(d);
        if (!ok) {
            PyErr_Format(PyExc_TypeError, "setup: Char.%s is not a slot", char_field_names[k]);
            return NULL;
        }
    }
    Py_INCREF(cls);
    Py_XSETREF(char_type, (PyTypeObject *)cls);
    Py_INCREF(rtl);
    Py_XSETREF(is_rtl_char, rtl);
    Py_INCREF(piece);
    Py_XSETREF(piece_class, piece);
    memcpy(number, given, sizeof number);
    Py_RETURN_NONE;
}

#define READY_OR_NONE() \
    do { \
        if (!char_type) \
            Py_RETURN_NONE; \
    } while (0)

/* ------------------------------------------------------------------- glyphs -------- */

/* lines._glyphs's fake-bold check: the characters kept so far, by (code point, 4-pt cell) */
typedef struct {
    double x, y;
    unsigned long long object;
    long long direction;
    Py_ssize_t next; /* the next kept character of this cell, -1 at the end */
} Kept;

typedef struct {
    Py_UCS4 cp;
    long long kx, ky;
    Py_ssize_t head, tail; /* -1: an empty slot */
} Cell;

typedef struct {
    Cell *cells;
    size_t mask;
    size_t used;
} CellMap;

static size_t
cell_hash(Py_UCS4 cp, long long kx, long long ky)
{
    uint64_t h = (uint64_t)cp * 0x9E3779B97F4A7C15ULL;
    h ^= (uint64_t)kx * 0xC2B2AE3D27D4EB4FULL + (h << 6) + (h >> 2);
    h ^= (uint64_t)ky * 0x165667B19E3779F9ULL + (h << 6) + (h >> 2);
    return (size_t)(h ^ (h >> 29));
}

static Cell *
cell_find(CellMap *m, Py_UCS4 cp, long long kx, long long ky)
{
    size_t i = cell_hash(cp, kx, ky) & m->mask;
    for (;;) {
        Cell *c = &m->cells[i];
        if (c->head < 0 || (c->cp == cp && c->kx == kx && c->ky == ky))
            return c;
        i = (i + 1) & m->mask;
    }
}

static int
repeats(const Kept *kept, const Cell *cell, unsigned long long obj, long long direction,
        double x, double y, double near)
{
    if (cell->head < 0)
        return 0;
    for (Py_ssize_t k = cell->head; k >= 0; k = kept[k].next) {
        const Kept *o = &kept[k];
        if (o->object != obj && o->direction == direction && fabs(o->x - x) < near
            && fabs(o->y - y) < near)
            return 1;
    }
    return 0;
}

/* Python's int(v // 1) for a finite float that fits; 0 when it does not */
static int
floor_int(double v, long long *out)
{
    if (!isfinite(v))
        return 0;
    double f = floor(v);
    if (f < -4e18 || f > 4e18)
        return 0;
    *out = (long long)f;
    return 1;
}

/* the single code point of a one-character str; 0 when it is anything else */
static int
one_char(PyObject *text, Py_UCS4 *cp)
{
    if (!text || !PyUnicode_CheckExact(text) || PyUnicode_GET_LENGTH(text) != 1)
        return 0;
    *cp = PyUnicode_READ_CHAR(text, 0);
    return 1;
}

static int
is_alef(Py_UCS4 cp)
{
    return cp == 0x0627 || cp == 0x0623 || cp == 0x0625 || cp == 0x0622 || cp == 0x0671;
}

/* glyphs(chars, direction) -> list of Glyph, or None: lines._glyphs */
static PyObject *
glyphs(PyObject *self, PyObject *args)
{
    PyObject *chars;
    long long direction;
    if (!PyArg_ParseTuple(args, "O!L", &PyList_Type, &chars, &direction))
        return NULL;
    READY_OR_NONE();
    Py_ssize_t n = PyList_GET_SIZE(chars);
    for (Py_ssize_t i = 0; i < n; i++)
        if (!Py_IS_TYPE(PyList_GET_ITEM(chars, i), char_type))
            Py_RETURN_NONE;
    Kept *kept = PyMem_Malloc((n ? n : 1) * sizeof(Kept));
    CellMap map = {NULL, 0, 0};
    size_t slots = 16;
    while (slots < (size_t)n * 2)
        slots <<= 1;
    map.cells = PyMem_Malloc(slots * sizeof(Cell));
    map.mask = slots - 1;
    PyObject *out = PyList_New(0);
    PyObject *rtl_cache = PyDict_New();
    if (!kept || !map.cells || !out || !rtl_cache) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto fail;
    }
    for (size_t s = 0; s < slots; s++)
        map.cells[s].head = -1;
    Py_ssize_t n_kept = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *c = PyList_GET_ITEM(chars, i);
        PyObject *text = FIELD(c, C_TEXT), *obj_o = FIELD(c, C_OBJECT);
        Py_UCS4 cp;
        unsigned long long obj;
        long long cdir, index;
        double tilt;
        if (!one_char(text, &cp) || !obj_o || !PyLong_CheckExact(obj_o)
            || !as_long(FIELD(c, C_DIRECTION), &cdir) || !as_long(FIELD(c, C_INDEX), &index)
            || !as_float(FIELD(c, C_TILT), &tilt))
            goto python;
        obj = PyLong_AsUnsignedLongLong(obj_o);
        if (obj == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_Clear();
            goto python;
        }
        int space = Py_UNICODE_ISSPACE(cp);
        if (obj && !space) {
            double size, origin[2];
            PyObject *o = FIELD(c, C_ORIGIN);
            if (!as_float(FIELD(c, C_SIZE), &size) || !o || !PyTuple_CheckExact(o)
                || PyTuple_GET_SIZE(o) != 2 || !as_float(PyTuple_GET_ITEM(o, 0), &origin[0])
                || !as_float(PyTuple_GET_ITEM(o, 1), &origin[1]))
                goto python;
            double near = 0.07 * (1.0 > size ? 1.0 : size);
            double x = origin[0], y = origin[1];
            double fx = x / 4, fy = y / 4;
            long long kx, ky;
            if (!floor_int(fx, &kx) || !floor_int(fy, &ky))
                goto python; /* Python's int() raises there: let it */
            Cell *own;
            if (near <= 2) {
                long long kx2 = fx - (double)kx >= 0.5 ? kx + 1 : kx - 1;
                long long ky2 = fy - (double)ky >= 0.5 ? ky + 1 : ky - 1;
                own = cell_find(&map, cp, kx, ky);
                if (repeats(kept, own, obj, cdir, x, y, near)
                    || repeats(kept, cell_find(&map, cp, kx, ky2), obj, cdir, x, y, near)
                    || repeats(kept, cell_find(&map, cp, kx2, ky), obj, cdir, x, y, near)
                    || repeats(kept, cell_find(&map, cp, kx2, ky2), obj, cdir, x, y, near))
                    continue;
            } else {
                int seen = 0;
                for (long long a = kx - 1; a <= kx + 1 && !seen; a++)
                    for (long long b = ky - 1; b <= ky + 1 && !seen; b++)
                        seen = repeats(kept, cell_find(&map, cp, a, b), obj, cdir, x, y, near);
                if (seen)
                    continue;
                own = cell_find(&map, cp, kx, ky);
            }
            Kept *k = &kept[n_kept];
            k->x = x;
            k->y = y;
            k->object = obj;
            k->direction = cdir;
            k->next = -1;
            if (own->head < 0) {
                own->cp = cp;
                own->kx = kx;
                own->ky = ky;
                own->head = own->tail = n_kept;
                map.used++;
            } else {
                kept[own->tail].next = n_kept;
                own->tail = n_kept;
            }
            n_kept++;
        }
        if (cdir != direction || tilt > number[K_MAX_TILT])
            continue;
        double b[4], l[4], baseline, org[2];
        PyObject *o = FIELD(c, C_ORIGIN);
        if (!four_floats(FIELD(c, C_BOX), b) || !four_floats(FIELD(c, C_LOOSE), l) || !o
            || !PyTuple_CheckExact(o) || PyTuple_GET_SIZE(o) != 2
            || !as_float(PyTuple_GET_ITEM(o, 0), &org[0])
            || !as_float(PyTuple_GET_ITEM(o, 1), &org[1]))
            goto python;
        PyObject *box = NULL, *loose = NULL;
        if (direction == 0) {
            box = FIELD(c, C_BOX);
            loose = FIELD(c, C_LOOSE);
            Py_INCREF(box);
            Py_INCREF(loose);
            baseline = org[1];
        } else {
            double ub[4], ul[4];
            /* lines.upright */
            double *src[2] = {b, l}, *dst[2] = {ub, ul};
            for (int k = 0; k < 2; k++) {
                double x0 = src[k][0], y0 = src[k][1], x1 = src[k][2], y1 = src[k][3];
                double *d = dst[k];
                if (direction == 90) {
                    d[0] = -y1; d[1] = x0; d[2] = -y0; d[3] = x1;
                } else if (direction == 180) {
                    d[0] = -x1; d[1] = -y1; d[2] = -x0; d[3] = -y0;
                } else if (direction == 270) {
                    d[0] = y0; d[1] = -x1; d[2] = y1; d[3] = -x0;
                } else {
                    d[0] = x0; d[1] = y0; d[2] = x1; d[3] = y1;
                }
            }
            memcpy(b, ub, sizeof b);
            memcpy(l, ul, sizeof l);
            if (direction == 90)
                baseline = org[0];
            else if (direction == 180)
                baseline = -org[1];
            else if (direction == 270)
                baseline = -org[0];
            else
                baseline = org[1];
            box = box_tuple(b[0], b[1], b[2], b[3]);
            loose = box_tuple(l[0], l[1], l[2], l[3]);
            if (!box || !loose) {
                Py_XDECREF(box);
                Py_XDECREF(loose);
                goto fail;
            }
        }
        double h = l[3] - l[1];
        if (h <= 0) {
            double a = b[3] - b[1];
            h = 1e-3 > a ? 1e-3 : a;
            l[1] = b[1];
            l[3] = b[3];
            Py_SETREF(loose, box_tuple(l[0], l[1], l[2], l[3]));
            if (!loose) {
                Py_DECREF(box);
                goto fail;
            }
        }
        if (!(l[1] - 0.1 * h <= baseline && baseline <= l[3] + 0.1 * h))
            baseline = l[3] - 0.2 * h;
        Glyph *g = PyObject_New(Glyph, &GlyphType);
        if (!g) {
            Py_DECREF(box);
            Py_DECREF(loose);
            goto fail;
        }
        Py_INCREF(c);
        g->chr = c;
        g->box = box;
        g->loose = loose;
        g->baseline = baseline;
        g->top = baseline - number[K_CORE] * h;
        g->bottom = baseline + 0.1 * h;
        g->height = l[3] - l[1];
        g->x0 = b[0]; g->y0 = b[1]; g->x1 = b[2]; g->y1 = b[3];
        g->lx0 = l[0]; g->ly0 = l[1]; g->lx1 = l[2]; g->ly1 = l[3];
        g->space = (char)space;
        g->index = index;
        g->vx = (b[0] + b[2]) / 2;
        int rtl = 0;
        if (cp >= 0x0590) { /* no right-to-left letter comes before Hebrew */
            PyObject *answer = PyDict_GetItemWithError(rtl_cache, text);
            if (answer) {
                rtl = answer == Py_True;
            } else if (!PyErr_Occurred()) {
                answer = PyObject_CallOneArg(is_rtl_char, text);
                if (answer) {
                    rtl = PyObject_IsTrue(answer);
                    if (rtl < 0 || PyDict_SetItem(rtl_cache, text, rtl ? Py_True : Py_False) < 0)
                        Py_CLEAR(answer);
                }
                if (!answer) {
                    Py_DECREF(g);
                    goto fail;
                }
                Py_DECREF(answer);
            } else {
                Py_DECREF(g);
                goto fail;
            }
        }
        if (rtl) {
            g->vmid = is_alef(cp) ? 0 : 1;
            g->vidx = -index;
        } else {
            g->vmid = 0;
            g->vidx = index;
        }
        if (PyList_Append(out, (PyObject *)g) < 0) {
            Py_DECREF(g);
            goto fail;
        }
        Py_DECREF(g);
    }
    PyMem_Free(kept);
    PyMem_Free(map.cells);
    Py_DECREF(rtl_cache);
    return out;
python:
    PyMem_Free(kept);
    PyMem_Free(map.cells);
    Py_XDECREF(out);
    Py_XDECREF(rtl_cache);
    Py_RETURN_NONE;
fail:
    PyMem_Free(kept);
    PyMem_Free(map.cells);
    Py_XDECREF(out);
    Py_XDECREF(rtl_cache);
    return NULL;
}

/* ------------------------------------------------------------------- groups -------- */

/* the glyphs of a list when all are Glyphs (borrowed), else NULL with no error */
static Glyph **
glyph_array(PyObject *list)
{
    Py_ssize_t n = PyList_GET_SIZE(list);
    for (Py_ssize_t i = 0; i < n; i++)
        if (!IS_GLYPH(PyList_GET_ITEM(list, i)))
            return NULL;
    return (Glyph **)((PyListObject *)list)->ob_item;
}

/* core_groups(glyphs) -> list of (members, [lo, hi]), or None: lines._core_groups */
static PyObject *
core_groups(PyObject *self, PyObject *args)
{
    PyObject *list;
    if (!PyArg_ParseTuple(args, "O!", &PyList_Type, &list))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(list);
    Glyph **gs = glyph_array(list);
    if (!gs)
        Py_RETURN_NONE;
    /* group of each glyph and the groups' extents, then the lists */
    Py_ssize_t *group_of = PyMem_Malloc((n ? n : 1) * sizeof(Py_ssize_t));
    double *ext = PyMem_Malloc((n ? n : 1) * 2 * sizeof(double));
    Py_ssize_t *sizes = PyMem_Calloc(n ? n : 1, sizeof(Py_ssize_t));
    PyObject *out = NULL;
    if (!group_of || !ext || !sizes) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t m = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        double lo = gs[i]->top, hi = gs[i]->bottom;
        Py_ssize_t best = -1;
        double best_score = number[K_LINE_OVERLAP];
        for (Py_ssize_t k = m > 4 ? m - 4 : 0; k < m; k++) {
            double e0 = ext[2 * k], e1 = ext[2 * k + 1];
            if (e1 <= lo || e0 >= hi)
                continue;
            double shorter = hi - lo < e1 - e0 ? hi - lo : e1 - e0;
            double score = ((hi < e1 ? hi : e1) - (lo > e0 ? lo : e0))
                           / (shorter > 1e-6 ? shorter : 1e-6);
            if (score > best_score) {
                best = k;
                best_score = score;
            }
        }
        if (best < 0) {
            ext[2 * m] = lo;
            ext[2 * m + 1] = hi;
            best = m++;
        } else {
            double e0 = ext[2 * best], e1 = ext[2 * best + 1];
            ext[2 * best] = lo < e0 ? lo : e0;
            ext[2 * best + 1] = hi > e1 ? hi : e1;
        }
        group_of[i] = best;
        sizes[best]++;
    }
    out = PyList_New(m);
    if (!out)
        goto done;
    for (Py_ssize_t k = 0; k < m; k++) {
        PyObject *members = PyList_New(sizes[k]);
        PyObject *e = Py_BuildValue("[dd]", ext[2 * k], ext[2 * k + 1]);
        PyObject *pair = members && e ? PyTuple_Pack(2, members, e) : NULL;
        Py_XDECREF(members);
        Py_XDECREF(e);
        if (!pair) {
            Py_CLEAR(out);
            goto done;
        }
        PyList_SET_ITEM(out, k, pair);
        sizes[k] = 0; /* filled again below */
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *members = PyTuple_GET_ITEM(PyList_GET_ITEM(out, group_of[i]), 0);
        Py_INCREF(gs[i]);
        PyList_SET_ITEM(members, sizes[group_of[i]]++, (PyObject *)gs[i]);
    }
done:
    PyMem_Free(group_of);
    PyMem_Free(ext);
    PyMem_Free(sizes);
    return out;
}

/* ------------------------------------------------------------------- pieces -------- */

static int
less_index(const void *ctx, Py_ssize_t a, Py_ssize_t b)
{
    Glyph *const *gs = ctx;
    return gs[a]->index < gs[b]->index;
}

typedef struct {
    Py_ssize_t first, count; /* into the order's runs */
    double x0, x1, top, bottom, height, baseline;
} Piece;

/* pieces(glyphs) -> list of columns._Piece, or None: columns._pieces */
static PyObject *
pieces(PyObject *self, PyObject *args)
{
    PyObject *list;
    if (!PyArg_ParseTuple(args, "O!", &PyList_Type, &list))
        return NULL;
    READY_OR_NONE();
    Py_ssize_t n = PyList_GET_SIZE(list);
    Glyph **gs = glyph_array(list);
    if (!gs)
        Py_RETURN_NONE;
    /* the glyphs' generated flags, read before anything is made */
    char *generated = PyMem_Malloc(n ? n : 1);
    if (!generated)
        return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *flag = gs[i]->space ? FIELD(gs[i]->chr, C_GENERATED) : Py_False;
        if (flag != Py_True && flag != Py_False) {
            PyMem_Free(generated);
            Py_RETURN_NONE;
        }
        generated[i] = flag == Py_True;
    }
    Py_ssize_t *order = sorted_indices(n, less_index, gs);
    Piece *ps = PyMem_Malloc((n ? n : 1) * sizeof(Piece));
    PyObject *out = NULL;
    if (!order || !ps) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto done;
    }
    /* the pieces take the glyphs in this order, so each piece is a run of it */
    Py_ssize_t m = 0;
    Piece *cur = NULL;
    int spaced = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        Glyph *g = gs[order[k]];
        if (g->space) {
            if (cur) {
                cur->count++;
                spaced = spaced || !generated[order[k]];
            }
            /* a space before the first piece is in none: drop it from the runs */
            else
                order[k] = -1;
            continue;
        }
        double h = g->height, left = g->lx0, right = g->lx1;
        if (cur) {
            double ch = cur->height;
            double near = h > ch ? h : ch;
            double gap = left - cur->x1, other = cur->x0 - right;
            if (other > gap)
                gap = other;
            if (0.0 > gap)
                gap = 0.0;
            double wide = (spaced ? number[K_SPACED_PIECE_GAP] : number[K_PIECE_GAP]) * near;
            spaced = 0;
            if (fabs(g->baseline - cur->baseline) <= number[K_PIECE_BASELINE] * near && gap <= wide) {
                cur->count++;
                double x0 = cur->x0, x1 = cur->x1;
                cur->x0 = left < x0 ? left : x0;
                cur->x1 = right > x1 ? right : x1;
                if (g->top < cur->top)
                    cur->top = g->top;
                if (g->bottom > cur->bottom)
                    cur->bottom = g->bottom;
                cur->height = near;
                cur->baseline = g->baseline;
                continue;
            }
        }
        cur = &ps[m++];
        cur->first = k;
        cur->count = 1;
        cur->x0 = left;
        cur->x1 = right;
        cur->top = g->top;
        cur->bottom = g->bottom;
        cur->height = h;
        cur->baseline = g->baseline;
    }
    out = PyList_New(m);
    if (!out)
        goto done;
    for (Py_ssize_t p = 0; p < m; p++) {
        Piece *pc = &ps[p];
        PyObject *members = PyList_New(pc->count);
        if (!members) {
            Py_CLEAR(out);
            goto done;
        }
        for (Py_ssize_t j = 0; j < pc->count; j++) {
            PyObject *g = (PyObject *)gs[order[pc->first + j]];
            Py_INCREF(g);
            PyList_SET_ITEM(members, j, g);
        }
        PyObject *piece = PyObject_CallFunction(piece_class, "Ndddddd", members, pc->x0, pc->x1,
                                                pc->top, pc->bottom, pc->height, pc->baseline);
        if (!piece) {
            Py_CLEAR(out);
            goto done;
        }
        PyList_SET_ITEM(out, p, piece);
    }
done:
    PyMem_Free(generated);
    PyMem_Free(order);
    PyMem_Free(ps);
    return out;
}

/* ------------------------------------------------------------------- module -------- */

static PyMethodDef methods[] = {
    {"setup", setup, METH_VARARGS,
     "setup(Char, is_rtl_char, Piece, numbers): the classes and rules' numbers the loops follow "
     "(see lines.compiled_lines)."},
    {"glyphs", glyphs, METH_VARARGS,
     "glyphs(chars, direction) -> list of Glyph, or None: lines._glyphs."},
    {"core_groups", core_groups, METH_VARARGS,
     "core_groups(glyphs) -> list of (members, [lo, hi]), or None: lines._core_groups."},
    {"pieces", pieces, METH_VARARGS, "pieces(glyphs) -> list of _Piece, or None: columns._pieces."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_lineloop",
                                    "lines.py's and columns.py's glyph loops in C (optional).",
                                    -1, methods};

PyMODINIT_FUNC
PyInit__lineloop(void)
{
    if (PyType_Ready(&GlyphType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    Py_INCREF(&GlyphType);
    if (PyModule_AddObject(m, "Glyph", (PyObject *)&GlyphType) < 0) {
        Py_DECREF(&GlyphType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
