/* The character loop of mineru_tui/pdf/chars.py in C: the same PDFium calls, the same
 * arithmetic, the same Char records, without a Python round trip per PDFium call.
 *
 * Optional (setup.py builds it when a compiler is there; chars.py falls back to its own
 * loop when it is missing). It does not link to PDFium: chars.py passes the addresses of
 * pypdfium2's PDFium functions, so both loops call the very same library. The caller holds
 * PDFium's lock (mineru_tui/pdf/pdfium.py) for the whole call.
 *
 * Built with -ffp-contract=off: a fused multiply-add would round differently from
 * Python's float arithmetic, and the boxes must be equal to the last bit
 * (tests/pdf/test_char_loop.py compares both loops on every corpus PDF).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <structmember.h> /* T_OBJECT_EX */

typedef void *TextPage;
typedef void *PageObject;
typedef struct { float left, top, right, bottom; } RectF; /* PDFium's FS_RECTF */
typedef struct { float a, b, c, d, e, f; } Matrix;         /* PDFium's FS_MATRIX */

typedef unsigned int (*GetUnicode)(TextPage, int);
typedef int (*IntAt)(TextPage, int);
typedef int (*GetCharBox)(TextPage, int, double *, double *, double *, double *);
typedef int (*GetLooseCharBox)(TextPage, int, RectF *);
typedef int (*GetCharOrigin)(TextPage, int, double *, double *);
typedef float (*GetCharAngle)(TextPage, int);
typedef void *(*GetTextObject)(TextPage, int);
typedef double (*GetFontSize)(TextPage, int);
typedef int (*GetRenderMode)(PageObject);
typedef int (*GetObjectFontSize)(PageObject, float *);
typedef int (*GetMatrix)(PageObject, Matrix *);
typedef void *(*GetFont)(PageObject);

/* the order of chars._AddressTyped.NAMES, then of chars.OBJECT_FUNCTIONS */
enum { F_UNICODE, F_GENERATED, F_BOX, F_LOOSE, F_ORIGIN, F_ANGLE, F_HYPHEN, F_OBJECT,
       F_MAP_ERROR, F_FONT_SIZE, F_RENDER_MODE, F_OBJECT_FONT_SIZE, F_MATRIX, F_FONT,
       N_FUNCTIONS };

/* PDFium's FPDF_TEXTRENDERMODE_* (fpdf_edit.h) */
enum { FILL_STROKE = 2, INVISIBLE = 3, CLIP = 7 };

/* Char's fields, in its order (chars.Char) */
#define N_FIELDS 15
static const char *const FIELDS[N_FIELDS] = {
    "text", "box", "loose", "origin", "direction", "tilt", "size", "index", "generated",
    "hyphen", "map_error", "visible", "text_object", "bold", "italic"};

/* a display-frame box from two user-space corners, as chars.py computes it */
static void
display_box(double left, double right, double bottom, double top, const double *m, double *out)
{
    double x0 = m[0], y0 = m[1], ua = m[2], ub = m[3], va = m[4], vb = m[5];
    double lx = left - x0, rx = right - x0, by = bottom - y0, ty = top - y0;
    double u1 = ua * lx + ub * by, v1 = va * lx + vb * by;
    double u2 = ua * rx + ub * ty, v2 = va * rx + vb * ty;
    out[0] = u1 < u2 ? u1 : u2;
    out[1] = v1 < v2 ? v1 : v2;
    out[2] = u1 < u2 ? u2 : u1;
    out[3] = v1 < v2 ? v2 : v1;
}

/* a tuple of n floats (a new reference; NULL on error) */
static PyObject *
float_tuple(const double *values, Py_ssize_t n)
{
    PyObject *t = PyTuple_New(n);
    if (!t)
        return NULL;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *v = PyFloat_FromDouble(values[k]);
        if (!v) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, k, v);
    }
    return t;
}

static unsigned int
code_at(PyObject *codes, GetUnicode get_unicode, TextPage tp, Py_ssize_t i)
{
    if (codes != Py_None)
        return (unsigned int)PyLong_AsUnsignedLong(PyList_GET_ITEM(codes, i));
    return get_unicode(tp, (int)i);
}

/* fn(key), asked once per key: the answer kept in `cache` (a new reference; NULL on error) */
static PyObject *
remembered(PyObject *cache, PyObject *fn, PyObject *key)
{
    PyObject *value = PyDict_GetItemWithError(cache, key);
    if (value) {
        Py_INCREF(value);
        return value;
    }
    if (PyErr_Occurred())
        return NULL;
    value = PyObject_CallOneArg(fn, key);
    if (value && PyDict_SetItem(cache, key, value) < 0)
        Py_CLEAR(value);
    return value;
}

/* what read_chars needs to say a text object's facts */
typedef struct {
    GetRenderMode render_mode;
    GetObjectFontSize font_size;
    GetMatrix matrix;
    GetFont font;
    PyObject *faces; /* font address -> face(font address), for this page */
    PyObject *face;  /* face(font address) -> (bold, italic, what the font says): chars._font_face */
    PyObject *fonts; /* text object -> what its font says (the third of face's answer) */
    PyObject *hypot; /* math.hypot: the size must round as chars._object_facts' does */
} ObjectFacts;

/* chars._object_facts in C: (visible, font size as drawn, bold, italic) of a text object
 * whose address is `key` (a new reference; NULL on error), and what its font says put in
 * of->fonts. Only a font met the first time on the page goes back to Python (its name's
 * words). */
static PyObject *
object_facts(PageObject obj, PyObject *key, const ObjectFacts *of)
{
    int mode = of->render_mode(obj);
    int visible = mode != INVISIBLE && mode != CLIP;
    float size = 0;
    Matrix matrix = {0, 0, 0, 0, 0, 0};
    double font_size = 0.0;
    if (of->font_size(obj, &size) && of->matrix(obj, &matrix)) {
        /* the size along the glyphs' vertical axis (the matrix may scale, skew or turn) */
        PyObject *c = PyFloat_FromDouble((double)matrix.c);
        PyObject *d = PyFloat_FromDouble((double)matrix.d);
        PyObject *h = NULL;
        if (c && d) {
            PyObject *cd[2] = {c, d};
            h = PyObject_Vectorcall(of->hypot, cd, 2, NULL);
        }
        Py_XDECREF(c);
        Py_XDECREF(d);
        if (!h)
            return NULL;
        double hv = PyFloat_AsDouble(h);
        Py_DECREF(h);
        if (hv == -1.0 && PyErr_Occurred())
            return NULL;
        font_size = (double)size * hv;
    }
    PyObject *bold = mode == FILL_STROKE ? Py_True : Py_False; /* faux bold */
    PyObject *italic = Py_False, *face = NULL;
    void *font = of->font(obj);
    if (font) {
        PyObject *font_key = PyLong_FromVoidPtr(font);
        if (!font_key)
            return NULL;
        face = remembered(of->faces, of->face, font_key);
        Py_DECREF(font_key);
        if (!face)
            return NULL;
        if (!PyTuple_Check(face) || PyTuple_GET_SIZE(face) != 3) {
            PyErr_SetString(PyExc_TypeError, "face() must give (bold, italic, font)");
            Py_DECREF(face);
            return NULL;
        }
        if (PyDict_SetItem(of->fonts, key, PyTuple_GET_ITEM(face, 2)) < 0) {
            Py_DECREF(face);
            return NULL;
        }
        if (bold == Py_False)
            bold = PyTuple_GET_ITEM(face, 0);
        italic = PyTuple_GET_ITEM(face, 1);
    }
    PyObject *out = PyTuple_New(4);
    PyObject *size_obj = PyFloat_FromDouble(font_size);
    if (!out || !size_obj) {
        Py_XDECREF(out);
        Py_XDECREF(size_obj);
        Py_XDECREF(face);
        return NULL;
    }
    PyObject *v = visible ? Py_True : Py_False;
    Py_INCREF(v);
    Py_INCREF(bold);
    Py_INCREF(italic);
    PyTuple_SET_ITEM(out, 0, v);
    PyTuple_SET_ITEM(out, 1, size_obj);
    PyTuple_SET_ITEM(out, 2, bold);
    PyTuple_SET_ITEM(out, 3, italic);
    Py_XDECREF(face);
    return out;
}

/* Where each of Char's fields lives in a Char (it is a slots dataclass): filled in place,
 * a record costs no call of its __init__. 0 when the class is not such (a caller's own
 * class): then it is called. */
static int
slot_offsets(PyObject *char_class, Py_ssize_t *offsets)
{
    if (!PyType_Check(char_class))
        return 0;
    for (int k = 0; k < N_FIELDS; k++) {
        PyObject *d = PyObject_GetAttrString(char_class, FIELDS[k]);
        if (!d) {
            PyErr_Clear();
            return 0;
        }
        int ok = Py_IS_TYPE(d, &PyMemberDescr_Type)
                 && ((PyMemberDescrObject *)d)->d_common.d_type == (PyTypeObject *)char_class
                 && ((PyMemberDescrObject *)d)->d_member->type == T_OBJECT_EX;
        if (ok)
            offsets[k] = ((PyMemberDescrObject *)d)->d_member->offset;
        Py_DECREF(d);
        if (!ok)
            return 0;
    }
    return 1;
}

/* a Char of `fields` (borrowed; a new reference, NULL on error) */
static PyObject *
new_char(PyObject *char_class, const Py_ssize_t *offsets, int in_place, PyObject **fields)
{
    if (!in_place)
        return PyObject_Vectorcall(char_class, fields, N_FIELDS, NULL);
    PyTypeObject *type = (PyTypeObject *)char_class;
    PyObject *c = type->tp_alloc(type, 0);
    if (!c)
        return NULL;
    for (int k = 0; k < N_FIELDS; k++) {
        Py_INCREF(fields[k]);
        *(PyObject **)((char *)c + offsets[k]) = fields[k];
    }
    return c;
}

/* read_chars(tp, n, codes, functions, matrix, turn, face, hypot, char_class, fonts)
 *     -> list of Char
 *
 * tp: the text page's address; codes: its UTF-16 units (a list of n ints) or None;
 * functions: the addresses of chars._AddressTyped.NAMES and chars.OBJECT_FUNCTIONS;
 * matrix: (x0, y0, ua, ub, va, vb), user space to the display frame;
 * turn(raw_angle) -> (direction, tilt); face(font address) -> (bold, italic, font);
 * hypot: math.hypot; char_class: chars.Char; fonts: a dict, filled with each text object's
 * font (the third of face's answer) by its address. */
static PyObject *
read_chars(PyObject *self, PyObject *args)
{
    unsigned long long tp_address;
    Py_ssize_t n;
    PyObject *codes, *functions, *matrix, *turn, *face, *hypot, *char_class, *fonts;
    if (!PyArg_ParseTuple(args, "KnOO!O!OOOOO!", &tp_address, &n, &codes, &PyTuple_Type,
                          &functions, &PyTuple_Type, &matrix, &turn, &face, &hypot,
                          &char_class, &PyDict_Type, &fonts))
        return NULL;
    if (PyTuple_GET_SIZE(functions) != N_FUNCTIONS || PyTuple_GET_SIZE(matrix) != 6) {
        PyErr_SetString(PyExc_ValueError, "read_chars: 14 functions and a 6-number matrix");
        return NULL;
    }
    if (codes != Py_None && (!PyList_Check(codes) || PyList_GET_SIZE(codes) < n)) {
        PyErr_SetString(PyExc_ValueError, "read_chars: codes must be a list of n ints or None");
        return NULL;
    }
    void *f[N_FUNCTIONS];
    for (int k = 0; k < N_FUNCTIONS; k++) {
        f[k] = PyLong_AsVoidPtr(PyTuple_GET_ITEM(functions, k));
        if (f[k] == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "read_chars: a NULL function");
            return NULL;
        }
    }
    double m[6];
    for (int k = 0; k < 6; k++) {
        m[k] = PyFloat_AsDouble(PyTuple_GET_ITEM(matrix, k));
        if (m[k] == -1.0 && PyErr_Occurred())
            return NULL;
    }
    Py_ssize_t offsets[N_FIELDS];
    int in_place = slot_offsets(char_class, offsets);
    TextPage tp = (TextPage)(uintptr_t)tp_address;
    GetUnicode get_unicode = (GetUnicode)f[F_UNICODE];
    IntAt is_generated = (IntAt)f[F_GENERATED], is_hyphen = (IntAt)f[F_HYPHEN];
    IntAt map_error_at = (IntAt)f[F_MAP_ERROR];
    GetCharBox get_box = (GetCharBox)f[F_BOX];
    GetLooseCharBox get_loose = (GetLooseCharBox)f[F_LOOSE];
    GetCharOrigin get_origin = (GetCharOrigin)f[F_ORIGIN];
    GetCharAngle get_angle = (GetCharAngle)f[F_ANGLE];
    GetTextObject get_object = (GetTextObject)f[F_OBJECT];
    GetFontSize font_size_at = (GetFontSize)f[F_FONT_SIZE];
    ObjectFacts of = {(GetRenderMode)f[F_RENDER_MODE], (GetObjectFontSize)f[F_OBJECT_FONT_SIZE],
                      (GetMatrix)f[F_MATRIX], (GetFont)f[F_FONT], NULL, face, fonts, hypot};

    PyObject *out = PyList_New(0);
    PyObject *objects = PyDict_New(), *turns = PyDict_New(), *angles = PyDict_New();
    of.faces = PyDict_New();
    /* the text object of the characters before, while they share one (most runs do):
     * its address as an int, its facts, and the angle and turn of its drawn characters */
    void *last_object = NULL;
    PyObject *last_key = NULL, *last_known = NULL, *last_angle = NULL, *last_turn = NULL;
    if (!out || !objects || !turns || !angles || !of.faces)
        goto fail;
    /* like chars.py's output buffers, kept from one character to the next */
    double left = 0, right = 0, bottom = 0, top = 0, ox = 0, oy = 0;
    RectF loose = {0, 0, 0, 0};
    int low_half = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned int code = code_at(codes, get_unicode, tp, i);
        if (code == (unsigned int)-1 && PyErr_Occurred())
            goto fail;
        if (low_half) {
            low_half = 0;
            continue;
        }
        int generated = (code == 0x20 || code == 0x0D || code == 0x0A)
                        && is_generated(tp, (int)i) != 0;
        if (generated && code != 0x20)
            continue;
        if (code >= 0xD800 && code <= 0xDBFF && i + 1 < n) {
            unsigned int low = code_at(codes, get_unicode, tp, i + 1);
            if (low == (unsigned int)-1 && PyErr_Occurred())
                goto fail;
            if (low >= 0xDC00 && low <= 0xDFFF) {
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                low_half = 1;
            }
        }
        Py_UCS4 ch = (code > 0 && code < 0x110000 && !(code >= 0xD800 && code <= 0xDFFF))
                     ? (Py_UCS4)code : 0xFFFD;
        double tight_box[4], loose_box_v[4];
        get_box(tp, (int)i, &left, &right, &bottom, &top);
        get_origin(tp, (int)i, &ox, &oy);
        get_loose(tp, (int)i, &loose);
        display_box(left, right, bottom, top, m, tight_box);
        display_box((double)loose.left, (double)loose.right, (double)loose.bottom,
                    (double)loose.top, m, loose_box_v);
        PyObject *loose_box = float_tuple(loose_box_v, 4), *tight = NULL, *origin = NULL;
        PyObject *raw_angle = NULL, *direction_tilt = NULL;
        if (!loose_box)
            goto fail;
        if ((tight_box[2] - tight_box[0] <= 0 || tight_box[3] - tight_box[1] <= 0)
            && !Py_UNICODE_ISSPACE(ch)) {
            Py_INCREF(loose_box); /* the very tuple, as in chars.py */
            tight = loose_box;
        } else {
            tight = float_tuple(tight_box, 4);
            if (!tight)
                goto fail_char;
        }
        double dx = ox - m[0], dy = oy - m[1];
        double origin_v[2] = {m[2] * dx + m[3] * dy, m[4] * dx + m[5] * dy};
        origin = float_tuple(origin_v, 2);
        if (!origin)
            goto fail_char;

        void *object = get_object(tp, (int)i);
        if (!last_key || object != last_object) {
            Py_CLEAR(last_key);
            Py_CLEAR(last_known);
            Py_CLEAR(last_angle);
            Py_CLEAR(last_turn);
            last_object = object;
            last_key = object ? PyLong_FromVoidPtr(object) : PyLong_FromLong(0);
            if (!last_key)
                goto fail_char;
            if (object) { /* its facts, worked out once per object */
                last_known = PyDict_GetItemWithError(objects, last_key);
                if (last_known) {
                    Py_INCREF(last_known);
                } else {
                    if (PyErr_Occurred())
                        goto fail_char;
                    last_known = object_facts(object, last_key, &of);
                    if (!last_known || PyDict_SetItem(objects, last_key, last_known) < 0)
                        goto fail_char;
                }
            }
        }
        if (object && !generated) {
            /* a drawn character's angle is its text object's: asked once per object */
            if (!last_angle) {
                last_angle = PyDict_GetItemWithError(angles, last_key);
                if (last_angle) {
                    Py_INCREF(last_angle);
                } else {
                    if (PyErr_Occurred())
                        goto fail_char;
                    last_angle = PyFloat_FromDouble((double)get_angle(tp, (int)i));
                    if (!last_angle || PyDict_SetItem(angles, last_key, last_angle) < 0)
                        goto fail_char;
                }
                last_turn = remembered(turns, turn, last_angle);
                if (!last_turn)
                    goto fail_char;
            }
            raw_angle = Py_NewRef(last_angle);
            direction_tilt = Py_NewRef(last_turn);
        } else {
            raw_angle = PyFloat_FromDouble((double)get_angle(tp, (int)i));
            if (!raw_angle)
                goto fail_char;
            direction_tilt = remembered(turns, turn, raw_angle);
            if (!direction_tilt)
                goto fail_char;
        }
        if (!PyTuple_Check(direction_tilt) || PyTuple_GET_SIZE(direction_tilt) != 2) {
            PyErr_SetString(PyExc_TypeError, "turn() must give (direction, tilt)");
            goto fail_char;
        }
        PyObject *visible = Py_True, *size = NULL, *bold = Py_False, *italic = Py_False;
        if (object) {
            visible = PyTuple_GET_ITEM(last_known, 0);
            size = PyTuple_GET_ITEM(last_known, 1);
            bold = PyTuple_GET_ITEM(last_known, 2);
            italic = PyTuple_GET_ITEM(last_known, 3);
        }
        double size_value = 0.0;
        if (size) {
            size_value = PyFloat_AsDouble(size);
            if (size_value == -1.0 && PyErr_Occurred())
                goto fail_char;
        }
        PyObject *size_obj;
        if (size && !(size_value <= 0)) {
            Py_INCREF(size);
            size_obj = size;
        } else {
            size_obj = PyFloat_FromDouble(font_size_at(tp, (int)i));
            if (!size_obj)
                goto fail_char;
        }
        /* PDFium marks only dashes and its own U+0002 as line-end hyphens */
        int hyphen = code == 0x02 || (!Py_UNICODE_ISALNUM(ch) && is_hyphen(tp, (int)i) != 0);
        int map_error = map_error_at(tp, (int)i) == 1;
        PyObject *text = PyUnicode_FromOrdinal((int)ch);
        PyObject *index = PyLong_FromSsize_t(i);
        PyObject *c = NULL;
        if (text && index) {
            PyObject *fields[N_FIELDS] = {
                text, tight, loose_box, origin, PyTuple_GET_ITEM(direction_tilt, 0),
                PyTuple_GET_ITEM(direction_tilt, 1), size_obj, index,
                generated ? Py_True : Py_False, hyphen ? Py_True : Py_False,
                map_error ? Py_True : Py_False, visible, last_key, bold, italic};
            c = new_char(char_class, offsets, in_place, fields);
        }
        Py_XDECREF(text);
        Py_XDECREF(index);
        Py_DECREF(size_obj);
        if (!c || PyList_Append(out, c) < 0) {
            Py_XDECREF(c);
            goto fail_char;
        }
        Py_DECREF(c);
        Py_DECREF(tight);
        Py_DECREF(loose_box);
        Py_DECREF(origin);
        Py_DECREF(raw_angle);
        Py_DECREF(direction_tilt);
        continue;
    fail_char:
        Py_DECREF(loose_box);
        Py_XDECREF(tight);
        Py_XDECREF(origin);
        Py_XDECREF(raw_angle);
        Py_XDECREF(direction_tilt);
        goto fail;
    }
    Py_XDECREF(last_key);
    Py_XDECREF(last_known);
    Py_XDECREF(last_angle);
    Py_XDECREF(last_turn);
    Py_DECREF(objects);
    Py_DECREF(turns);
    Py_DECREF(angles);
    Py_DECREF(of.faces);
    return out;
fail:
    Py_XDECREF(last_key);
    Py_XDECREF(last_known);
    Py_XDECREF(last_angle);
    Py_XDECREF(last_turn);
    Py_XDECREF(out);
    Py_XDECREF(objects);
    Py_XDECREF(turns);
    Py_XDECREF(angles);
    Py_XDECREF(of.faces);
    return NULL;
}

static PyMethodDef methods[] = {
    {"read_chars", read_chars, METH_VARARGS,
     "read_chars(tp, n, codes, functions, matrix, turn, face, hypot, char_class, fonts) -> "
     "list of Char: "
     "chars.py's character loop (see mineru_tui/pdf/chars.py)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_charloop",
                                    "chars.py's character loop in C (optional).", -1, methods};

PyMODINIT_FUNC
PyInit__charloop(void)
{
    return PyModule_Create(&module);
}
