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
static PyObject *bidi_class = NULL; /* bidi_order.bidi_class */
static PyObject *combining = NULL;  /* unicodedata.combining */
/* what the rules ask of a character, each asked of Python once per code point */
enum { KIND_RTL = 1, KIND_LTR = 2, KIND_COMBINING = 4, KIND_KNOWN = 8 };
static unsigned char bmp_kind[0x10000]; /* 0: not asked yet */
static PyObject *kinds = NULL;          /* beyond the BMP: text -> KIND_* bits */
/* lines.LIGATURES, as code points: a ligature and the letters it stands for */
#define MAX_LIGATURES 16
static struct { Py_UCS4 cp; Py_UCS4 letters[4]; int n; } ligature[MAX_LIGATURES];
static int n_ligatures = 0;
static PyObject *piece_class = NULL; /* columns._Piece */
/* the rules' numbers, from lines.py and columns.py (setup()): one place for each */
enum { K_MAX_TILT, K_CORE, K_LINE_OVERLAP, K_PIECE_GAP, K_SPACED_PIECE_GAP, K_PIECE_BASELINE,
       K_STANDARD_TOLERANCE, K_SCRIPT_SIZE, K_SPACE_GAP, K_SPACE_TOUCH, K_GUTTER, K_BAND_GAP,
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

/* the n floats of an n-tuple of floats (a box, an origin); 0 when it is anything else */
static int
tuple_floats(PyObject *t, int n, double *v)
{
    if (!t || !PyTuple_CheckExact(t) || PyTuple_GET_SIZE(t) != n)
        return 0;
    for (int k = 0; k < n; k++) {
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

static int one_char(PyObject *text, Py_UCS4 *cp);

static PyObject *
setup(PyObject *self, PyObject *args)
{
    PyObject *cls, *rtl, *comb, *ligatures, *piece, *numbers;
    if (!PyArg_ParseTuple(args, "O!OOO!OO!", &PyType_Type, &cls, &rtl, &comb, &PyDict_Type,
                          &ligatures, &piece, &PyTuple_Type, &numbers))
        return NULL;
    if (PyDict_GET_SIZE(ligatures) > MAX_LIGATURES) {
        PyErr_SetString(PyExc_ValueError, "setup: too many ligatures");
        return NULL;
    }
    Py_ssize_t pos = 0, k_lig = 0;
    PyObject *key, *value;
    while (PyDict_Next(ligatures, &pos, &key, &value)) {
        if (!one_char(key, &ligature[k_lig].cp) || !PyUnicode_CheckExact(value)
            || PyUnicode_GET_LENGTH(value) > 4) {
            PyErr_SetString(PyExc_ValueError, "setup: a ligature is one character for 1-4");
            return NULL;
        }
        ligature[k_lig].n = (int)PyUnicode_GET_LENGTH(value);
        for (int j = 0; j < ligature[k_lig].n; j++)
            ligature[k_lig].letters[j] = PyUnicode_READ_CHAR(value, j);
        k_lig++;
    }
    n_ligatures = (int)k_lig;
    if (!kinds && !(kinds = PyDict_New()))
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
    Py_XSETREF(bidi_class, rtl);
    Py_INCREF(comb);
    Py_XSETREF(combining, comb);
    PyDict_Clear(kinds);
    memset(bmp_kind, 0, sizeof bmp_kind);
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
    Cell *cells; /* twice as many slots as characters: never full */
    size_t mask;
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

/* a one-character text's KIND_* bits: a right-to-left letter (bidi class R or AL), a
 * left-to-right one (L), a combining mark; -1 on error */
static int
char_kind(PyObject *text, Py_UCS4 cp)
{
    if (cp < 0x10000 && bmp_kind[cp])
        return bmp_kind[cp] & ~KIND_KNOWN;
    if (cp >= 0x10000) {
        PyObject *known = PyDict_GetItemWithError(kinds, text);
        if (known)
            return (int)PyLong_AsLong(known);
        if (PyErr_Occurred())
            return -1;
    }
    int kind = 0;
    PyObject *answer = PyObject_CallOneArg(bidi_class, text);
    if (!answer)
        return -1;
    if (PyUnicode_CheckExact(answer)) {
        if (PyUnicode_CompareWithASCIIString(answer, "R") == 0
            || PyUnicode_CompareWithASCIIString(answer, "AL") == 0)
            kind |= KIND_RTL;
        else if (PyUnicode_CompareWithASCIIString(answer, "L") == 0)
            kind |= KIND_LTR;
    }
    Py_DECREF(answer);
    answer = PyObject_CallOneArg(combining, text);
    if (!answer)
        return -1;
    int yes = PyObject_IsTrue(answer);
    Py_DECREF(answer);
    if (yes < 0)
        return -1;
    kind |= yes ? KIND_COMBINING : 0;
    if (cp < 0x10000) {
        bmp_kind[cp] = (unsigned char)(kind | KIND_KNOWN);
        return kind;
    }
    PyObject *value = PyLong_FromLong(kind);
    if (!value || PyDict_SetItem(kinds, text, value) < 0) {
        Py_XDECREF(value);
        return -1;
    }
    Py_DECREF(value);
    return kind;
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
    CellMap map = {NULL, 0};
    size_t slots = 16;
    while (slots < (size_t)n * 2)
        slots <<= 1;
    map.cells = PyMem_Malloc(slots * sizeof(Cell));
    map.mask = slots - 1;
    PyObject *out = PyList_New(0);
    if (!kept || !map.cells || !out) {
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
            if (!as_float(FIELD(c, C_SIZE), &size) || !tuple_floats(FIELD(c, C_ORIGIN), 2, origin))
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
            } else {
                kept[own->tail].next = n_kept;
                own->tail = n_kept;
            }
            n_kept++;
        }
        if (cdir != direction || tilt > number[K_MAX_TILT])
            continue;
        double b[4], l[4], baseline, org[2];
        if (!tuple_floats(FIELD(c, C_BOX), 4, b) || !tuple_floats(FIELD(c, C_LOOSE), 4, l)
            || !tuple_floats(FIELD(c, C_ORIGIN), 2, org))
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
        int kind = cp >= 0x0590 ? char_kind(text, cp) : 0; /* no RTL letter before Hebrew */
        if (kind < 0) {
            Py_DECREF(g);
            goto fail;
        }
        int rtl = kind & KIND_RTL;
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
    return out;
python:
    PyMem_Free(kept);
    PyMem_Free(map.cells);
    Py_XDECREF(out);
    Py_RETURN_NONE;
fail:
    PyMem_Free(kept);
    PyMem_Free(map.cells);
    Py_XDECREF(out);
    return NULL;
}

/* ------------------------------------------------------------------- groups -------- */

/* the glyphs of a list when all are Glyphs (borrowed), else NULL with no error; a Glyph is
 * made only by glyphs(), after setup(), so a function given Glyphs needs no READY_OR_NONE */
static Glyph **
glyph_array(PyObject *list)
{
    Py_ssize_t n = PyList_GET_SIZE(list);
    for (Py_ssize_t i = 0; i < n; i++)
        if (!IS_GLYPH(PyList_GET_ITEM(list, i)))
            return NULL;
    return (Glyph **)((PyListObject *)list)->ob_item;
}

/* lines._core_groups' step for one glyph spanning [lo, hi]: the index of the group among the
   last four (extents in ext, two doubles each) it overlaps most, by more than `overlap` of the
   shorter span, with that group's extent widened to take it; else a new group's index */
static Py_ssize_t
join_core_group(double *ext, Py_ssize_t *n_groups, double lo, double hi, double overlap)
{
    Py_ssize_t m = *n_groups, best = -1;
    double best_score = overlap;
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
        *n_groups = m + 1;
        return m;
    }
    double e0 = ext[2 * best], e1 = ext[2 * best + 1];
    ext[2 * best] = lo < e0 ? lo : e0;
    ext[2 * best + 1] = hi > e1 ? hi : e1;
    return best;
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
        Py_ssize_t best = join_core_group(ext, &m, gs[i]->top, gs[i]->bottom, number[K_LINE_OVERLAP]);
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

/* ------------------------------------------------------------------- rows ---------- */

/* Python's min(a, b) and max(a, b): the first unless the second is smaller / larger (so a
 * zero keeps its sign as Python's does) */
#define PMIN(a, b) ((b) < (a) ? (b) : (a))
#define PMAX(a, b) ((b) > (a) ? (b) : (a))

typedef struct {
    Py_ssize_t *v;
    Py_ssize_t n, cap;
} Vec;

static int
vec_push(Vec *r, Py_ssize_t x)
{
    if (r->n == r->cap) {
        Py_ssize_t cap = r->cap ? 2 * r->cap : 8;
        Py_ssize_t *v = PyMem_Realloc(r->v, cap * sizeof(Py_ssize_t));
        if (!v) {
            PyErr_NoMemory();
            return -1;
        }
        r->v = v;
        r->cap = cap;
    }
    r->v[r->n++] = x;
    return 0;
}

static int
vec_extend(Vec *r, const Vec *more)
{
    for (Py_ssize_t k = 0; k < more->n; k++)
        if (vec_push(r, more->v[k]) < 0)
            return -1;
    return 0;
}

static void
vecs_free(Vec *rows, Py_ssize_t n)
{
    if (!rows)
        return;
    for (Py_ssize_t k = 0; k < n; k++)
        PyMem_Free(rows[k].v);
    PyMem_Free(rows);
}

/* every number the rows are formed from is finite (else Python's loops take the block:
 * a NaN would make sorted() depend on its algorithm) */
static int
finite_glyph(const Glyph *g)
{
    const double v[] = {g->baseline, g->top, g->bottom, g->height, g->x0, g->y0, g->x1, g->y1,
                        g->lx0, g->ly0, g->lx1, g->ly1, g->vx};
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
        if (!(fabs(v[k]) < 1e300))
            return 0;
    return 1;
}

typedef struct {
    Glyph **gs;
    const double *key0, *key1; /* for the sorts by number */
} SortCtx;

static int
less_row_key(const void *ctx, Py_ssize_t a, Py_ssize_t b)
{
    Glyph *const *gs = ((const SortCtx *)ctx)->gs;
    const Glyph *x = gs[a], *y = gs[b];
    return x->bottom < y->bottom || (x->bottom == y->bottom && x->x0 < y->x0);
}

static int
less_visual_key(const void *ctx, Py_ssize_t a, Py_ssize_t b)
{
    Glyph *const *gs = ((const SortCtx *)ctx)->gs;
    const Glyph *x = gs[a], *y = gs[b];
    if (x->vx != y->vx)
        return x->vx < y->vx;
    if (x->vmid != y->vmid)
        return x->vmid < y->vmid;
    return x->vidx < y->vidx;
}

/* idx[0..n-1] sorted stably (in place) by less over the glyphs gs[idx[...]] */
static int
sort_glyphs(Glyph **gs, Py_ssize_t *idx, Py_ssize_t n, Less less)
{
    Glyph **picked = PyMem_Malloc((n ? n : 1) * sizeof(Glyph *));
    Py_ssize_t *copy = PyMem_Malloc((n ? n : 1) * sizeof(Py_ssize_t));
    Py_ssize_t *o = NULL;
    if (picked && copy) {
        for (Py_ssize_t k = 0; k < n; k++)
            picked[k] = gs[idx[k]];
        SortCtx ctx = {picked, NULL, NULL};
        o = sorted_indices(n, less, &ctx);
    } else {
        PyErr_NoMemory();
    }
    if (o) {
        memcpy(copy, idx, n * sizeof(Py_ssize_t));
        for (Py_ssize_t k = 0; k < n; k++)
            idx[k] = copy[o[k]];
    }
    PyMem_Free(picked);
    PyMem_Free(copy);
    PyMem_Free(o);
    return o ? 0 : -1;
}

static int
less_key0(const void *ctx, Py_ssize_t a, Py_ssize_t b)
{
    const double *k = ((const SortCtx *)ctx)->key0;
    return k[a] < k[b];
}

static int
less_key01(const void *ctx, Py_ssize_t a, Py_ssize_t b)
{
    const double *k0 = ((const SortCtx *)ctx)->key0, *k1 = ((const SortCtx *)ctx)->key1;
    return k0[a] < k0[b] || (k0[a] == k0[b] && k1[a] < k1[b]);
}

static int
less_double(const void *ctx, Py_ssize_t a, Py_ssize_t b)
{
    const double *v = ctx;
    return v[a] < v[b];
}

/* values sorted ascending in place (a small insertion sort for short runs) */
static int
sort_doubles(double *v, Py_ssize_t n)
{
    Py_ssize_t *order = sorted_indices(n, less_double, v);
    if (!order)
        return -1;
    double *tmp = PyMem_Malloc((n ? n : 1) * sizeof(double));
    if (!tmp) {
        PyMem_Free(order);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t k = 0; k < n; k++)
        tmp[k] = v[order[k]];
    memcpy(v, tmp, n * sizeof(double));
    PyMem_Free(tmp);
    PyMem_Free(order);
    return 0;
}

/* lines._main_height over glyphs gs[idx[0..n-1]] (n > 0); -1 with an error set on failure
 * is told by *ok = 0 */
static double
main_height(Glyph **gs, const Py_ssize_t *idx, Py_ssize_t n, int *ok)
{
    double *h = PyMem_Malloc(n * sizeof(double));
    *ok = 0;
    if (!h) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t k = 0; k < n; k++)
        h[k] = gs[idx[k]]->height;
    if (sort_doubles(h, n) < 0) {
        PyMem_Free(h);
        return -1;
    }
    Py_ssize_t need = n / 4 > 1 ? n / 4 : 1;
    double found = h[n - 1];
    for (Py_ssize_t k = n - 1; k >= 0; k--) {
        double x = 0.95 * h[k];
        Py_ssize_t lo = 0, hi = n; /* bisect.bisect_left(h, x) */
        while (lo < hi) {
            Py_ssize_t mid = (lo + hi) / 2;
            if (h[mid] < x)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (n - lo >= need) {
            found = h[k];
            break;
        }
    }
    PyMem_Free(h);
    *ok = 1;
    return found;
}

/* the middle of the sorted values (sorted[len // 2]); values are overwritten */
static int
upper_median(double *v, Py_ssize_t n, double *out)
{
    if (sort_doubles(v, n) < 0)
        return -1;
    *out = v[n / 2];
    return 0;
}

/* lines._join_scripts over rows[0..*m-1]; *m becomes the count kept */
static int
join_scripts(Glyph **gs, Vec *rows, Py_ssize_t *m)
{
    Py_ssize_t n = *m;
    if (n < 2)
        return 0;
    double *facts = PyMem_Malloc(n * 4 * sizeof(double)); /* h, base, x0, x1 */
    double *bases = PyMem_Malloc(n * sizeof(double));
    char *gone = PyMem_Calloc(n, 1);
    Py_ssize_t *order = NULL;
    int rc = -1;
    if (!facts || !bases || !gone) {
        PyErr_NoMemory();
        goto done;
    }
    double script_size = number[K_SCRIPT_SIZE];
    for (Py_ssize_t k = 0; k < n; k++) {
        Vec *r = &rows[k];
        int ok;
        double h = main_height(gs, r->v, r->n, &ok);
        if (!ok)
            goto done;
        double *b = PyMem_Malloc(r->n * sizeof(double));
        if (!b) {
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t j = 0; j < r->n; j++)
            b[j] = gs[r->v[j]]->baseline;
        double base;
        int bad = upper_median(b, r->n, &base);
        PyMem_Free(b);
        if (bad < 0)
            goto done;
        double x0 = gs[r->v[0]]->lx0, x1 = gs[r->v[0]]->lx1;
        for (Py_ssize_t j = 1; j < r->n; j++) {
            const Glyph *g = gs[r->v[j]];
            if (g->lx0 < x0)
                x0 = g->lx0;
            if (g->lx1 > x1)
                x1 = g->lx1;
        }
        facts[4 * k] = h;
        facts[4 * k + 1] = base;
        facts[4 * k + 2] = x0;
        facts[4 * k + 3] = x1;
        bases[k] = base;
    }
    SortCtx ctx = {gs, bases, NULL};
    order = sorted_indices(n, less_key0, &ctx);
    if (!order)
        goto done;
    for (Py_ssize_t pos = 0; pos < n; pos++) {
        Py_ssize_t k = order[pos], best = -1;
        double h = facts[4 * k], base = facts[4 * k + 1], x0 = facts[4 * k + 2],
               x1 = facts[4 * k + 3];
        for (int side = 0; side < 2; side++) {
            Py_ssize_t near = side ? pos + 1 : pos - 1;
            if (!(0 <= near && near < n) || gone[order[near]])
                continue;
            Py_ssize_t j = order[near];
            double hj = facts[4 * j], bj = facts[4 * j + 1], xj0 = facts[4 * j + 2],
                   xj1 = facts[4 * j + 3];
            if (h <= script_size * hj && fabs(base - bj) <= 0.5 * hj && x0 >= xj0 - 0.5 * hj
                && x1 <= xj1 + 0.5 * hj) {
                if (best < 0 || fabs(base - bj) < fabs(base - facts[4 * best + 1]))
                    best = j;
            }
        }
        if (best >= 0) {
            if (vec_extend(&rows[best], &rows[k]) < 0)
                goto done;
            gone[k] = 1;
        }
    }
    Py_ssize_t kept = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        if (gone[k]) {
            PyMem_Free(rows[k].v);
            continue;
        }
        rows[kept++] = rows[k];
    }
    *m = kept;
    rc = 0;
done:
    PyMem_Free(facts);
    PyMem_Free(bases);
    PyMem_Free(gone);
    PyMem_Free(order);
    return rc;
}

/* rows(glyphs, split_gap) -> list of rows (lists of Glyph) in reading order, or None:
 * lines._lines up to the lines themselves (rows of cores, scripts joined, spaces placed,
 * each row left to right, cut at wide gaps when split_gap is a number) */
static PyObject *
rows(PyObject *self, PyObject *args)
{
    PyObject *list, *split_o;
    if (!PyArg_ParseTuple(args, "O!O", &PyList_Type, &list, &split_o))
        return NULL;
    double split_gap = 0;
    long long whole;
    if (split_o != Py_None && !as_float(split_o, &split_gap)) {
        if (!as_long(split_o, &whole) || whole > (1LL << 53) || whole < -(1LL << 53))
            Py_RETURN_NONE;
        split_gap = (double)whole; /* int * float converts the int first, exactly */
    }
    Py_ssize_t n = PyList_GET_SIZE(list);
    Glyph **gs = glyph_array(list);
    if (!gs)
        Py_RETURN_NONE;
    double *tilt = PyMem_Malloc((n ? n : 1) * sizeof(double));
    if (!tilt)
        return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!finite_glyph(gs[i]) || !as_float(FIELD(gs[i]->chr, C_TILT), &tilt[i])) {
            PyMem_Free(tilt);
            Py_RETURN_NONE;
        }
    }
    PyObject *out = NULL;
    Py_ssize_t *solid = PyMem_Malloc((n ? n : 1) * sizeof(Py_ssize_t));
    double *ext = PyMem_Malloc((n ? n : 1) * 2 * sizeof(double));
    double *k0 = PyMem_Malloc((n ? n : 1) * 2 * sizeof(double)), *k1 = k0 ? k0 + (n ? n : 1) : NULL;
    Py_ssize_t *by = NULL;
    Vec *groups = PyMem_Calloc(n ? n : 1, sizeof(Vec));
    Vec *merged = PyMem_Calloc(n ? n : 1, sizeof(Vec));
    Vec *pieces = NULL;
    Py_ssize_t n_groups = 0, n_merged = 0, n_pieces = 0;
    double *mext = PyMem_Malloc((n ? n : 1) * 2 * sizeof(double));
    if (!solid || !ext || !k0 || !groups || !merged || !mext) {
        PyErr_NoMemory();
        goto done;
    }
    /* solid glyphs by (bottom, left) */
    Py_ssize_t ns = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        if (!gs[i]->space)
            solid[ns++] = i;
    if (sort_glyphs(gs, solid, ns, less_row_key) < 0)
        goto done;
    /* _core_groups */
    double overlap = number[K_LINE_OVERLAP];
    for (Py_ssize_t k = 0; k < ns; k++) {
        const Glyph *g = gs[solid[k]];
        Py_ssize_t best = join_core_group(ext, &n_groups, g->top, g->bottom, overlap);
        if (vec_push(&groups[best], solid[k]) < 0)
            goto done;
    }
    /* _rows: groups by their extents' bottoms, each joined to a recent one it overlaps */
    {
        for (Py_ssize_t q = 0; q < n_groups; q++)
            k0[q] = ext[2 * q + 1];
        SortCtx ctx = {gs, k0, NULL};
        by = sorted_indices(n_groups, less_key0, &ctx);
        if (!by)
            goto done;
        for (Py_ssize_t t = 0; t < n_groups; t++) {
            Py_ssize_t q = by[t];
            double lo = ext[2 * q], hi = ext[2 * q + 1];
            Py_ssize_t joined = -1;
            for (Py_ssize_t o = n_merged - 1; o >= 0 && o >= n_merged - 4; o--) {
                double e0 = mext[2 * o], e1 = mext[2 * o + 1];
                /* _overlap(lo, hi, ext) */
                double shorter = PMIN(hi - lo, e1 - e0);
                double share = (PMIN(hi, e1) - PMAX(lo, e0)) / PMAX(shorter, 1e-6);
                if (share > overlap) {
                    joined = o;
                    break;
                }
            }
            if (joined >= 0) {
                if (vec_extend(&merged[joined], &groups[q]) < 0)
                    goto done;
                mext[2 * joined] = PMIN(mext[2 * joined], lo);
                mext[2 * joined + 1] = PMAX(mext[2 * joined + 1], hi);
            } else {
                merged[n_merged] = groups[q];
                groups[q] = (Vec){NULL, 0, 0};
                mext[2 * n_merged] = lo;
                mext[2 * n_merged + 1] = hi;
                n_merged++;
            }
        }
        PyMem_Free(by);
        by = NULL;
    }
    if (join_scripts(gs, merged, &n_merged) < 0)
        goto done;
    /* rows with no upright glyph (a diagonal watermark) are dropped */
    {
        Py_ssize_t kept = 0;
        double tolerance = number[K_STANDARD_TOLERANCE];
        for (Py_ssize_t q = 0; q < n_merged; q++) {
            int upright_one = 0;
            for (Py_ssize_t j = 0; j < merged[q].n && !upright_one; j++)
                upright_one = tilt[merged[q].v[j]] <= tolerance;
            if (upright_one)
                merged[kept++] = merged[q];
            else
                PyMem_Free(merged[q].v);
        }
        n_merged = kept;
    }
    /* the rows by their cores' tops; each space goes to the row whose band holds it */
    {
        for (Py_ssize_t q = 0; q < n_merged; q++) {
            Vec *r = &merged[q];
            double top = gs[r->v[0]]->top, bottom = gs[r->v[0]]->bottom;
            for (Py_ssize_t j = 1; j < r->n; j++) {
                const Glyph *g = gs[r->v[j]];
                if (g->top < top)
                    top = g->top;
                if (g->bottom > bottom)
                    bottom = g->bottom;
            }
            k0[q] = top;
            k1[q] = bottom;
        }
        SortCtx ctx = {gs, k0, NULL};
        by = sorted_indices(n_merged, less_key0, &ctx);
        if (!by)
            goto done;
        Vec *sorted_rows = PyMem_Malloc((n_merged ? n_merged : 1) * sizeof(Vec));
        double *tops = PyMem_Malloc((n_merged ? n_merged : 1) * 4 * sizeof(double));
        if (!sorted_rows || !tops) {
            PyMem_Free(sorted_rows);
            PyMem_Free(tops);
            PyErr_NoMemory();
            goto done;
        }
        double *bottoms = tops + n_merged, *ext_lo = tops + 2 * n_merged,
               *ext_hi = tops + 3 * n_merged;
        for (Py_ssize_t t = 0; t < n_merged; t++) {
            sorted_rows[t] = merged[by[t]];
            tops[t] = k0[by[t]];
            bottoms[t] = k1[by[t]];
        }
        memcpy(merged, sorted_rows, n_merged * sizeof(Vec));
        PyMem_Free(sorted_rows);
        int extents = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            const Glyph *g = gs[i];
            if (!g->space)
                continue;
            Py_ssize_t home = -1;
            double x = g->baseline + 0.25 * g->height;
            Py_ssize_t lo = 0, hi = n_merged; /* bisect.bisect_right(tops, x) */
            while (lo < hi) {
                Py_ssize_t mid = (lo + hi) / 2;
                if (x < tops[mid])
                    hi = mid;
                else
                    lo = mid + 1;
            }
            Py_ssize_t k = lo;
            Py_ssize_t from = k - 4 > 0 ? k - 4 : 0, to = n_merged < k + 1 ? n_merged : k + 1;
            for (Py_ssize_t j = from; j < to; j++) {
                if (tops[j] - 0.25 * g->height <= g->baseline
                    && g->baseline <= bottoms[j] + 0.25 * g->height) {
                    home = j;
                    break;
                }
            }
            if (home < 0) {
                if (!extents) { /* the rows' loose extents, as they stand now */
                    for (Py_ssize_t q = 0; q < n_merged; q++) {
                        Vec *r = &merged[q];
                        double a = gs[r->v[0]]->ly0, b = gs[r->v[0]]->ly1;
                        for (Py_ssize_t j = 1; j < r->n; j++) {
                            if (gs[r->v[j]]->ly0 < a)
                                a = gs[r->v[j]]->ly0;
                            if (gs[r->v[j]]->ly1 > b)
                                b = gs[r->v[j]]->ly1;
                        }
                        ext_lo[q] = a;
                        ext_hi[q] = b;
                    }
                    extents = 1;
                }
                double cy = (g->ly0 + g->ly1) / 2;
                for (Py_ssize_t j = from; j < to; j++) {
                    if (ext_lo[j] <= cy && cy <= ext_hi[j]) {
                        home = j;
                        break;
                    }
                }
            }
            if (home >= 0 && vec_push(&merged[home], i) < 0) {
                PyMem_Free(tops);
                goto done;
            }
        }
        PyMem_Free(tops);
        PyMem_Free(by);
        by = NULL;
    }
    /* each row left to right (its visual order) */
    for (Py_ssize_t q = 0; q < n_merged; q++)
        if (sort_glyphs(gs, merged[q].v, merged[q].n, less_visual_key) < 0)
            goto done;
    /* _split_row: cut at gaps wider than split_gap times the row's tallest glyph */
    if (split_o != Py_None) {
        pieces = PyMem_Calloc(n ? n : 1, sizeof(Vec));
        if (!pieces) {
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t q = 0; q < n_merged; q++) {
            Vec *r = &merged[q];
            double height = 0;
            int any = 0;
            for (Py_ssize_t j = 0; j < r->n; j++) {
                const Glyph *g = gs[r->v[j]];
                if (g->space)
                    continue;
                if (!any || g->height > height) /* max(): the first unless larger */
                    height = g->height;
                any = 1;
            }
            if (!any)
                continue;
            Py_ssize_t prev = -1;
            Vec current = {NULL, 0, 0};
            int current_solid = 0;
            for (Py_ssize_t j = 0; j < r->n; j++) {
                const Glyph *g = gs[r->v[j]];
                if (!g->space && prev >= 0 && g->lx0 - gs[prev]->lx1 > split_gap * height) {
                    if (current_solid)
                        pieces[n_pieces++] = current;
                    else
                        PyMem_Free(current.v);
                    current = (Vec){NULL, 0, 0};
                    current_solid = 0;
                }
                if (vec_push(&current, r->v[j]) < 0) {
                    PyMem_Free(current.v);
                    goto done;
                }
                if (!g->space) {
                    current_solid = 1;
                    prev = r->v[j];
                }
            }
            if (current_solid)
                pieces[n_pieces++] = current;
            else
                PyMem_Free(current.v);
        }
        vecs_free(merged, n_merged);
        merged = pieces;
        n_merged = n_pieces;
        pieces = NULL;
    }
    /* the rows in reading order: by (lowest core bottom, leftmost box) */
    for (Py_ssize_t q = 0; q < n_merged; q++) {
        Vec *r = &merged[q];
        double bottom = gs[r->v[0]]->bottom, left = gs[r->v[0]]->x0;
        for (Py_ssize_t j = 1; j < r->n; j++) {
            if (gs[r->v[j]]->bottom < bottom)
                bottom = gs[r->v[j]]->bottom;
            if (gs[r->v[j]]->x0 < left)
                left = gs[r->v[j]]->x0;
        }
        k0[q] = bottom;
        k1[q] = left;
    }
    {
        SortCtx ctx = {gs, k0, k1};
        by = sorted_indices(n_merged, less_key01, &ctx);
        if (!by)
            goto done;
    }
    out = PyList_New(n_merged);
    if (!out)
        goto done;
    for (Py_ssize_t t = 0; t < n_merged; t++) {
        Vec *r = &merged[by[t]];
        PyObject *row = PyList_New(r->n);
        if (!row) {
            Py_CLEAR(out);
            goto done;
        }
        for (Py_ssize_t j = 0; j < r->n; j++) {
            PyObject *g = (PyObject *)gs[r->v[j]];
            Py_INCREF(g);
            PyList_SET_ITEM(row, j, g);
        }
        PyList_SET_ITEM(out, t, row);
    }
done:
    PyMem_Free(tilt);
    PyMem_Free(solid);
    PyMem_Free(ext);
    PyMem_Free(k0);
    PyMem_Free(by);
    PyMem_Free(mext);
    vecs_free(groups, n_groups);
    vecs_free(merged, n_merged);
    vecs_free(pieces, n_pieces);
    return out;
}

/* ------------------------------------------------------------------- line ---------- */

/* lines.SPACING_ACCENTS' keys: a line with one goes to Python (accents are composed there) */
static int
is_spacing_accent(Py_UCS4 cp)
{
    switch (cp) {
    case 0x00A8: case 0x00B4: case 0x0060: case 0x02C6: case 0x005E: case 0x02DC: case 0x007E:
    case 0x00B8: case 0x02DA: case 0x02C7: case 0x00AF: case 0x02D8: case 0x02D9: case 0x02DD:
    case 0x02DB:
        return 1;
    default:
        return 0;
    }
}

/* Arabic letters in their drawn shapes (lines._PRESENTATION_FORMS): _clean's rule, in Python */
static int
is_presentation_form(Py_UCS4 cp)
{
    return (cp >= 0xFB50 && cp <= 0xFDFF) || (cp >= 0xFE70 && cp <= 0xFEFE);
}

/* lines.is_cjk */
static int
is_cjk(Py_UCS4 o)
{
    return (0x3040 <= o && o <= 0x30FF) || (0x3400 <= o && o <= 0x4DBF)
           || (0x4E00 <= o && o <= 0x9FFF) || (0xF900 <= o && o <= 0xFAFF)
           || (0xAC00 <= o && o <= 0xD7AF) || (0x20000 <= o && o <= 0x2FA1F)
           || (0x3000 <= o && o <= 0x303F) || (0xFF00 <= o && o <= 0xFFEF);
}

/* lines._is_han_kana: Chinese or Japanese script (not Hangul) */
static int
is_han_kana(Py_UCS4 o)
{
    return is_cjk(o) && !(0xAC00 <= o && o <= 0xD7AF);
}

/* the letters a ligature stands for written at buf + *len (lines._clean) */
static void
put_text(Py_UCS4 *buf, Py_ssize_t *len, Py_UCS4 cp)
{
    for (int k = 0; k < n_ligatures; k++) {
        if (ligature[k].cp == cp) {
            for (int j = 0; j < ligature[k].n; j++)
                buf[(*len)++] = ligature[k].letters[j];
            return;
        }
    }
    buf[(*len)++] = cp;
}

/* lines._median: the middle value, or the mean of the two middle ones */
static int
median(double *v, Py_ssize_t n, double *out)
{
    if (sort_doubles(v, n) < 0)
        return -1;
    *out = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    return 0;
}

enum { NO_SCRIPT, SUP, SUB };
enum { NO_SPACE, GENERATED_SPACE, PDF_SPACE };

/* "<sup>" or "<sub>", or its closing tag, written at buf + *len */
static void
put_tag(Py_UCS4 *buf, Py_ssize_t *len, char script, int closing)
{
    const char *text = closing ? (script == SUP ? "</sup>" : "</sub>")
                               : (script == SUP ? "<sup>" : "<sub>");
    while (*text)
        buf[(*len)++] = (Py_UCS4)*text++;
}

/* line(row) -> (chars, box, text, height, size, bold, italic), or None: lines._make_line for
 * a row without combining marks, right-to-left letters, spacing accents or presentation
 * forms (their rules stay in Python) */
static PyObject *
line(PyObject *self, PyObject *args)
{
    PyObject *list;
    if (!PyArg_ParseTuple(args, "O!", &PyList_Type, &list))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(list);
    Glyph **gs = glyph_array(list);
    if (!gs || n == 0)
        Py_RETURN_NONE;
    PyObject *out = NULL, *cs = NULL;
    Py_UCS4 *cps = PyMem_Malloc(n * sizeof(Py_UCS4));
    char *flags = PyMem_Malloc(n); /* bit 0 generated, 1 hyphen, 2 bold, 3 italic */
    double *sizes = PyMem_Malloc(n * sizeof(double));
    double *work = PyMem_Malloc(n * sizeof(double));
    Py_ssize_t *solid = PyMem_Malloc(n * sizeof(Py_ssize_t));
    Py_ssize_t *body = PyMem_Malloc(n * sizeof(Py_ssize_t));
    /* parts: at most a space before each glyph; tags add at most 11 characters per part */
    Py_UCS4 *part_text = PyMem_Malloc(2 * n * sizeof(Py_UCS4));
    char *part_script = PyMem_Malloc(2 * n);
    Py_UCS4 *buf = PyMem_Malloc(2 * n * 16 * sizeof(Py_UCS4)); /* a ligature: 4 letters */
    if (!cps || !flags || !sizes || !work || !solid || !body || !part_text || !part_script
        || !buf) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t ns = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *c = gs[i]->chr;
        if (!one_char(FIELD(c, C_TEXT), &cps[i]))
            goto python;
        PyObject *f[4] = {FIELD(c, C_GENERATED), FIELD(c, C_HYPHEN), FIELD(c, C_BOLD),
                          FIELD(c, C_ITALIC)};
        flags[i] = 0;
        for (int k = 0; k < 4; k++) {
            if (f[k] != Py_True && f[k] != Py_False)
                goto python;
            if (f[k] == Py_True)
                flags[i] |= (char)(1 << k);
        }
        if (gs[i]->space)
            continue;
        int kind = char_kind(FIELD(c, C_TEXT), cps[i]);
        if (kind < 0)
            goto done;
        if (kind & (KIND_RTL | KIND_COMBINING) || is_spacing_accent(cps[i]) || is_presentation_form(cps[i]) || !finite_glyph(gs[i])
            || !as_float(FIELD(c, C_SIZE), &sizes[i]) || isnan(sizes[i]))
            goto python;
        solid[ns++] = i;
    }
    if (ns == 0)
        goto python;
    /* _line_text: the line's font height, its body glyphs, their baseline and width */
    int ok;
    double main = main_height(gs, solid, ns, &ok);
    if (!ok)
        goto done;
    double script_size = number[K_SCRIPT_SIZE];
    Py_ssize_t nb = 0;
    for (Py_ssize_t k = 0; k < ns; k++)
        if (gs[solid[k]]->height >= script_size * main)
            body[nb++] = solid[k];
    if (nb == 0) {
        memcpy(body, solid, ns * sizeof(Py_ssize_t));
        nb = ns;
    }
    double baseline, width;
    for (Py_ssize_t k = 0; k < nb; k++)
        work[k] = gs[body[k]]->baseline;
    if (median(work, nb, &baseline) < 0)
        goto done;
    for (Py_ssize_t k = 0; k < nb; k++) {
        double w = gs[body[k]]->lx1 - gs[body[k]]->lx0;
        work[k] = 1e-3 > w ? 1e-3 : w;
    }
    if (median(work, nb, &width) < 0)
        goto done;
    double small = script_size * main, sup = baseline - 0.2 * main, sub = baseline + 0.1 * main;
    double spaced = number[K_SPACE_GAP] * width, touch = number[K_SPACE_TOUCH] * width;
    Py_ssize_t np = 0;
    int has_right = 0, space = NO_SPACE, scripts = 0;
    double right = 0;
    Py_UCS4 last = 0; /* the last part's text, once there is one */
    for (Py_ssize_t i = 0; i < n; i++) {
        const Glyph *g = gs[i];
        if (g->space) {
            if (has_right && space != PDF_SPACE)
                space = flags[i] & 1 ? GENERATED_SPACE : PDF_SPACE;
            continue;
        }
        char script = NO_SCRIPT;
        if (g->height < small) {
            if (g->baseline < sup)
                script = SUP;
            else if (g->baseline > sub)
                script = SUB;
        }
        if (has_right) {
            double gap = g->lx0 - right;
            /* between Chinese or Japanese characters only the file's own spaces count */
            int wide = gap > spaced
                       && !(cps[i] >= 0x3000 && is_han_kana(last) && is_han_kana(cps[i]));
            if ((space == PDF_SPACE && gap > touch) || wide) {
                part_text[np] = ' ';
                part_script[np] = script && part_script[np - 1] == script ? script : NO_SCRIPT;
                np++;
            }
        }
        part_text[np] = flags[i] & 2 ? 0x02 : cps[i];
        part_script[np] = script;
        last = part_text[np];
        np++;
        if (script)
            scripts = 1;
        double edge = g->lx1;
        right = !has_right || edge > right ? edge : right;
        has_right = 1;
        space = NO_SPACE;
    }
    Py_ssize_t len = 0;
    if (!scripts) {
        for (Py_ssize_t k = 0; k < np; k++)
            put_text(buf, &len, part_text[k]);
    } else {
        char current = NO_SCRIPT;
        for (Py_ssize_t k = 0; k < np; k++) {
            char script = part_script[k];
            if (script != current) {
                if (current)
                    put_tag(buf, &len, current, 1);
                if (script)
                    put_tag(buf, &len, script, 0);
                current = script;
            }
            put_text(buf, &len, part_text[k]);
        }
        if (current)
            put_tag(buf, &len, current, 1);
    }
    /* _clean and strip() leave such a line as it is; a line they would change goes to Python */
    if (len == 0 || Py_UNICODE_ISSPACE(buf[0]) || Py_UNICODE_ISSPACE(buf[len - 1]))
        goto python;
    /* _make_line: the characters, the union of the solid ones' boxes, size, bold, italic */
    double box[4], u[4];
    for (Py_ssize_t k = 0; k < ns; k++) {
        if (!tuple_floats(FIELD(gs[solid[k]]->chr, C_BOX), 4, u))
            goto python;
        if (k == 0) {
            memcpy(box, u, sizeof box);
            continue;
        }
        if (u[0] < box[0])
            box[0] = u[0];
        if (u[1] < box[1])
            box[1] = u[1];
        if (u[2] > box[2])
            box[2] = u[2];
        if (u[3] > box[3])
            box[3] = u[3];
    }
    for (Py_ssize_t k = 0; k < nb; k++)
        work[k] = sizes[body[k]];
    double size;
    if (upper_median(work, nb, &size) < 0)
        goto done;
    Py_ssize_t letters = 0, bold = 0, italic = 0;
    for (Py_ssize_t k = 0; k < nb; k++) {
        if (Py_UNICODE_ISALNUM(cps[body[k]])) {
            letters++;
            bold += (flags[body[k]] & 4) != 0;
            italic += (flags[body[k]] & 8) != 0;
        }
    }
    if (letters == 0) {
        for (Py_ssize_t k = 0; k < nb; k++) {
            bold += (flags[body[k]] & 4) != 0;
            italic += (flags[body[k]] & 8) != 0;
        }
        letters = nb;
    }
    cs = PyList_New(n);
    if (!cs)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_INCREF(gs[i]->chr);
        PyList_SET_ITEM(cs, i, gs[i]->chr);
    }
    PyObject *text = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, len);
    if (!text)
        goto done;
    out = Py_BuildValue("(O(dddd)NddOO)", cs, box[0], box[1], box[2], box[3], text, main, size, bold * 2 > letters ? Py_True : Py_False,
                        italic * 2 > letters ? Py_True : Py_False);
    goto done;
python:
    out = Py_None;
    Py_INCREF(out);
done:
    Py_XDECREF(cs);
    PyMem_Free(cps);
    PyMem_Free(flags);
    PyMem_Free(sizes);
    PyMem_Free(work);
    PyMem_Free(solid);
    PyMem_Free(body);
    PyMem_Free(part_text);
    PyMem_Free(part_script);
    PyMem_Free(buf);
    return out;
}

/* ------------------------------------------------------------------- scripts ------- */

/* letters(glyphs) -> (cjk, right_to_left, left_to_right), or None: how many glyphs are CJK
 * characters (lines.is_cjk), strong right-to-left letters and left-to-right ones
 * (bidi_order.bidi_class R or AL, and L) */
static PyObject *
letters(PyObject *self, PyObject *args)
{
    PyObject *list;
    if (!PyArg_ParseTuple(args, "O!", &PyList_Type, &list))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(list), cjk = 0, rtl = 0, ltr = 0;
    Glyph **gs = glyph_array(list);
    if (!gs)
        Py_RETURN_NONE;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *text = FIELD(gs[i]->chr, C_TEXT);
        Py_UCS4 cp;
        if (!one_char(text, &cp))
            Py_RETURN_NONE;
        int kind = char_kind(text, cp);
        if (kind < 0)
            return NULL;
        cjk += is_cjk(cp);
        rtl += (kind & KIND_RTL) != 0;
        ltr += (kind & KIND_LTR) != 0;
    }
    return Py_BuildValue("(nnn)", cjk, rtl, ltr);
}

/* ------------------------------------------------------------------- cuts ---------- */

/* columns._cut's pieces, as numbers */
typedef struct {
    const double *x0, *x1, *top, *bottom;
} PieceBoxes;

typedef struct {
    Py_ssize_t *idx; /* pieces, in the order the Python lists hold them */
    Py_ssize_t m;
    Py_ssize_t stretch; /* -1: None */
    Py_ssize_t column;
} Part;

/* idx[0..m-1] sorted stably by key[idx] (in place) */
static int
sort_by(Py_ssize_t *idx, Py_ssize_t m, const double *key)
{
    double *k = PyMem_Malloc((m ? m : 1) * sizeof(double));
    Py_ssize_t *copy = PyMem_Malloc((m ? m : 1) * sizeof(Py_ssize_t));
    if (!k || !copy) {
        PyMem_Free(k);
        PyMem_Free(copy);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t t = 0; t < m; t++)
        k[t] = key[idx[t]];
    Py_ssize_t *o = sorted_indices(m, less_double, k);
    if (!o) {
        PyMem_Free(k);
        PyMem_Free(copy);
        return -1;
    }
    memcpy(copy, idx, m * sizeof(Py_ssize_t));
    for (Py_ssize_t t = 0; t < m; t++)
        idx[t] = copy[o[t]];
    PyMem_Free(o);
    PyMem_Free(k);
    PyMem_Free(copy);
    return 0;
}

/* columns._split: items sorted (in place) and the start of each group in starts[];
 * returns the number of groups, -1 on error */
static Py_ssize_t
split_parts(const PieceBoxes *pb, Py_ssize_t *items, Py_ssize_t m, int vertical, double min_gap,
            Py_ssize_t *starts)
{
    if (sort_by(items, m, vertical ? pb->x0 : pb->top) < 0)
        return -1;
    Py_ssize_t groups = 1;
    starts[0] = 0;
    double end = vertical ? pb->x1[items[0]] : pb->bottom[items[0]];
    for (Py_ssize_t t = 1; t < m; t++) {
        Py_ssize_t p = items[t];
        int apart = vertical ? pb->x0[p] - end >= min_gap : pb->top[p] > end;
        if (apart)
            starts[groups++] = t;
        double e = vertical ? pb->x1[p] : pb->bottom[p];
        end = PMAX(end, e);
    }
    starts[groups] = m;
    return groups;
}

/* Python's round(v) for a finite v that fits (ties to even), 0 otherwise */
static int
round_int(double v, long long *out)
{
    if (!isfinite(v))
        return 0;
    double r = nearbyint(v);
    if (fabs(r) > 4e18)
        return 0;
    *out = (long long)r;
    return 1;
}

/* columns._cut_once over part (reordered as Python's sorts leave it when cut): the number of
 * parts cut (0: one block), their starts in *starts, are_columns in *columns; -1 on error
 * and -2 when a number is one Python's round() refuses (Python then takes the page) */
static Py_ssize_t
cut_once(const PieceBoxes *pb, const double *height, Py_ssize_t *part, Py_ssize_t m, int rtl,
         Py_ssize_t **starts_out, int *are_columns)
{
    if (m <= 1)
        return 0;
    Py_ssize_t result = -1, *starts = NULL, *bstarts = NULL, *gap_start = NULL, *items = NULL;
    double *heights = NULL, *gaps = NULL, *tops = NULL, *bottoms = NULL;
    char *kinds = NULL;
    long long *seen = NULL;
    heights = PyMem_Malloc(m * sizeof(double));
    starts = PyMem_Malloc((m + 1) * sizeof(Py_ssize_t));
    items = PyMem_Malloc(m * sizeof(Py_ssize_t));
    if (!heights || !starts || !items) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t t = 0; t < m; t++)
        heights[t] = height[part[t]];
    double h_mid;
    if (upper_median(heights, m, &h_mid) < 0)
        goto done;
    double min_gap = number[K_GUTTER] * h_mid;
    memcpy(items, part, m * sizeof(Py_ssize_t));
    Py_ssize_t n_cols = split_parts(pb, items, m, 1, min_gap, starts);
    if (n_cols < 0)
        goto done;
    if (n_cols > 1) {
        if (rtl) { /* the columns right to left: the groups reversed, each kept in order */
            Py_ssize_t *rev = PyMem_Malloc(m * sizeof(Py_ssize_t));
            Py_ssize_t *rstarts = PyMem_Malloc((n_cols + 1) * sizeof(Py_ssize_t));
            if (!rev || !rstarts) {
                PyMem_Free(rev);
                PyMem_Free(rstarts);
                PyErr_NoMemory();
                goto done;
            }
            Py_ssize_t at = 0;
            for (Py_ssize_t g = n_cols - 1; g >= 0; g--) {
                rstarts[n_cols - 1 - g] = at;
                for (Py_ssize_t t = starts[g]; t < starts[g + 1]; t++)
                    rev[at++] = items[t];
            }
            rstarts[n_cols] = m;
            memcpy(items, rev, m * sizeof(Py_ssize_t));
            memcpy(starts, rstarts, (n_cols + 1) * sizeof(Py_ssize_t));
            PyMem_Free(rev);
            PyMem_Free(rstarts);
        }
        memcpy(part, items, m * sizeof(Py_ssize_t));
        *are_columns = 1;
        *starts_out = starts;
        starts = NULL;
        result = n_cols;
        goto done;
    }
    memcpy(items, part, m * sizeof(Py_ssize_t));
    Py_ssize_t n_bands = split_parts(pb, items, m, 0, 0.0, starts);
    if (n_bands < 0)
        goto done;
    if (n_bands == 1) {
        result = 0;
        goto done;
    }
    /* _gaps of each band: (end, x0) pairs, the band's pieces by x0 */
    gaps = PyMem_Malloc(2 * m * sizeof(double));
    gap_start = PyMem_Malloc((n_bands + 1) * sizeof(Py_ssize_t));
    Py_ssize_t *band_items = PyMem_Malloc(m * sizeof(Py_ssize_t));
    if (!gaps || !gap_start || !band_items) {
        PyMem_Free(band_items);
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t n_gaps = 0;
    for (Py_ssize_t b = 0; b < n_bands; b++) {
        Py_ssize_t from = starts[b], count = starts[b + 1] - from;
        memcpy(band_items, items + from, count * sizeof(Py_ssize_t));
        if (sort_by(band_items, count, pb->x0) < 0) {
            PyMem_Free(band_items);
            goto done;
        }
        gap_start[b] = n_gaps;
        double end = pb->x1[band_items[0]];
        for (Py_ssize_t t = 1; t < count; t++) {
            Py_ssize_t p = band_items[t];
            if (pb->x0[p] - end >= min_gap) {
                gaps[2 * n_gaps] = end;
                gaps[2 * n_gaps + 1] = pb->x0[p];
                n_gaps++;
            }
            end = PMAX(end, pb->x1[p]);
        }
    }
    gap_start[n_bands] = n_gaps;
    PyMem_Free(band_items);
    /* _gutter: the gap shared by the most bands (at least two), narrowed to what all leave */
    seen = PyMem_Malloc((2 * n_gaps + 2) * sizeof(long long));
    if (!seen) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t n_seen = 0, best_count = 1;
    int found = 0;
    double best_lo = 0, best_hi = 0;
    for (Py_ssize_t q = 0; q < n_gaps; q++) {
        double a = gaps[2 * q], b = gaps[2 * q + 1];
        long long ra, rb;
        if (!round_int(a, &ra) || !round_int(b, &rb)) {
            result = -2;
            goto done;
        }
        int known = 0;
        for (Py_ssize_t t = 0; t < n_seen && !known; t++)
            known = seen[2 * t] == ra && seen[2 * t + 1] == rb;
        if (known) /* a table's rows share their gaps: count each once */
            continue;
        seen[2 * n_seen] = ra;
        seen[2 * n_seen + 1] = rb;
        n_seen++;
        double lo = a, hi = b;
        Py_ssize_t count = 0;
        for (Py_ssize_t o = 0; o < n_bands; o++) {
            for (Py_ssize_t r = gap_start[o]; r < gap_start[o + 1]; r++) {
                double c = gaps[2 * r], d = gaps[2 * r + 1];
                if (PMIN(hi, d) - PMAX(lo, c) >= min_gap) {
                    lo = PMAX(lo, c);
                    hi = PMIN(hi, d);
                    count++;
                    break;
                }
            }
        }
        if (count > best_count || (count == best_count && found && hi - lo > best_hi - best_lo)) {
            best_lo = lo;
            best_hi = hi;
            best_count = count;
            found = 1;
        }
    }
    if (!found) { /* one column: a single block */
        result = 0;
        goto done;
    }
    /* each band: across the gutter, split by it, or on one side only */
    enum { ONE_SIDE, CROSS, SPLIT };
    kinds = PyMem_Malloc(n_bands);
    tops = PyMem_Malloc(2 * n_bands * sizeof(double));
    if (!kinds || !tops) {
        PyErr_NoMemory();
        goto done;
    }
    bottoms = tops + n_bands;
    double lo = best_lo, hi = best_hi;
    for (Py_ssize_t b = 0; b < n_bands; b++) {
        int cross = 0, left = 0, right = 0;
        for (Py_ssize_t t = starts[b]; t < starts[b + 1]; t++) {
            Py_ssize_t p = items[t];
            cross |= pb->x0[p] < hi && pb->x1[p] > lo;
            left |= pb->x1[p] <= lo;
            right |= pb->x0[p] >= hi;
        }
        kinds[b] = cross ? CROSS : left && right ? SPLIT : ONE_SIDE;
        double tb = pb->top[items[starts[b]]], bb = pb->bottom[items[starts[b]]];
        for (Py_ssize_t t = starts[b] + 1; t < starts[b + 1]; t++) {
            Py_ssize_t p = items[t];
            if (pb->top[p] < tb)
                tb = pb->top[p];
            if (pb->bottom[p] > bb)
                bb = pb->bottom[p];
        }
        tops[b] = tb;
        bottoms[b] = bb;
    }
    double close = h_mid * number[K_BAND_GAP];
    for (Py_ssize_t i = 0; i < n_bands;) {
        if (kinds[i] != ONE_SIDE) {
            i++;
            continue;
        }
        Py_ssize_t j = i;
        while (j < n_bands && kinds[j] == ONE_SIDE)
            j++;
        char kind;
        if (i > 0 && tops[i] - bottoms[i - 1] <= close)
            kind = kinds[i - 1];
        else if (j < n_bands && tops[j] - bottoms[j - 1] <= close)
            kind = kinds[j];
        else
            kind = CROSS;
        for (Py_ssize_t t = i; t < j; t++)
            kinds[t] = kind;
        i = j;
    }
    /* bands of one kind in a row are one group */
    bstarts = PyMem_Malloc((n_bands + 1) * sizeof(Py_ssize_t));
    if (!bstarts) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t n_groups = 0;
    for (Py_ssize_t b = 0; b < n_bands; b++)
        if (b == 0 || kinds[b] != kinds[b - 1])
            bstarts[n_groups++] = starts[b];
    bstarts[n_groups] = m;
    if (n_groups == 1) {
        result = 0;
        goto done;
    }
    memcpy(part, items, m * sizeof(Py_ssize_t));
    *are_columns = 0;
    *starts_out = bstarts;
    bstarts = NULL;
    result = n_groups;
done:
    PyMem_Free(heights);
    PyMem_Free(starts);
    PyMem_Free(bstarts);
    PyMem_Free(items);
    PyMem_Free(gaps);
    PyMem_Free(gap_start);
    PyMem_Free(tops);
    PyMem_Free(kinds);
    PyMem_Free(seen);
    return result;
}

/* a piece's field as a finite number (0: not a float, or not finite) */
static int
piece_number(PyObject *piece, PyObject *name, double *v)
{
    PyObject *x = PyObject_GetAttr(piece, name);
    if (!x) {
        PyErr_Clear();
        return 0;
    }
    int ok = as_float(x, v) && fabs(*v) < 1e300;
    Py_DECREF(x);
    return ok;
}

/* cut(pieces, right_to_left) -> list of (pieces, stretch, column), or None: columns._cut */
static PyObject *
cut(PyObject *self, PyObject *args)
{
    PyObject *list;
    int rtl;
    if (!PyArg_ParseTuple(args, "O!p", &PyList_Type, &list, &rtl))
        return NULL;
    READY_OR_NONE();
    Py_ssize_t n = PyList_GET_SIZE(list);
    static PyObject *names[5];
    static const char *name_text[5] = {"x0", "x1", "top", "bottom", "height"};
    for (int k = 0; k < 5; k++)
        if (!names[k] && !(names[k] = PyUnicode_InternFromString(name_text[k])))
            return NULL;
    double *v = PyMem_Malloc((n ? n : 1) * 5 * sizeof(double));
    if (!v)
        return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *p = PyList_GET_ITEM(list, i);
        if (!Py_IS_TYPE(p, (PyTypeObject *)piece_class)) {
            PyMem_Free(v);
            Py_RETURN_NONE;
        }
        for (int k = 0; k < 5; k++) {
            if (!piece_number(p, names[k], &v[k * n + i])) {
                PyMem_Free(v);
                Py_RETURN_NONE;
            }
        }
    }
    PieceBoxes pb = {v, v + n, v + 2 * n, v + 3 * n};
    const double *height = v + 4 * n;
    PyObject *out = PyList_New(0);
    Part *stack = PyMem_Malloc((n + 1) * 2 * sizeof(Part) + sizeof(Part));
    Py_ssize_t depth = 0, stack_cap = (n + 1) * 2 + 1, stretches = 0;
    if (!out || !stack) {
        PyErr_NoMemory();
        goto fail;
    }
    stack[depth].idx = PyMem_Malloc((n ? n : 1) * sizeof(Py_ssize_t));
    if (!stack[depth].idx) {
        PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        stack[depth].idx[i] = i;
    stack[depth].m = n;
    stack[depth].stretch = -1;
    stack[depth].column = 0;
    depth++;
    while (depth > 0) {
        Part part = stack[--depth];
        Py_ssize_t *starts = NULL;
        int are_columns = 0;
        Py_ssize_t parts = cut_once(&pb, height, part.idx, part.m, rtl, &starts, &are_columns);
        if (parts < 0) {
            PyMem_Free(part.idx);
            if (parts == -2) { /* Python's round() would raise: let it */
                Py_CLEAR(out);
                while (depth > 0)
                    PyMem_Free(stack[--depth].idx);
                PyMem_Free(stack);
                PyMem_Free(v);
                Py_RETURN_NONE;
            }
            goto fail;
        }
        if (parts == 0) {
            PyObject *members = PyList_New(part.m);
            if (!members) {
                PyMem_Free(part.idx);
                goto fail;
            }
            for (Py_ssize_t t = 0; t < part.m; t++) {
                PyObject *p = PyList_GET_ITEM(list, part.idx[t]);
                Py_INCREF(p);
                PyList_SET_ITEM(members, t, p);
            }
            PyMem_Free(part.idx);
            PyObject *entry;
            if (part.stretch < 0)
                entry = Py_BuildValue("(NOn)", members, Py_None, part.column);
            else
                entry = Py_BuildValue("(Nnn)", members, part.stretch, part.column);
            if (!entry || PyList_Append(out, entry) < 0) {
                Py_XDECREF(entry);
                goto fail;
            }
            Py_DECREF(entry);
            continue;
        }
        /* the children, pushed last first so the first is taken next */
        if (depth + parts > stack_cap) {
            Py_ssize_t cap = 2 * (depth + parts);
            Part *grown = PyMem_Realloc(stack, cap * sizeof(Part));
            if (!grown) {
                PyMem_Free(starts);
                PyMem_Free(part.idx);
                PyErr_NoMemory();
                goto fail;
            }
            stack = grown;
            stack_cap = cap;
        }
        Py_ssize_t stretch = are_columns ? stretches++ : part.stretch;
        for (Py_ssize_t g = parts - 1; g >= 0; g--) {
            Py_ssize_t count = starts[g + 1] - starts[g];
            Py_ssize_t *idx = PyMem_Malloc((count ? count : 1) * sizeof(Py_ssize_t));
            if (!idx) {
                PyMem_Free(starts);
                PyMem_Free(part.idx);
                PyErr_NoMemory();
                goto fail;
            }
            memcpy(idx, part.idx + starts[g], count * sizeof(Py_ssize_t));
            stack[depth].idx = idx;
            stack[depth].m = count;
            stack[depth].stretch = stretch;
            stack[depth].column = are_columns ? g : part.column;
            depth++;
        }
        PyMem_Free(starts);
        PyMem_Free(part.idx);
    }
    PyMem_Free(stack);
    PyMem_Free(v);
    return out;
fail:
    while (stack && depth > 0)
        PyMem_Free(stack[--depth].idx);
    PyMem_Free(stack);
    PyMem_Free(v);
    Py_XDECREF(out);
    return NULL;
}

/* ------------------------------------------------------------------- module -------- */

static PyMethodDef methods[] = {
    {"setup", setup, METH_VARARGS,
     "setup(Char, bidi_class, combining, ligatures, Piece, numbers): what the loops follow "
     "(see lines.compiled_lines)."},
    {"glyphs", glyphs, METH_VARARGS,
     "glyphs(chars, direction) -> list of Glyph, or None: lines._glyphs."},
    {"core_groups", core_groups, METH_VARARGS,
     "core_groups(glyphs) -> list of (members, [lo, hi]), or None: lines._core_groups."},
    {"rows", rows, METH_VARARGS,
     "rows(glyphs, split_gap) -> list of rows (lists of Glyph) in reading order, or None: "
     "lines._lines before each row becomes a line."},
    {"line", line, METH_VARARGS,
     "line(row) -> (chars, box, text, height, size, bold, italic), or None: lines._make_line "
     "for a row of plain text."},
    {"letters", letters, METH_VARARGS,
     "letters(glyphs) -> (cjk, right_to_left, left_to_right) counts, or None."},
    {"cut", cut, METH_VARARGS,
     "cut(pieces, right_to_left) -> list of (pieces, stretch, column), or None: columns._cut."},
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
